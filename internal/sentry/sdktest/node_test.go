package sdktest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
)

// npmCache is where .ci/run installs the npm packages the tests run.
func npmCache() string {
	if dir := os.Getenv("ERRATA_NPM_CACHE"); dir != "" {
		return dir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "errata-npm")
}

// needNode skips the test when node or the SDK is missing, except under
// CI=true, where that is a failure: CI installs both.
func needNode(t *testing.T) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not installed"
	} else if _, err := os.Stat(filepath.Join(npmCache(), "node_modules", "@sentry", "node", "package.json")); err != nil {
		missing = "@sentry/node is not in " + npmCache() + " (scripts/setup installs it with the other npm packages the tests run, its NPM_PACKAGES list)"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(missing)
	}
	t.Skip(missing)
}

// runNode runs node/harness.cjs, the real @sentry/node SDK under node,
// reporting to dsn, and returns what it prints: the large error's stack as
// node prints it.
func runNode(t *testing.T, dsn string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("node", "harness.cjs"))
	cmd.Env = append(os.Environ(), "SENTRY_DSN="+dsn, "ERRATA_NPM_CACHE="+npmCache())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node harness.cjs: %v\n%s", err, stderr.String())
	}
	return out
}

// TestNodeSDKToErrata points the real @sentry/node SDK at a real Errata
// server with the DSN of a key made through the API: the exception, the
// large (gzipped) event and the warning log become error groups with
// tickets, the message and the info log are counted in the INFO summaries.
func TestNodeSDKToErrata(t *testing.T) {
	needNode(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		e := startErrata(t, s)
		runNode(t, e.dsn)
		e.outcome(t).check(t, []wantGroup{
			{title: "cannot load cart", service: "cart", level: "error", severity: "high", stack: true},
			{title: "basket has", service: "cart", level: "error", severity: "high", stack: true},
			{title: "queue is backing up", service: "shop", level: "warn", severity: "medium"},
		}, 2, 0)
	})
}

// TestNodeSDK runs the harness against the capture server and checks what
// internal/sentry makes of what the SDK sends.
func TestNodeSDK(t *testing.T) {
	needNode(t)
	c := startCapture(t)
	out := runNode(t, c.DSN())

	events := c.find("event")
	if len(events) != 3 {
		t.Fatalf("got %d event envelopes, want 3", len(events))
	}
	for _, r := range c.requests() {
		if r.Query == "" || r.Auth != "" {
			t.Errorf("%s?%s: the JavaScript SDK authenticates with sentry_key in the query", r.Path, r.Query)
		}
	}

	exc := one(t, "exception", events[:1])
	store(t, "node_exception", exc)
	if exc.Encoding != "" {
		t.Errorf("exception: Content-Encoding %q, want none for a small event", exc.Encoding)
	}
	ev := exc.Result.Events[0]
	checkFields(t, "exception", ev, ingest.Event{Service: "cart", Environment: "staging", Release: "shop@2.0.1",
		Level: ingest.Error, Message: "Error: cannot load cart 17"})
	st := checkStack(t, "exception", ev, "javascript", []string{"loadCart", "handleRequest"})
	if len(st.Types) != 2 || st.Types[0] != "Error" || st.Types[1] != "TypeError" {
		t.Errorf("exception: types %q, want the error and its cause", st.Types)
	}

	large := one(t, "large event", events[1:2])
	store(t, "node_large", large)
	if large.Encoding != "gzip" {
		t.Errorf("large event: Content-Encoding %q, want gzip", large.Encoding)
	}
	checkFields(t, "large event", large.Result.Events[0], ingest.Event{Service: "cart", Environment: "staging",
		Release: "shop@2.0.1", Level: ingest.Error, Message: "RangeError: basket has 1200 items, more than 1000"})
	checkStack(t, "large event", large.Result.Events[0], "javascript", []string{"main"})

	msg := one(t, "message", events[2:3])
	store(t, "node_message", msg)
	checkFields(t, "message", msg.Result.Events[0], ingest.Event{Service: "cart", Environment: "staging",
		Release: "shop@2.0.1", Level: ingest.Info, Message: "cache miss for user 7"})
	checkStack(t, "message", msg.Result.Events[0], "javascript", []string{"main"})

	// The same error as node prints it (err.stack, what loggers write)
	// groups with it.
	var printed struct{ Stack string }
	if err := json.Unmarshal(out, &printed); err != nil || printed.Stack == "" {
		t.Fatalf("harness output %q: %v", out, err)
	}
	lev := large.Result.Events[0]
	fromSentry := grouping.Fingerprint(grouping.Input{Message: lev.Message, StackTrace: lev.StackTrace})
	fromText := grouping.Fingerprint(grouping.Input{Message: lev.Message, StackTrace: printed.Stack})
	if fromSentry.Fingerprint != fromText.Fingerprint {
		t.Errorf("large event: fingerprint of the Sentry event %q differs from node's err.stack %q\n%s\n---\n%s",
			fromSentry.Parts, fromText.Parts, lev.StackTrace, printed.Stack)
	}

	checkLogs(t, c, "node_logs", "shop@2.0.1", "u-7")
}
