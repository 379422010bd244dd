package httpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/problem"
)

var installOnce sync.Once

// installErrors makes huma build every error it raises (bad JSON, failed
// validation, oversized bodies, handler errors) as our problem. huma keeps
// these hooks in package variables; the hooks themselves hold no settings:
// the docs URL and request id come from the request's context.
func installErrors() {
	installOnce.Do(func() {
		huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
			return toProblem(context.Background(), status, msg, errs)
		}
		huma.NewErrorWithContext = func(ctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
			c := context.Background()
			if ctx != nil {
				c = ctx.Context()
			}
			return toProblem(c, status, msg, errs)
		}
	})
}

// Problem is err as the problem that answers it: the one mapping of
// handlers' errors (a 500 internal, logged with the request id, for an
// error that is no problem).
func Problem(ctx context.Context, err error) *problem.Problem {
	return toProblem(ctx, http.StatusInternalServerError, "", []error{err})
}

// toProblem is the one place where errors become problems.
func toProblem(ctx context.Context, status int, msg string, errs []error) *problem.Problem {
	ri := info(ctx)
	p := classify(ctx, status, msg, errs)
	return p.Complete(ri.docsURL, ri.id)
}

func classify(ctx context.Context, status int, msg string, errs []error) *problem.Problem {
	for _, err := range errs {
		if err == nil {
			continue
		}
		if p := problem.From(err); !p.IsInternal() {
			return p
		}
	}
	switch status {
	case http.StatusUnprocessableEntity:
		return problem.New("validation-failed", validationDetail(msg, errs))
	case http.StatusBadRequest:
		return problem.New("malformed-body", badBodyDetail(msg, errs))
	case http.StatusRequestEntityTooLarge:
		return problem.New("payload-too-large", "the request body is over the 1 MiB limit")
	case http.StatusUnsupportedMediaType:
		return problem.New("unsupported-media-type", "Content-Type must be application/json")
	case http.StatusRequestTimeout:
		// huma's body read timeout (5 s on management routes): the client
		// is slow or stalled, nothing failed here.
		return problem.New("malformed-body", "the request body did not arrive within 5 seconds")
	}
	if status == http.StatusInternalServerError && msg == "cannot read request body" {
		// The body stopped arriving (the client went away, or the read
		// timeout closed the connection): the client's failure, not ours,
		// and it is not logged as an internal error.
		return problem.New("malformed-body", "the request body could not be read to its end")
	}
	if status == 0 { // huma's example error, built once at registration
		return problem.New("internal", "")
	}
	if status >= 500 {
		info(ctx).log.Error("internal error", "status", status, "msg", msg, "err", errors.Join(errs...))
		return problem.New("internal", "an internal error occurred; the instance identifies it in the server log")
	}
	return problem.New(problem.ForStatus(status), msg)
}

// validationDetail names the first offending field: "email: expected …".
func validationDetail(msg string, errs []error) string {
	for _, err := range errs {
		var d *huma.ErrorDetail
		if errors.As(err, &d) {
			field := d.Location
			for _, pre := range []string{"body.", "query.", "path.", "header."} {
				field = strings.TrimPrefix(field, pre)
			}
			m := d.Message
			if m == "invalid date/time for format "+time.RFC3339Nano {
				// huma's words for a query parameter's time name Go's
				// layout ("2006-01-02T15:04:05.999999999Z07:00").
				m = "expected an RFC 3339 date-time such as 2024-05-01T12:00:00Z"
			}
			if d.Location == "body" || field == "" { // the whole body (a field may be named body)
				return m
			}
			return fmt.Sprintf("%s: %s", field, m)
		}
		if err != nil {
			return err.Error()
		}
	}
	return msg
}

func badBodyDetail(msg string, errs []error) string {
	for _, err := range errs {
		var d *huma.ErrorDetail
		if errors.As(err, &d) && d.Message != "" {
			return "the body is not valid JSON: " + d.Message
		}
		if err != nil {
			return "the body is not valid JSON: " + err.Error()
		}
	}
	return "the body is not valid JSON: " + msg
}

// completeProblem fills in the type and instance of problems that handlers
// return directly (huma writes those without calling NewErrorWithContext).
func completeProblem(ctx huma.Context, _ string, v any) (any, error) {
	if p, ok := v.(*problem.Problem); ok && p.Instance == "" {
		ri := info(ctx.Context())
		p.Complete(ri.docsURL, ri.id)
	}
	return v, nil
}
