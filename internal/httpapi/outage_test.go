package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
	"github.com/errata-dev/errata/internal/testproxy"
)

// outageServer is a server whose PostgreSQL is reached through a proxy the
// test can cut, as a network partition or a database restart would.
func outageServer(t *testing.T, opts ...func(*config.Serve)) (*apitest.Server, *testproxy.Proxy) {
	t.Helper()
	dbURL := storetest.URL(t, store.Postgres)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	p := testproxy.Start(t, u.Host)
	return apitest.StartOn(t, p.URL(t, dbURL), opts...), p
}

// TestDatabaseOutageIsRetryable cuts the database away: every request that
// needs it answers 503 unavailable with Retry-After (never 500, never 202),
// /readyz says 503 without naming the database, and everything works again
// once the database is back, without a restart.
func TestDatabaseOutageIsRetryable(t *testing.T) {
	s, proxy := outageServer(t)
	w := newProcWorld(t, s)
	body := batchOf("api", ev("before the outage", "error"))
	s.Do(ingestReq(w.Key, body, nil)).Expect(t, http.StatusAccepted, "")
	pat := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: w.Owner.Token, Body: map[string]any{"name": "ci", "scopes": []string{"project:releases"}}}).
		Expect(t, http.StatusCreated, "").Str(t, "token")

	proxy.Cut()
	// sentry-cli's API: a token that cannot be checked is not a bad token
	// (401 fails the upload for good), but a 503 it retries.
	if r := s.Do(apitest.Request{Method: "GET", Path: "/api/0/organizations/" + w.OrgID + "/chunk-upload/", Token: pat}); r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("/api/0 during the outage = %d (Retry-After %q): %s, want 503 with Retry-After", r.Status, r.Header.Get("Retry-After"), r.Body)
	}
	for _, r := range []apitest.Request{
		ingestReq(w.Key, body, nil),
		{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/tickets", Token: w.Owner.Token},
		{Method: "GET", Path: "/v1/orgs", Token: w.Owner.Token},
		{Method: "POST", Path: "/v1/orgs", Token: w.Owner.Token, Body: map[string]any{"name": "During"}},
		{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "owner@example.com", "password": apitest.Password}},
	} {
		res := s.Do(r).Expect(t, http.StatusServiceUnavailable, "unavailable")
		if res.Header.Get("Retry-After") == "" {
			t.Errorf("%s %s: 503 without Retry-After", r.Method, r.Path)
		}
	}
	ready := s.Do(apitest.Request{Method: "GET", Path: "/readyz"})
	if ready.Status != http.StatusServiceUnavailable {
		t.Errorf("/readyz during the outage = %d, want 503", ready.Status)
	}
	for _, leak := range []string{"postgres", "127.0.0.1", "errata_test", "dial", "connect"} {
		if strings.Contains(strings.ToLower(string(ready.Body)), leak) {
			t.Errorf("/readyz tells %q to anyone: %s", leak, ready.Body)
		}
	}

	proxy.Restore()
	ingestOnceBack(t, s, ingestReq(w.Key, body, nil))
	s.Do(apitest.Request{Method: "GET", Path: "/readyz"}).Expect(t, http.StatusOK, "")
	if err := s.App.Processor.Drain(context.Background()); err != nil {
		t.Fatalf("drain after the outage: %v", err)
	}
	g := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "before the outage")
	if g["event_count"] != float64(2) {
		t.Errorf("event_count = %v, want 2: the batch before the outage and the one after", g["event_count"])
	}
}

// TestSilentDatabaseIsRetryable: the database's connections go silent,
// open but answering nothing (a network partition, a stopped server):
// every request that needs it answers 503 unavailable with Retry-After
// within ERRATA_DB_TIMEOUT, ingestion included, instead of waiting for as
// long as the kernel keeps the connections; and everything works again
// once they carry bytes again.
func TestSilentDatabaseIsRetryable(t *testing.T) {
	const timeout = time.Second
	s, proxy := outageServer(t, func(c *config.Serve) { c.DBTimeout = timeout })
	w := newProcWorld(t, s)
	body := batchOf("api", ev("before the silence", "error"))
	s.Do(ingestReq(w.Key, body, nil)).Expect(t, http.StatusAccepted, "")

	proxy.Freeze()
	for _, r := range []apitest.Request{
		ingestReq(w.Key, body, nil),
		{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/tickets", Token: w.Owner.Token},
		{Method: "POST", Path: "/v1/orgs", Token: w.Owner.Token, Body: map[string]any{"name": "During"}},
	} {
		began := time.Now()
		res := s.Do(r)
		took := time.Since(began)
		res.Expect(t, http.StatusServiceUnavailable, "unavailable")
		if res.Header.Get("Retry-After") == "" {
			t.Errorf("%s %s: 503 without Retry-After", r.Method, r.Path)
		}
		// A connection the pool opens meanwhile waits for PGConnectTimeout.
		if took > store.PGConnectTimeout+3*timeout {
			t.Errorf("%s %s answered after %s with a %s database timeout", r.Method, r.Path, took, timeout)
		}
	}

	proxy.Restore()
	ingestOnceBack(t, s, ingestReq(w.Key, body, nil))
	s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/tickets", Token: w.Owner.Token}).Expect(t, http.StatusOK, "")
}

// ingestOnceBack sends r until it is accepted, within 30 s of the
// database's return: 503 until then, nothing else.
func ingestOnceBack(t *testing.T, s *apitest.Server, r apitest.Request) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res := s.Do(r)
		if res.Status == http.StatusAccepted {
			return
		}
		if res.Status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("ingest after the database came back = %d: %s", res.Status, res.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestStrandedConnectionsDoNotStopProcessing: the connections open at
// one moment go silent for good while new ones work (a hung pooler, a
// backend stopped behind a live kernel). Requests answer 503 within the
// request timeout, and processing, waiting on one of them, gives it up
// within store.WorkTimeouts of it and goes on with new connections: the
// batches accepted meanwhile are processed without a restart.
func TestStrandedConnectionsDoNotStopProcessing(t *testing.T) {
	const timeout = time.Second
	s, proxy := outageServer(t, func(c *config.Serve) { c.DBTimeout = timeout })
	w := newProcWorld(t, s)
	if err := s.App.Processor.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Stopped before the server's cleanup closes the store: a worker that
	// outlived the test would log its failed begin after the test ended.
	t.Cleanup(s.App.Processor.Stop)
	body := batchOf("api", ev("before the strand", "error"))
	s.Do(ingestReq(w.Key, body, nil)).Expect(t, http.StatusAccepted, "")
	count := func() float64 {
		r := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups", Token: w.Owner.Token})
		if r.Status != http.StatusOK {
			return -1
		}
		for _, g := range r.JSON(t)["data"].([]any) {
			return g.(map[string]any)["event_count"].(float64)
		}
		return 0
	}
	waitFor := func(want float64, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for count() != want {
			if time.Now().After(deadline) {
				t.Fatalf("event_count = %v after %s, want %v", count(), within, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor(1, 10*time.Second)

	proxy.Strand()
	ingestOnceBack(t, s, ingestReq(w.Key, body, nil))
	ingestOnceBack(t, s, ingestReq(w.Key, body, nil))
	waitFor(3, store.WorkTimeouts*timeout+20*time.Second)
}

// TestCommitCutOffSaysItMayHaveHappened: a connection lost after its
// COMMIT reached PostgreSQL leaves a change that was made, answered 503:
// the answer is retryable but does not claim "nothing was changed", as it
// does when the database could not be reached at all.
func TestCommitCutOffSaysItMayHaveHappened(t *testing.T) {
	s, proxy := outageServer(t)
	w := newProcWorld(t, s)
	const name = "Cut off at its commit"
	proxy.CutAtCommitAfter(name)
	res := s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Token: w.Owner.Token, Body: map[string]any{"name": name}}).
		Expect(t, http.StatusServiceUnavailable, "unavailable")
	if d := res.Str(t, "detail"); !strings.Contains(d, "may or may not have been made") || res.Header.Get("Retry-After") == "" {
		t.Errorf("503 detail %q (Retry-After %q), want it to say the change may have been made, with Retry-After", d, res.Header.Get("Retry-After"))
	}
	made := false
	for range 50 { // the pool's other connections work
		r := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Token: w.Owner.Token})
		if r.Status == http.StatusOK {
			made = strings.Contains(string(r.Body), name)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !made {
		t.Errorf("the organization whose commit was cut off is not there: the test did not cut a commit that happened")
	}
	proxy.Cut()
	d := s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Token: w.Owner.Token, Body: map[string]any{"name": "Unreachable"}}).
		Expect(t, http.StatusServiceUnavailable, "unavailable").Str(t, "detail")
	if !strings.Contains(d, "nothing was changed") {
		t.Errorf("503 detail with the database unreachable = %q, want it to say nothing was changed", d)
	}
}
