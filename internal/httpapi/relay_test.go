package httpapi_test

// Errata is nobody's mail relay (CONTRACT 8, issue 21): each test floods a
// real server, with a real SMTP server behind it, as an attacker with an
// account would, and counts what reaches the SMTP server.

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/mail/mailtest"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// eachWithSMTP runs fn once per database on a fresh server that sends its
// email to an SMTP server of its own.
func eachWithSMTP(t *testing.T, fn func(t *testing.T, s *apitest.Server, smtp *mailtest.Server), opts ...func(*config.Serve)) {
	t.Helper()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			smtp := mailtest.Start(t)
			s := apitest.Start(t, d, append(opts, func(c *config.Serve) { c.SMTPURL = smtp.URL() })...)
			fn(t, s, smtp)
		})
	}
}

// refusals collects the headers of 429 answers fired together.
type refusals struct {
	mu      sync.Mutex
	headers []http.Header
}

func (r *refusals) post(t *testing.T, url, token string, body any) int {
	st, h := rawPost(t, url, token, body)
	if st == http.StatusTooManyRequests {
		r.mu.Lock()
		r.headers = append(r.headers, h)
		r.mu.Unlock()
	}
	return st
}

// rawStatus posts body and returns the status, from any goroutine.
func rawStatus(t *testing.T, url, token string, body any) int {
	st, _ := rawPost(t, url, token, body)
	return st
}

// check fails unless every refusal says when to retry, within max, and
// carries the RateLimit-* headers.
func (r *refusals) check(t *testing.T, max time.Duration) {
	t.Helper()
	for _, h := range r.headers {
		ra, err := strconv.Atoi(h.Get("Retry-After"))
		if err != nil || ra < 1 || time.Duration(ra)*time.Second > max {
			t.Errorf("Retry-After = %q, want 1 to %v seconds", h.Get("Retry-After"), max.Seconds())
		}
		if h.Get("RateLimit-Limit") == "" || h.Get("RateLimit-Reset") == "" {
			t.Errorf("429 without RateLimit-* headers: %v", h)
		}
		// A limit of its own refused, not the caller's bucket: the headers
		// say none is left until Retry-After, not "retry at once".
		if h.Get("RateLimit-Remaining") != "0" || h.Get("RateLimit-Reset") != h.Get("Retry-After") {
			t.Errorf("429: RateLimit-Remaining %q, RateLimit-Reset %q, Retry-After %q; want 0 left until Retry-After",
				h.Get("RateLimit-Remaining"), h.Get("RateLimit-Reset"), h.Get("Retry-After"))
		}
	}
}

// waitMail waits until smtp has n emails in all and returns them.
func waitMail(t *testing.T, smtp *mailtest.Server, n int) []mailtest.Message {
	t.Helper()
	return smtp.Count(t, 30*time.Second, n)
}

// TestInvitationFlood: invitations fired together are created, and
// emailed, at most 20 per organization an hour and 100 a day; the others
// are 429 with Retry-After and create nothing. Other organizations keep
// their own budget.
func TestInvitationFlood(t *testing.T) {
	t.Parallel()
	eachWithSMTP(t, func(t *testing.T, s *apitest.Server, smtp *mailtest.Server) {
		owner := s.SignUp(t, "owner@example.com")
		orgID := s.CreateOrg(t, owner.Token, "Acme")
		path := "/v1/orgs/" + orgID + "/invitations"
		var r refusals
		statuses := together(30, func(i int) int {
			return r.post(t, s.URL+path, owner.Token, map[string]any{"email": fmt.Sprintf("victim%d@example.net", i)})
		})
		if c := count(statuses); c[http.StatusCreated] != 20 || c[http.StatusTooManyRequests] != 10 {
			t.Fatalf("30 invitations at once: %v, want 20 created and 10 refused", c)
		}
		r.check(t, time.Hour)
		s.Do(apitest.Request{Method: "POST", Path: path, Token: owner.Token, Body: map[string]any{"email": "one-more@example.net"}}).
			Expect(t, http.StatusTooManyRequests, "rate-limited")
		if got := len(items(t, s, owner.Token, path+"?limit=100")); got != 20 {
			t.Fatalf("%d invitations exist, want the 20 allowed", got)
		}
		deliverDue(t, s)
		waitMail(t, smtp, 20)

		// Another organization has its own budget.
		other := s.CreateOrg(t, owner.Token, "Other")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + other + "/invitations", Token: owner.Token, Body: map[string]any{"email": "x@example.net"}}).
			Expect(t, http.StatusCreated, "")

		// Each hour 20 more, up to 100 a day; then the day is full.
		for hour := 1; hour < 5; hour++ {
			s.Clock.Advance(time.Hour)
			statuses := together(20, func(i int) int {
				return rawStatus(t, s.URL+path, owner.Token, map[string]any{"email": fmt.Sprintf("h%d-%d@example.net", hour, i)})
			})
			if c := count(statuses); c[http.StatusCreated] != 20 {
				t.Fatalf("hour %d: %v, want 20 created", hour, c)
			}
		}
		s.Clock.Advance(time.Hour)
		var day refusals
		if st := day.post(t, s.URL+path, owner.Token, map[string]any{"email": "late@example.net"}); st != http.StatusTooManyRequests {
			t.Fatalf("the 101st invitation of the day: %d, want 429", st)
		}
		day.check(t, 24*time.Hour)
		if ra, _ := strconv.Atoi(day.headers[0].Get("Retry-After")); ra < int((18 * time.Hour).Seconds()) {
			t.Errorf("Retry-After = %d s, want the day's first invitation to leave the day (about 19 hours)", ra)
		}
	})
}

// TestInvitationLimitAcrossProcesses: two api processes on one PostgreSQL
// database share the organization's invitation budget.
func TestInvitationLimitAcrossProcesses(t *testing.T) {
	t.Parallel()
	a := apitest.Start(t, "postgres")
	b := apitest.StartOn(t, a.DatabaseURL)
	owner := a.SignUp(t, "owner@example.com")
	orgID := a.CreateOrg(t, owner.Token, "Acme")
	var r refusals
	statuses := together(30, func(i int) int {
		s := []*apitest.Server{a, b}[i%2]
		return r.post(t, s.URL+"/v1/orgs/"+orgID+"/invitations", owner.Token, map[string]any{"email": fmt.Sprintf("v%d@example.net", i)})
	})
	if c := count(statuses); c[http.StatusCreated] != 20 || c[http.StatusTooManyRequests] != 10 {
		t.Fatalf("30 invitations at once through two processes: %v, want 20 created and 10 refused", c)
	}
	r.check(t, time.Hour)
}
