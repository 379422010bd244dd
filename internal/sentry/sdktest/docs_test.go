package sdktest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	errstore "github.com/errata-dev/errata/internal/store"
)

// docDSN is the DSN docs/sentry.md's snippets show.
const docDSN = "https://svc_live_…@errata.example.com/7"

// docSnippet returns the code block of docs/sentry.md that follows the
// first line starting with intro, with the DSN replaced by dsn.
func docSnippet(t *testing.T, intro, dsn string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "sentry.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "\n"+intro)
	if !ok {
		t.Fatalf("docs/sentry.md has no line starting %q", intro)
	}
	_, block, ok := strings.Cut(after, "```")
	if !ok {
		t.Fatalf("docs/sentry.md: no code block after %q", intro)
	}
	block, _, ok = strings.Cut(block, "```")
	if !ok || strings.Count(block, docDSN) != 1 {
		t.Fatalf("docs/sentry.md: the block after %q does not hold the DSN %s once:\n%s", intro, docDSN, block)
	}
	_, code, _ := strings.Cut(block, "\n") // after the language name
	return strings.Replace(code, docDSN, dsn, 1)
}

// checkDocGroup finds the group the documented snippet made: the snippet's
// service, environment and release.
func checkDocGroup(t *testing.T, e *errata, title string) {
	t.Helper()
	for _, g := range e.outcome(t).groups {
		if !strings.Contains(g["title"].(string), title) {
			continue
		}
		if g["service"] != "checkout" || g["environments"].([]any)[0] != "production" || g["releases"].([]any)[0] != "shop@1.4.2" {
			t.Errorf("group %v: want service checkout, environment production, release shop@1.4.2", g)
		}
		return
	}
	t.Errorf("no group %q from the documented snippet", title)
}

// TestDocsJavaScriptSnippet runs docs/sentry.md's JavaScript set-up, as
// written, under node with the real @sentry/node against a real server.
func TestDocsJavaScriptSnippet(t *testing.T) {
	needNode(t)
	s := apitest.Start(t, errstore.SQLite)
	e := startErrata(t, s)
	code := docSnippet(t, "JavaScript (", e.dsn)
	const imp = `import * as Sentry from "@sentry/node";`
	if !strings.Contains(code, imp) {
		t.Fatalf("the JavaScript snippet does not start with %s:\n%s", imp, code)
	}
	// node runs it as CommonJS, with the SDK from the npm cache.
	code = strings.Replace(code, imp, `const Sentry = require(require.resolve("@sentry/node", { paths: [process.env.ERRATA_NPM_CACHE] }));`, 1) +
		"\nSentry.captureException(new Error(\"reported by the documented snippet\"));\n" +
		"Sentry.flush(10000).then((ok) => process.exit(ok ? 0 : 1));\n"
	file := filepath.Join(t.TempDir(), "snippet.cjs")
	if err := os.WriteFile(file, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", file)
	cmd.Env = append(os.Environ(), "ERRATA_NPM_CACHE="+npmCache())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node %s: %v\n%s\n%s", file, err, out, code)
	}
	checkDocGroup(t, e, "reported by the documented snippet")
}

// TestDocsGoSnippet builds docs/sentry.md's Go set-up, as written, into a
// program that reports one error with the real sentry-go, and runs it
// against a real server.
func TestDocsGoSnippet(t *testing.T) {
	s := apitest.Start(t, errstore.SQLite)
	e := startErrata(t, s)
	code := docSnippet(t, "Go:", e.dsn)
	// A directory of this module, so that the program builds with its
	// go.mod; the leading _ keeps it out of ./... patterns.
	dir, err := os.MkdirTemp(".", "_docsnippet")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	prog := "package main\n\nimport (\n\t\"errors\"\n\t\"log\"\n\t\"time\"\n\n\t\"github.com/getsentry/sentry-go\"\n)\n\nfunc main() {\n" +
		code + "\tsentry.CaptureException(errors.New(\"reported by the documented Go snippet\"))\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "run", "./"+filepath.Base(dir)).CombinedOutput(); err != nil {
		t.Fatalf("go run: %v\n%s\n%s", err, out, prog)
	}
	checkDocGroup(t, e, "reported by the documented Go snippet")
}
