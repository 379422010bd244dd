package intake

import (
	"net/http"

	"github.com/errata-dev/errata/internal/ratelimit"
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
	return in.admitHTTP(w, r, route, credential, browserOrigin(r))
}

// AdmitProject is AdmitBrowser for a request to project number (the
// Sentry endpoints) whose address may have paid a token of the management
// API's limiter already (addr, its result; nil when not): a request that
// authenticates itself in its body (the Sentry keyless path). A refusal
// before the project is known answers addr's headers and takes no second
// token; a valid key of another project is ErrOtherProject, answered with
// the address's headers as an unknown key is, and spends nothing of its
// project's bucket.
func (in *Intake) AdmitProject(w http.ResponseWriter, r *http.Request, route, credential string, number int64, addr *ratelimit.Result) (store.Project, error) {
	return in.admitWith(w, r, route, credential, browserOrigin(r), number, addr)
}

// badOrigin stands for an Origin header no allowed_origins list but "*"
// accepts: an empty one, or several that differ.
const badOrigin = "invalid origin"

// browserOrigin is the request's Origin header, "" when it has none, and
// badOrigin when it carries one that is empty or several that differ: a
// request that carries an Origin is checked against the key's list
// whatever its form (CONTRACT 8), not let through as one without.
func browserOrigin(r *http.Request) string {
	vs := r.Header.Values("Origin")
	if len(vs) == 0 {
		return ""
	}
	for _, v := range vs[1:] {
		if v != vs[0] {
			return badOrigin
		}
	}
	if vs[0] == "" {
		return badOrigin
	}
	return vs[0]
}

func (in *Intake) admitHTTP(w http.ResponseWriter, r *http.Request, route, credential, origin string) (store.Project, error) {
	return in.admitWith(w, r, route, credential, origin, 0, nil)
}

// admitWith runs admit; addr, when not nil, is what the caller's address
// paid already.
func (in *Intake) admitWith(w http.ResponseWriter, r *http.Request, route, credential, origin string, number int64, addr *ratelimit.Result) (store.Project, error) {
	p, rl, err := in.admit(r.Context(), route, credential, origin, number)
	if rl == nil { // refused before the project was known: limit by address
		if addr == nil {
			res := in.Callers.Allow("ip:" + in.ClientIP.Key(r))
			addr = &res
		}
		rl = addr
	}
	rl.SetHeaders(w.Header())
	return p, err
}
