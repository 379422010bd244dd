package loadgen_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	storetest.Cleanup()
	os.Exit(code)
}

// The attacks run against the whole app (app.Run: its listeners, read
// timeout and connection cap) in this process, so the server's memory is
// this process's: --server-pid is os.Getpid(). Each test is short and
// asserts what the server did, never how fast.

// attackServer runs Errata with OTLP/gRPC and the read timeout given
// (short for the attacks that wait for it, the default 60 s for the others,
// so that a slow machine never turns an answer into a timeout), and returns
// it with a project API key.
func attackServer(t *testing.T, readTimeout time.Duration) (*apitest.Server, string) {
	t.Helper()
	s := apitest.Run(t, store.SQLite, apitest.WithGRPC, func(c *config.Serve) { c.ReadTimeout = readTimeout })
	owner := s.SignUp(t, "owner@example.com")
	org := s.CreateOrg(t, owner.Token, "Acme")
	_, key := s.CreateKey(t, owner.Token, s.CreateProject(t, owner.Token, org, "web"))
	return s, key
}

func attack(t *testing.T, c loadgen.AttackConfig) *loadgen.AttackReport {
	t.Helper()
	rep, err := loadgen.RunAttack(context.Background(), c)
	if err != nil {
		t.Fatalf("RunAttack(%s): %v", c.Attack, err)
	}
	var text, js bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", text.String())
	var back loadgen.AttackReport
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Attack != c.Attack {
		t.Fatalf("--json output does not read back (%v): %s", err, js.String())
	}
	if rep.Memory.Samples == 0 || rep.Memory.Peak <= 0 {
		t.Errorf("memory: %+v, want samples and a peak", rep.Memory)
	}
	if rep.Health.OK == 0 {
		t.Errorf("healthz probes: %+v, want some answered", rep.Health)
	}
	return rep
}

// checkClosed fails unless the server closed every connection of every
// kind, having answered one of want (an HTTP status, HTTP/2 frames, or
// none) before closing.
func checkClosed(t *testing.T, rep *loadgen.AttackReport, want map[string][]string) {
	t.Helper()
	if len(rep.Conns) != len(want) {
		t.Fatalf("connection kinds %+v, want %d", rep.Conns, len(want))
	}
	for _, k := range rep.Conns {
		if k.Opened == 0 || k.Failed != 0 || k.ClosedByServer != k.Opened || k.OpenAtEnd != 0 {
			t.Errorf("%s: %+v, want every connection opened and then closed by the server", k.Kind, k)
		}
		for answer := range k.Answers {
			if !slices.ContainsFunc(want[k.Kind], func(w string) bool { return strings.Contains(answer, w) }) {
				t.Errorf("%s: the server answered %q, want one of %q", k.Kind, answer, want[k.Kind])
			}
		}
	}
	peak := 0
	for _, h := range rep.Held {
		peak = max(peak, h.Held)
	}
	if peak == 0 || peak > rep.Connections {
		t.Errorf("held over time %+v, want up to %d connections", rep.Held, rep.Connections)
	}
}

func TestSlowBodyConnectionsAreClosed(t *testing.T) {
	s, key := attackServer(t, time.Second)
	rep := attack(t, loadgen.AttackConfig{Attack: loadgen.AttackSlowBody, URL: s.URL, Key: key,
		Connections: 20, Duration: time.Minute, ServerPID: os.Getpid()})
	// A body that stops arriving gets no answer: the connection is closed
	// (CONTRACT 7), on the ingest route and on huma's sign-in alike.
	checkClosed(t, rep, map[string][]string{"ingest-chunked": {"none"}, "sign-in-short": {"none"}})
	if rep.ElapsedSeconds >= time.Minute.Seconds() {
		t.Errorf("the attack ran its whole %s: it should end once the server has closed everything", time.Minute)
	}
	if rep.Ingest == nil {
		t.Error("no ingest probe although a key was given")
	}
}

func TestGRPCPrefaceConnectionsAreClosed(t *testing.T) {
	s, _ := attackServer(t, time.Second)
	rep := attack(t, loadgen.AttackConfig{Attack: loadgen.AttackGRPCPreface, URL: s.URL, GRPCAddr: s.GRPCAddr,
		Connections: 10, Duration: time.Minute, ServerPID: os.Getpid()})
	checkClosed(t, rep, map[string][]string{"preface-only": {"", "WINDOW_UPDATE", "GOAWAY"}, "handshake-then-nothing": {"GOAWAY"}})
}

// answers is a bomb's answer counts by answer.
func answers(rep *loadgen.AttackReport) map[string]int64 {
	out := map[string]int64{}
	if rep.Requests != nil {
		for _, a := range rep.Requests.Answers {
			out[a.Answer] = a.Count
		}
	}
	return out
}

// checkAnswers fails unless every answer is one of allowed and need is
// among them.
func checkAnswers(t *testing.T, rep *loadgen.AttackReport, need string, allowed ...string) {
	t.Helper()
	got := answers(rep)
	if got[need] == 0 {
		t.Errorf("answers %v, want some %q", got, need)
	}
	for a := range got {
		if a != need && !slices.Contains(allowed, a) {
			t.Errorf("answers %v: %q is none of %q", got, a, append(allowed, need))
		}
	}
}

func TestGRPCBomb(t *testing.T) {
	s, key := attackServer(t, time.Minute)
	base := loadgen.AttackConfig{Attack: loadgen.AttackGRPCBomb, URL: s.URL, GRPCAddr: s.GRPCAddr,
		Concurrency: 4, Duration: time.Second, BombBytes: 1 << 20, ServerPID: os.Getpid()}
	rep := attack(t, base)
	if rep.Key != "bogus" {
		t.Errorf("key = %q, want bogus", rep.Key)
	}
	checkAnswers(t, rep, "Unauthenticated")
	if q := rep.Requests; q.InflatedBytes < 1<<20-64 || q.BodyBytes >= q.InflatedBytes/100 {
		t.Errorf("the bomb is %d bytes inflating to %d, want a few KiB inflating to 1 MiB", q.BodyBytes, q.InflatedBytes)
	}

	// With the project's key the messages are read and decoded; the one
	// record of 1 MiB is rejected (its body is over the limit).
	valid := base
	valid.Key = key
	rep = attack(t, valid)
	checkAnswers(t, rep, "OK, rejected", "Unavailable", "ResourceExhausted")
}

// TestGRPCIdle: calls that never send their message hold nothing; the
// server ends them at its read timeout, and the watch's gRPC exports with
// the key are answered meanwhile.
func TestGRPCIdle(t *testing.T) {
	s, key := attackServer(t, time.Second)
	rep := attack(t, loadgen.AttackConfig{Attack: loadgen.AttackGRPCIdle, URL: s.URL, GRPCAddr: s.GRPCAddr, Key: key,
		Concurrency: 4, Duration: 3 * time.Second, ServerPID: os.Getpid()})
	checkAnswers(t, rep, "DeadlineExceeded")
	checkGRPCProbes(t, rep)
}

// TestGRPCStall: calls that send a compressed message's prefix and stall
// fill the organization's half of the budget (three of 40 MiB); the server
// ends them UNAVAILABLE once another call waits for their room, and the
// watch's gRPC exports with the key are answered.
func TestGRPCStall(t *testing.T) {
	s, key := attackServer(t, time.Minute)
	rep := attack(t, loadgen.AttackConfig{Attack: loadgen.AttackGRPCStall, URL: s.URL, GRPCAddr: s.GRPCAddr, Key: key,
		Concurrency: 4, Duration: 3 * time.Second, ServerPID: os.Getpid()})
	checkAnswers(t, rep, "Unavailable")
	checkGRPCProbes(t, rep)
}

func checkGRPCProbes(t *testing.T, rep *loadgen.AttackReport) {
	t.Helper()
	if rep.GRPC == nil || rep.GRPC.Sent == 0 {
		t.Fatalf("grpc_probe = %+v, want the gRPC exports the watch made", rep.GRPC)
	}
	if rep.GRPC.OK != rep.GRPC.Sent {
		t.Errorf("grpc_probe %+v: want every export answered beside the attack", rep.GRPC)
	}
}

func TestGzipBomb(t *testing.T) {
	s, key := attackServer(t, time.Minute)
	for _, tc := range []struct {
		name     string
		path     string
		hideSize bool
		pid      int
	}{
		{"ingest", "/v1/ingest", false, os.Getpid()},
		{"ingest, size hidden", "/v1/ingest", true, os.Getpid()},
		{"logs, memory from /metrics", "/v1/logs", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := attack(t, loadgen.AttackConfig{Attack: loadgen.AttackGzipBomb, URL: s.URL, Key: key, Path: tc.path,
				HideSize: tc.hideSize, Concurrency: 2, Duration: time.Second, ServerPID: tc.pid})
			checkAnswers(t, rep, "413", "503", "429")
			if want := map[bool]string{true: "proc", false: "metrics"}[tc.pid > 0]; rep.Memory.Source != want {
				t.Errorf("memory source %q, want %q", rep.Memory.Source, want)
			}
		})
	}
}

// TestAttackSettings: attacks go to loopback only, and a bomb that needs
// a key says so.
func TestAttackSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    loadgen.AttackConfig
		want string
	}{
		{"unknown attack", loadgen.AttackConfig{Attack: "nuke"}, "--attack"},
		{"URL off loopback", loadgen.AttackConfig{Attack: loadgen.AttackSlowBody, URL: "http://192.0.2.1:8080"}, "loopback"},
		{"gRPC off loopback", loadgen.AttackConfig{Attack: loadgen.AttackGRPCBomb, GRPCAddr: "192.0.2.1:4317"}, "loopback"},
		{"gzip bomb without key", loadgen.AttackConfig{Attack: loadgen.AttackGzipBomb}, "--key"},
		{"idle calls without key", loadgen.AttackConfig{Attack: loadgen.AttackGRPCIdle}, "--key"},
		{"stalled calls without key", loadgen.AttackConfig{Attack: loadgen.AttackGRPCStall}, "--key"},
		{"bad path", loadgen.AttackConfig{Attack: loadgen.AttackGzipBomb, Key: "k", Path: "/v1/other"}, "--path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error naming %q", err, tc.want)
			}
		})
	}
	c := loadgen.AttackConfig{Attack: loadgen.AttackSlowBody, URL: "http://localhost:8080"}
	if err := c.Validate(); err != nil {
		t.Fatalf("localhost refused: %v", err)
	}
}
