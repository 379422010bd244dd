package httpapi_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/testtool"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// The tools the served document is checked with, at the versions .ci/run
// installs into $ERRATA_NPM_CACHE (default ~/.cache/errata-npm):
//
//	npm install --prefix "$ERRATA_NPM_CACHE" --save-exact @redocly/cli@2.77.0 openapi-typescript@7.13.0 typescript@5.9.3
//
// oapi-codegen is pinned by testdata/oapi-codegen/go.mod.
var npmTools = map[string]string{"@redocly/cli": "2.77.0", "openapi-typescript": "7.13.0", "typescript": "5.9.3"}

// npmBin returns the path of an executable of an npm package in the cache,
// at its pinned version. Without node or the package the test fails under
// CI=true and is skipped elsewhere.
func npmBin(t *testing.T, pkg, bin string) string {
	t.Helper()
	testtool.NPMPackage(t, pkg, npmTools[pkg])
	return filepath.Join(testtool.NPMCache(), "node_modules", ".bin", bin)
}

// servedDocument starts a real server and writes its /v1/openapi.json to a
// file of dir.
func servedDocument(t *testing.T, dir string) (*apitest.Server, string) {
	t.Helper()
	s := apitest.Start(t, store.SQLite)
	res := s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Expect(t, 200, "")
	path := filepath.Join(dir, "openapi.json")
	if err := os.WriteFile(path, res.Body, 0o600); err != nil {
		t.Fatal(err)
	}
	return s, path
}

// run runs a command in dir and returns its standard output; it fails the
// test, with both outputs, when the command fails and mayFail is false.
func run(t *testing.T, dir string, env []string, mayFail bool, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && !mayFail {
		t.Fatalf("%s %s: %v\n%s\n%s", filepath.Base(name), strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}

// TestOpenAPILint lints the served document with Redocly's recommended
// rules (CONTRACT 7: no error); warnings fail too, so the document stays
// clean. A copy without the security of sign-in must be caught, so that a
// lint that checks nothing cannot pass.
func TestOpenAPILint(t *testing.T) {
	t.Parallel()
	redocly := npmBin(t, "@redocly/cli", "redocly")
	dir := t.TempDir()
	_, doc := servedDocument(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "redocly.yaml"), []byte("extends:\n  - recommended\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var tampered map[string]any
	raw, _ := os.ReadFile(doc)
	if err := json.Unmarshal(raw, &tampered); err != nil {
		t.Fatal(err)
	}
	delete(tampered["paths"].(map[string]any)["/v1/auth/sign-in/email"].(map[string]any)["post"].(map[string]any), "security")
	raw, _ = json.Marshal(tampered)
	if err := os.WriteFile(filepath.Join(dir, "tampered.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}

	quiet := []string{"REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1"}
	lint := func(file string) (report struct {
		Totals   struct{ Errors, Warnings int }
		Version  string
		Problems []struct {
			RuleID, Severity, Message string
			Location                  []struct{ Pointer string }
		}
	}) {
		t.Helper()
		out := run(t, dir, quiet, true, redocly, "lint", "--config", "redocly.yaml", "--format=json", file)
		if err := json.Unmarshal(out, &report); err != nil {
			t.Fatalf("redocly lint %s did not report JSON: %v\n%s", file, err, out)
		}
		if report.Version != npmTools["@redocly/cli"] {
			t.Fatalf("redocly reports version %q, want %s", report.Version, npmTools["@redocly/cli"])
		}
		return report
	}
	got := lint("openapi.json")
	for _, p := range got.Problems {
		where := ""
		if len(p.Location) > 0 {
			where = p.Location[0].Pointer
		}
		t.Errorf("%s %s at %s: %s", p.Severity, p.RuleID, where, p.Message)
	}
	if got.Totals.Errors+got.Totals.Warnings != len(got.Problems) {
		t.Errorf("totals %+v do not add up to %d problems", got.Totals, len(got.Problems))
	}
	if bad := lint("tampered.json"); bad.Totals.Errors == 0 {
		t.Errorf("the lint accepts an operation without security: %+v", bad.Totals)
	}
}

// tsUsage compiles against the types openapi-typescript generates. The
// @ts-expect-error lines must be errors: they are what the schemas forbid.
const tsUsage = `import type { components, paths, webhooks } from "./api";

type Schemas = components["schemas"];
export const batch: Schemas["IngestRequest"] = { service: "web", events: [{ message: "boom", level: "warning" }] };
// @ts-expect-error events is an array, never null
export const nullEvents: Schemas["IngestRequest"] = { events: null };
// @ts-expect-error level is one of the names the server accepts
export const badLevel: Schemas["IngestEvent"] = { message: "boom", level: "verbose" };
export const ticket: Schemas["TicketBody"]["type"] = "ticket";
export type Logs = paths["/v1/logs"]["post"]["requestBody"]["content"]["application/json"];
export type Rejected = NonNullable<Schemas["ExportLogsServiceResponse"]["partialSuccess"]>["rejectedLogRecords"];
export type Digest = webhooks["digest"]["post"]["requestBody"]["content"]["application/json"]["digest"];
`

// TestOpenAPITypeScript generates TypeScript types from the served document
// with openapi-typescript and compiles code that uses them with tsc.
func TestOpenAPITypeScript(t *testing.T) {
	t.Parallel()
	gen := npmBin(t, "openapi-typescript", "openapi-typescript")
	tsc := npmBin(t, "typescript", "tsc")
	dir := t.TempDir()
	servedDocument(t, dir)
	run(t, dir, nil, false, gen, "openapi.json", "--output", "api.d.ts")
	if err := os.WriteFile(filepath.Join(dir, "use.ts"), []byte(tsUsage), 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, dir, nil, false, tsc, "--noEmit", "--strict", "--target", "es2022", "--module", "esnext", "--moduleResolution", "bundler", "use.ts")
}

// TestOpenAPIGoClient generates a Go client, models and server interfaces
// from the served document with oapi-codegen (pinned by the module in
// testdata/oapi-codegen, apart from the main module), builds them, and runs
// a program that uses the client against the real server.
func TestOpenAPIGoClient(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the generated client: %v", err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "oapi-codegen"))); err != nil {
		t.Fatal(err)
	}
	s, doc := servedDocument(t, dir)
	env := []string{"GOFLAGS=-mod=readonly", "GOWORK=off"}
	run(t, dir, env, false, goBin, "tool", "oapi-codegen", "-config", "oapi-codegen.yaml", doc)
	run(t, dir, env, false, goBin, "build", "-o", "smoke.bin", "./smoke")
	if out := run(t, dir, nil, false, filepath.Join(dir, "smoke.bin"), s.URL, apitest.Password); string(out) != "ok\n" {
		t.Errorf("the generated client's program printed %q, want ok", out)
	}
}
