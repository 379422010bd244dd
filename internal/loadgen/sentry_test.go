package loadgen_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/sentry"
	"github.com/errata-dev/errata/internal/store"
)

// TestEncodeEnvelope checks the sentry target's envelopes with Errata's own
// reader: one event each, its service from the tag, its stack in the
// template's language, level names as Sentry spells them.
func TestEncodeEnvelope(t *testing.T) {
	t.Parallel()
	o := loadgen.DefaultOptions()
	o.BatchSize, o.ErrorRatio, o.StackRatio = 1, 0.5, 0.6
	g, err := loadgen.NewGenerator(o)
	if err != nil {
		t.Fatal(err)
	}
	langs := map[string]bool{}
	for i := range 200 {
		b := g.Batch(i)
		body, size := g.EncodeEnvelope(nil, &b)
		env, err := sentry.ParseEnvelope(body)
		if err != nil {
			t.Fatalf("batch %d: %v\n%s", i, err, body)
		}
		res := sentry.Map(env, sentry.Options{Service: "project", ReceivedAt: time.Now()})
		if len(res.Events) != 1 || len(res.Malformed) > 0 || size <= 0 || size >= len(body) {
			t.Fatalf("batch %d: %d events, malformed %+v, size %d of %d", i, len(res.Events), res.Malformed, size, len(body))
		}
		ev, want := res.Events[0], b.Events[0]
		if ev.Service != b.Service || ev.Level.String() != want.Level || ev.Environment != b.Environment || ev.Release != b.Release {
			t.Fatalf("batch %d: %s %s %s %s, want %s %s %s %s", i, ev.Service, ev.Level, ev.Environment, ev.Release, b.Service, want.Level, b.Environment, b.Release)
		}
		if res.EventID == "" || !strings.HasSuffix(ev.Message, want.Message) {
			t.Fatalf("batch %d: id %q, message %q, want it to end with %q", i, res.EventID, ev.Message, want.Message)
		}
		if want.StackTrace != "" {
			st := grouping.ParseStack(ev.StackTrace)
			if len(st.Frames) == 0 {
				t.Fatalf("batch %d: the stack does not parse:\n%s", i, ev.StackTrace)
			}
			langs[st.Language] = true
		}
	}
	if len(langs) < 4 {
		t.Errorf("stacks parsed as %v, want the four languages of the generator", langs)
	}
}

// TestSentryTarget runs the sentry target against a real Errata server with
// the DSN of a key made through the API, with the key in each place: every
// envelope is answered 200 and counted once.
func TestSentryTarget(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, store.SQLite)
	owner := s.SignUp(t, "owner@example.com")
	prj := s.CreateProject(t, owner.Token, s.CreateOrg(t, owner.Token, "Acme"), "shop")
	_, _, dsn := s.CreateKeyDSN(t, owner.Token, prj)
	o := loadgen.DefaultOptions()
	o.BatchSize = 1
	g, err := loadgen.NewGenerator(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range []string{loadgen.SentryAuthHeader, loadgen.SentryAuthQuery} {
		rep, err := loadgen.Run(context.Background(), loadgen.Config{Target: loadgen.TargetSentry, DSN: dsn, SentryAuth: auth,
			Concurrency: 4, Batches: 60, Distinct: 20}, g)
		if err != nil {
			t.Fatalf("%s: %v", auth, err)
		}
		if rep.BatchesAccepted != 60 || rep.EventsAccepted != 60 || rep.Dropped > 0 || rep.Retries > 0 {
			t.Fatalf("%s: %d envelopes and %d events accepted, dropped %d, retried %d; want 60 and 60", auth, rep.BatchesAccepted, rep.EventsAccepted, rep.Dropped, rep.Retries)
		}
	}
	m := s.Do(apitest.Request{Method: "GET", Path: "/metrics"})
	if !strings.Contains(string(m.Body), "\n"+`errata_ingest_accepted_events_total{route="sentry"} 120`+"\n") {
		t.Error("the server did not count 120 events accepted from the Sentry route")
	}
}

// TestSentryTargetConfig checks that the sentry target takes everything
// from the DSN, base path included, and refuses what it cannot use.
func TestSentryTargetConfig(t *testing.T) {
	t.Parallel()
	c := loadgen.Config{Target: loadgen.TargetSentry, DSN: "https://svc_live_k@errata.example.com/base/42", Concurrency: 1, Batches: 1}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.URL != "https://errata.example.com/base" || c.Key != "svc_live_k" || c.SentryAuth != loadgen.SentryAuthHeader {
		t.Errorf("from the DSN: URL %q, key %q, auth %q", c.URL, c.Key, c.SentryAuth)
	}
	for _, bad := range []loadgen.Config{
		{Target: loadgen.TargetSentry, Concurrency: 1, Batches: 1},
		{Target: loadgen.TargetSentry, DSN: "https://errata.example.com/42", Concurrency: 1, Batches: 1},
		{Target: loadgen.TargetSentry, DSN: "https://k@errata.example.com/42", SentryAuth: "cookie", Concurrency: 1, Batches: 1},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
