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

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
)

// npmCache is where node/install.sh puts the SDK.
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
		missing = "@sentry/node is not in " + npmCache() + " (run internal/sentry/sdktest/node/install.sh)"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(missing)
	}
	t.Skip(missing)
}

// TestNodeSDK runs node/harness.cjs, the real @sentry/node SDK under node,
// against the capture server.
func TestNodeSDK(t *testing.T) {
	needNode(t)
	c := startCapture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("node", "harness.cjs"))
	cmd.Env = append(os.Environ(), "SENTRY_DSN="+c.DSN(), "ERRATA_NPM_CACHE="+npmCache())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node harness.cjs: %v\n%s", err, stderr.String())
	}

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
