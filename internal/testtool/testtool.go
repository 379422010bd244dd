// Package testtool finds the programs and npm packages some tests run
// (node, python3, openssl, Redocly, the Adaptive Card parser, @sentry/node).
// A test whose tool is missing fails under CI=true, where .ci/run (through
// scripts/setup) installs every one of them, and is skipped with a message
// elsewhere: a skipped test must never hide a missing check in CI.
package testtool

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Missing fails t under CI=true and skips it elsewhere, saying why.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (scripts/setup installs it; .ci/run runs it)", msg)
	}
	t.Skipf("skipped: %s (scripts/setup installs it)", msg)
}

// Program returns the path of the program name, or stops t (Missing).
func Program(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s is not installed", name)
	}
	return p
}

// NPMCache is where tests find npm packages: $ERRATA_NPM_CACHE, else
// ~/.cache/errata-npm (never inside the repository).
func NPMCache() string {
	if dir := os.Getenv("ERRATA_NPM_CACHE"); dir != "" {
		return dir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "errata-npm")
}

// NPMPackage returns the directory of version of the npm package pkg in
// NPMCache, or stops t (Missing) with the command that installs it.
func NPMPackage(t testing.TB, pkg, version string) string {
	t.Helper()
	Program(t, "node")
	dir := filepath.Join(NPMCache(), "node_modules", pkg)
	var meta struct{ Version string }
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &meta)
	}
	if err != nil || meta.Version != version {
		Missing(t, "the npm package %s@%s is not in %s (found %q); install it with: npm install --prefix %q --save-exact %s@%s",
			pkg, version, NPMCache(), meta.Version, NPMCache(), pkg, version)
	}
	return dir
}
