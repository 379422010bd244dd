package intake

import (
	"net/http"

	"github.com/errata-dev/errata/internal/store"
)

// AdmitHTTP runs Admit for an HTTP ingestion request whose credential is
// credential and writes the RateLimit-* headers of the answer: those of
// the project's bucket or, when the request was refused before its
// project was known, those of the caller's address in the management
// API's limiter. A refusal comes back as the error, for the transport to
// answer in its own format.
func (in *Intake) AdmitHTTP(w http.ResponseWriter, r *http.Request, route, credential string) (store.Project, error) {
	return in.admitHTTP(w, r, route, credential, "")
}

// AdmitBrowser is AdmitHTTP for a route that browsers send to (the Sentry
// endpoints): a request with an Origin header that the key's
// allowed_origins do not list is refused with ErrOriginRefused (403).
func (in *Intake) AdmitBrowser(w http.ResponseWriter, r *http.Request, route, credential string) (store.Project, error) {
	return in.admitHTTP(w, r, route, credential, r.Header.Get("Origin"))
}

func (in *Intake) admitHTTP(w http.ResponseWriter, r *http.Request, route, credential, origin string) (store.Project, error) {
	p, rl, err := in.admit(r.Context(), route, credential, origin)
	if rl == nil { // refused before the project was known: limit by address
		res := in.Callers.Allow("ip:" + in.ClientIP.Key(r))
		rl = &res
	}
	rl.SetHeaders(w.Header())
	return p, err
}
