// Package problem holds Errata's error codes and the RFC 9457 problem object
// every error answer carries, plus the documentation pages the problem's
// type address points at.
package problem

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// ContentType is the media type of a problem body.
const ContentType = "application/problem+json"

// Problem is an RFC 9457 problem. Type and Instance are filled in when the
// problem is written, from the server's docs URL and the request id.
type Problem struct {
	Type     string `json:"type" doc:"{docs_url}/errors/<code>; clients switch on this" format:"uri"`
	Title    string `json:"title" doc:"Short human text"`
	Status   int    `json:"status" doc:"HTTP status"`
	Detail   string `json:"detail" doc:"Human text naming the problem, for example the offending field"`
	Instance string `json:"instance" doc:"Request identifier (req_ prefix)"`

	code    string
	headers http.Header
}

// Challenge is the WWW-Authenticate of every 401 (RFC 9110, 15.5.2): the
// scheme that would be accepted.
const Challenge = `Bearer realm="errata"`

// New returns the problem of the documented code, with detail. An unknown
// code is a programming error and becomes "internal". A 401 carries
// WWW-Authenticate: Bearer.
func New(code, detail string) *Problem {
	c, ok := byName[code]
	if !ok {
		c = byName["internal"]
	}
	if detail == "" {
		detail = c.Explain
	}
	p := &Problem{Title: c.Title, Status: c.Status, Detail: detail, code: c.Name}
	if p.Status == http.StatusUnauthorized {
		// RFC 9110 (15.5.2): a 401 names the scheme that would be accepted.
		p.WithHeader("WWW-Authenticate", Challenge)
	}
	return p
}

// Newf is New with a formatted detail.
func Newf(code, format string, args ...any) *Problem {
	return New(code, fmt.Sprintf(format, args...))
}

// Code is the problem's code, e.g. "not-found".
func (p *Problem) Code() string { return p.code }

// Error implements error.
func (p *Problem) Error() string { return p.code + ": " + p.Detail }

// GetStatus is the HTTP status (huma.StatusError).
func (p *Problem) GetStatus() int { return p.Status }

// ContentType makes the body application/problem+json (huma.ContentTypeFilter).
func (p *Problem) ContentType(string) string { return ContentType }

// GetHeaders returns headers to send with the problem (huma.HeadersError).
func (p *Problem) GetHeaders() http.Header {
	if p.headers == nil {
		p.headers = http.Header{}
	}
	return p.headers
}

// WithHeader adds a response header and returns p.
func (p *Problem) WithHeader(name, value string) *Problem {
	p.GetHeaders().Add(name, value)
	return p
}

// RetryAfter adds a Retry-After header of whole seconds (at least 1).
func (p *Problem) RetryAfter(d time.Duration) *Problem {
	s := int((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return p.WithHeader("Retry-After", strconv.Itoa(s))
}

// Complete fills in Type and Instance.
func (p *Problem) Complete(docsURL, requestID string) *Problem {
	p.Type = docsURL + "/errors/" + p.code
	p.Instance = requestID
	return p
}

// Write sends p on w, completing it first.
func (p *Problem) Write(w http.ResponseWriter, docsURL, requestID string) {
	p.Complete(docsURL, requestID)
	h := w.Header()
	for k, vs := range p.headers {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	h.Set("Content-Type", ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

// UnavailableRetry is the Retry-After of an `unavailable` answer: a
// database outage is usually short, and clients back off on their own.
const UnavailableRetry = 5 * time.Second

// coder is an error that names its problem code: the store's sentinels
// (not found, conflict, unavailable) are, so that this package maps them
// without importing the store.
type coder interface{ ProblemCode() string }

// From is the one mapping from errors to problems, for the API, the
// dashboard and the OTLP routes alike: a *Problem anywhere in err's chain
// is the answer; an error naming its code (the store's not found, conflict
// and unavailable) becomes that code's problem; anything else is
// `internal`, whose cause the caller logs (IsInternal) and never shows.
func From(err error) *Problem {
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	var c coder
	if errors.As(err, &c) {
		switch code := c.ProblemCode(); code {
		case "not-found":
			return New(code, "the resource does not exist")
		case "conflict":
			return New(code, "the change conflicts with the current state or a concurrent change; read the resource again and retry")
		case "unavailable":
			detail := "the database is unavailable; nothing was changed: retry after Retry-After seconds"
			if d, ok := c.(interface{ ProblemDetail() string }); ok && d.ProblemDetail() != "" {
				detail = d.ProblemDetail()
			}
			return New(code, detail).RetryAfter(UnavailableRetry)
		default:
			return New(code, "")
		}
	}
	return New("internal", "an internal error occurred; the instance identifies it in the server log")
}

// IsInternal reports whether p is the `internal` problem, whose cause the
// server logs.
func (p *Problem) IsInternal() bool { return p.code == "internal" }
