package httpapi

import (
	"errors"
	"mime"
	"net/http"
	"strconv"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/problem"
)

// ingestRoute is POST /v1/ingest, a plain handler over the intake: its
// checks run in the contract's order before any body is buffered, and the
// body is read with hard limits and within the memory budget (a gzip bomb
// stops at 20 MiB decompressed).
func (s *Server) ingestRoute(w http.ResponseWriter, r *http.Request) {
	const route = metrics.RouteIngest
	in := s.intake
	p, err := in.AdmitHTTP(w, r, route, httpserver.Bearer(r))
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	fail := func(reason string, pr *problem.Problem) {
		in.Refuse(route, reason)
		writeProblem(w, r, pr)
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		fail(metrics.RefusedMediaType, problem.New("unsupported-media-type", "Content-Type must be application/json"))
		return
	}
	gzipped, pr := intake.Encoding(r)
	if pr != nil {
		fail(metrics.RefusedEncoding, pr)
		return
	}
	received := in.Received()
	body, reason, pr := in.ReadBody(r.Context(), r, p.OrgID, gzipped)
	if pr != nil {
		fail(reason, pr)
		return
	}
	defer body.Release()
	// Decoding holds the events' strings (at most the body's size) and
	// committing the queue payload (about as much) and its compressed copy
	// besides the body.
	n := len(body.Bytes)
	if reason, pr := body.Reserve(r.Context(), int64(2*n+ingest.CompressBound(n))); pr != nil {
		fail(reason, pr)
		return
	}
	events, err := in.Decoder.Decode(body.Bytes, received)
	if err != nil {
		var pr *problem.Problem
		reason := metrics.RefusedInvalid
		if errors.As(err, &pr) && pr.Status == http.StatusBadRequest {
			reason = metrics.RefusedMalformed
		}
		in.Refuse(route, reason)
		s.answerError(w, r, err)
		return
	}
	if err := in.Commit(r.Context(), route, p, received, events); err != nil {
		s.answerError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte(`{"accepted":` + strconv.Itoa(len(events)) + "}"))
}

// answerError writes err as a problem through the one error mapping.
func (s *Server) answerError(w http.ResponseWriter, r *http.Request, err error) {
	writeProblem(w, r, httpserver.Problem(r.Context(), err))
}
