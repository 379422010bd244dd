package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestSetPlanWhileServing changes an organization's plan from the command
// line while a server runs on the same database; the server's next answer
// shows the new plan and its limits.
func TestSetPlanWhileServing(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := []string{"ERRATA_DATABASE_URL=" + storetest.URL(t, d)}
			s := startServe(t, dir, env...)
			owner := s.must(http.StatusOK, "POST", "/v1/auth/sign-up/email", "", map[string]any{"email": "owner@example.com", "password": "long enough", "name": "Owner"})
			token, _ := owner["token"].(string)
			created := s.must(http.StatusCreated, "POST", "/v1/orgs", token, map[string]any{"name": "Acme"})
			orgID, _ := created["id"].(string)
			checkPlan(t, created, "team", 25)

			for _, step := range []struct {
				plan     string
				channels float64
			}{{"free", 3}, {"team", 25}} {
				res := errata(t, dir, env, "org", "set-plan", orgID, step.plan)
				if res.code != 0 || !strings.Contains(res.stdout, orgID) || !strings.Contains(res.stdout, step.plan) {
					t.Fatalf("set-plan %s: code %d, stdout %q, stderr %q", step.plan, res.code, res.stdout, res.stderr)
				}
				checkPlan(t, s.must(http.StatusOK, "GET", "/v1/orgs/"+orgID, token, nil), step.plan, step.channels)
			}

			bad := errata(t, dir, env, "org", "set-plan", orgID, "gold")
			if l := lines(bad.stderr); bad.code != 2 || len(l) != 1 || !strings.Contains(l[0], "gold") {
				t.Fatalf("bad plan: code %d, stderr %q; want 2 and one line", bad.code, bad.stderr)
			}
			unknown := errata(t, dir, env, "org", "set-plan", "org_01aaaaaaaaaaaaaaaaaaaaaaaa", "free")
			if l := lines(unknown.stderr); unknown.code == 0 || len(l) != 1 || !strings.Contains(l[0], "org_01aaaaaaaaaaaaaaaaaaaaaaaa") || !strings.Contains(l[0], "not found") {
				t.Fatalf("unknown org: code %d, stderr %q; want non-zero and one line naming the organization", unknown.code, unknown.stderr)
			}
			checkPlan(t, s.must(http.StatusOK, "GET", "/v1/orgs/"+orgID, token, nil), "team", 25)

			// The operator's way back in when the owners are locked out.
			setup := s.must(http.StatusCreated, "POST", "/v1/auth/totp", token, nil)
			code, err := totp.GenerateCode(setup["secret"].(string), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			s.must(http.StatusOK, "POST", "/v1/auth/totp/confirm", token, map[string]any{"code": code})
			if o := s.must(http.StatusOK, "PATCH", "/v1/orgs/"+orgID, token, map[string]any{"require_2fa": true}); o["require_2fa"] != true {
				t.Fatalf("organization = %v, want require_2fa", o)
			}
			lift := errata(t, dir, env, "org", "lift-sign-in-rules", orgID)
			if lift.code != 0 || !strings.Contains(lift.stdout, orgID) {
				t.Fatalf("lift-sign-in-rules: code %d, stdout %q, stderr %q", lift.code, lift.stdout, lift.stderr)
			}
			if o := s.must(http.StatusOK, "GET", "/v1/orgs/"+orgID, token, nil); o["require_2fa"] != false || o["sso_required"] != false {
				t.Fatalf("organization after lifting = %v", o)
			}
			if code := s.stop(); code != 0 {
				t.Fatalf("serve exit code %d, want 0; log:\n%s", code, s.log)
			}
		})
	}
}

func checkPlan(t *testing.T, o map[string]any, plan string, channels float64) {
	t.Helper()
	limits, _ := o["limits"].(map[string]any)
	if o["plan"] != plan || limits["channels_per_project"] != channels {
		t.Fatalf("organization = %v, want plan %s with channels_per_project %v", o, plan, channels)
	}
}

// TestServeAndShutdown starts `errata serve` (on SQLite in an empty working
// directory with no settings at all but the address, and on PostgreSQL), and
// stops it with SIGTERM while a sign-up is in flight: the sign-up completes,
// the server logs "shutting down" then "stopped", and exits 0.
func TestServeAndShutdown(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var env []string
			if d == store.Postgres {
				env = []string{"ERRATA_DATABASE_URL=" + storetest.URL(t, d)}
			}
			s := startServeOf(t, raceBinary(t), dir, env...) // races in serve and its shutdown fail it
			if d == store.SQLite {
				if _, err := os.Stat(filepath.Join(dir, "data", "errata.db")); err != nil {
					t.Fatalf("serve in an empty directory did not create ./data/errata.db: %v", err)
				}
			}
			s.must(http.StatusOK, "GET", "/v1/openapi.json", "", nil)

			// A sign-up whose handler is already reading its body when SIGTERM
			// arrives. "Expect: 100-continue" makes the server say when the
			// handler starts reading, so "in flight" is known, not guessed.
			body, _ := json.Marshal(map[string]any{"email": "first@example.com", "password": "long enough", "name": "First"})
			conn, err := net.Dial("tcp", s.Addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(wait))
			fmt.Fprintf(conn, "POST /v1/auth/sign-up/email HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", s.Addr, len(body))
			br := bufio.NewReader(conn)
			if l, err := readLine(br); err != nil || !strings.HasPrefix(l, "HTTP/1.1 100 ") {
				t.Fatalf("want 100 Continue, got %q, %v", l, err)
			}
			if l, err := readLine(br); err != nil || l != "" {
				t.Fatalf("want the end of the 100 Continue, got %q, %v", l, err)
			}

			if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			s.log.waitFor(t, s.exited, "shutting down")
			if _, err := conn.Write(body); err != nil {
				t.Fatalf("send the rest of the in-flight request: %v", err)
			}
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("in-flight request got no answer: %v; log:\n%s", err, s.log)
			}
			var signed map[string]any
			err = json.NewDecoder(res.Body).Decode(&signed)
			_ = res.Body.Close()
			if res.StatusCode != http.StatusOK || err != nil || signed["token"] == nil {
				t.Fatalf("in-flight sign-up = %d %v (%v), want 200 with a token", res.StatusCode, signed, err)
			}

			if code := s.waitExit(); code != 0 {
				t.Fatalf("exit code %d after SIGTERM, want 0; log:\n%s", code, s.log)
			}
			down, stopped := s.log.find("shutting down"), s.log.find("stopped")
			if down < 0 || stopped < down {
				t.Fatalf("want \"shutting down\" then \"stopped\" in the log:\n%s", s.log)
			}
			for i, r := range s.log.records {
				// A slow write's warning measures the machine (a busy one
				// makes any transaction slow), not the shutdown.
				slowWrite := strings.HasPrefix(fmt.Sprint(r["msg"]), "a write held the database writer")
				if r["level"] == "ERROR" || (i > down && r["level"] == "WARN" && !slowWrite) {
					t.Errorf("logged %v", r)
				}
			}
		})
	}
}

// TestServeRefusesBusyAddress: a port already taken is a start-up failure
// with one clear line, not a hang.
func TestServeRefusesBusyAddress(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	res := errata(t, dir, []string{"ERRATA_ADDR=" + ln.Addr().String(), "ERRATA_GRPC_ADDR=off", "ERRATA_DATA_DIR=" + dir + "/data"}, "serve")
	var last string
	if l := lines(res.stderr); len(l) > 0 {
		last = l[len(l)-1]
	}
	if res.code == 0 || !strings.Contains(last, ln.Addr().String()) {
		t.Fatalf("code %d, stderr %q; want non-zero ending with a line naming the address", res.code, res.stderr)
	}
}
