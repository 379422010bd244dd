package loadgen_test

import (
	"os"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/sentry"
	"github.com/errata-dev/errata/internal/store"
)

// tenantNumber is the project number of a DSN.
func tenantNumber(t *testing.T, dsn string) int64 {
	t.Helper()
	d, err := sentry.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return d.Number
}

// checkProbes fails unless every probe of another tenant's ingestion
// (REST, OTLP, Sentry) succeeded, and some were made.
func checkProbes(t *testing.T, rep *loadgen.AttackReport) {
	t.Helper()
	for name, p := range map[string]*loadgen.Probes{"ingest": rep.Ingest, "otlp": rep.OTLP, "sentry": rep.Sentry} {
		if p == nil || p.Sent == 0 || p.OK != p.Sent {
			t.Errorf("%s probes during the attack: %+v, want every one answered with success", name, p)
		}
	}
}

// TestKeylessStall: keyless envelopes that announce 20 MiB and send nothing,
// dialed again as the read timeout closes them, and another tenant's
// ingestion keeps answering meanwhile (issue 21).
func TestKeylessStall(t *testing.T) {
	s := apitest.Run(t, store.SQLite, func(c *config.Serve) { c.ReadTimeout = time.Second })
	owner := s.SignUp(t, "tenant@example.com")
	org := s.CreateOrg(t, owner.Token, "Tenant")
	_, key, dsn := s.CreateKeyDSN(t, owner.Token, s.CreateProject(t, owner.Token, org, "api"))
	rep := attack(t, loadgen.AttackConfig{Attack: loadgen.AttackKeylessStall, URL: s.URL, Key: key, Number: tenantNumber(t, dsn),
		Connections: 40, Duration: 4 * time.Second, ServerPID: os.Getpid()})
	if len(rep.Conns) != 1 {
		t.Fatalf("connection kinds %+v, want keyless-envelope", rep.Conns)
	}
	k := rep.Conns[0]
	if k.Opened != 40 || k.Failed != 0 || k.Reopened == 0 {
		t.Errorf("%+v: want 40 connections opened, and reopened as the read timeout closed them", k)
	}
	for answer := range k.Answers {
		if answer != "400" && answer != "429" && answer != "none" {
			t.Errorf("the server answered a stalled keyless envelope %s, want 400 (the body timed out) or 429", answer)
		}
	}
	checkProbes(t, rep)
}

// TestNestedEncoding: a body compressed three times over is 400 before it
// is read, keyless or with a key; past the limits (a keyless request's
// address, a keyed one's project) it is 429 first.
func TestNestedEncoding(t *testing.T) {
	s, key := attackServer(t, time.Minute)
	rep := attack(t, loadgen.AttackConfig{Attack: loadgen.AttackNestedEncoding, URL: s.URL, Concurrency: 2, Duration: time.Second,
		BombBytes: 10 << 20, ServerPID: os.Getpid()})
	checkAnswers(t, rep, "400", "429") // the address's limit
	if q := rep.Requests; q.BodyBytes > 4<<10 {
		t.Errorf("the nested bomb is %d bytes, want a few hundred", q.BodyBytes)
	}
	rep = attack(t, loadgen.AttackConfig{Attack: loadgen.AttackNestedEncoding, URL: s.URL, Key: key, Path: "/v1/ingest", Concurrency: 2,
		Duration: time.Second, BombBytes: 10 << 20, ServerPID: os.Getpid()})
	checkAnswers(t, rep, "400", "429") // the project's rate limit
}

// TestKeylessBomb: a keyless gzip envelope whose first line inflates to
// 10 MiB is refused (403: no key can be read from it) after at most 64 KiB
// of it.
func TestKeylessBomb(t *testing.T) {
	s, _ := attackServer(t, time.Minute)
	rep := attack(t, loadgen.AttackConfig{Attack: loadgen.AttackKeylessBomb, URL: s.URL, Concurrency: 2, Duration: time.Second,
		BombBytes: 10 << 20, ServerPID: os.Getpid()})
	checkAnswers(t, rep, "403", "429")
}
