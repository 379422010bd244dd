package sentryapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// v8Line is a Sentry frame (crash's) as a V8 stack trace line.
func v8Line(f map[string]any) string {
	return fmt.Sprintf("    at %s (%s:%d:%d)", f["function"], f["abs_path"], f["lineno"], f["colno"])
}

// ingestTrace sends one error event with a V8 stack trace through
// /v1/ingest and processes it.
func ingestTrace(t *testing.T, s *apitest.Server, key, release, trace string) {
	t.Helper()
	s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: map[string]any{"service": "web", "release": release,
		"events": []any{map[string]any{"level": "error", "message": strings.SplitN(trace, "\n", 2)[0], "stack_trace": trace}}}}).
		Expect(t, http.StatusAccepted, "")
	if err := s.App.Processor.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestSymbolicationChainsAndLateMaps: a frame's caller is never a frame of
// another exception of a chain, and a map uploaded after a first,
// unmapped error is used by the next one at once.
func TestSymbolicationChainsAndLateMaps(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w, tok, key, _ := sendingWorld(t, s)
		out := buildSource(t, t.TempDir(), callsSource)
		frames := crash(t, out) // oldest call first: checkout, total, parseAmount
		parse, checkout := frames[len(frames)-1], frames[0]
		chain := "Error: wrapped\n" + v8Line(parse) + "\nCaused by: TypeError: inner\n" + v8Line(checkout)

		ingestTrace(t, s, key, "4.0.0", chain)
		if trace, _ := latestTrace(t, s, w.ProjectID); strings.Contains(trace, "(app.js:") {
			t.Fatalf("trace mapped before any upload: %q", trace)
		}
		sentryCLI(t, s, tok, "sourcemaps", "upload", "--release", "4.0.0", "--url-prefix", "~/static", out)
		ingestTrace(t, s, key, "4.0.0", chain)
		trace, _ := latestTrace(t, s, w.ProjectID)
		if !strings.Contains(trace, "at parseAmount (app.js:7:") || !strings.Contains(trace, "at checkout (app.js:20:") {
			t.Errorf("chain sent right after its map's upload = %q, want it mapped, parseAmount named by its own declaration, not by the cause's first frame", trace)
		}
	})
}
