package cli_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/testtool"
)

// TestReadmeSetupCheck runs the README's set-up check (issue 29), the
// ```sh block of its "Set-up" section that runs `scripts/setup --check`, from
// the repository's root: on this machine (under CI=true, where .ci/run ran
// scripts/setup, it must find nothing missing), with an empty npm cache (it
// names every npm package and installs none), and without jq on the PATH
// (it names jq). Exit 0 means nothing is missing, 1 that something is.
func TestReadmeSetupCheck(t *testing.T) {
	t.Parallel()
	bash := testtool.Program(t, "bash")
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var script string
	for _, b := range shBlocks(t, string(raw), "Set-up") {
		if strings.Contains(b, "scripts/setup --check") {
			script = b
		}
	}
	if strings.TrimSpace(script) != "scripts/setup --check" {
		t.Fatalf("the Set-up section has no block of its own running scripts/setup --check; found %q", script)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, env ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bash, "-euo", "pipefail", "-c", script)
		cmd.Dir = root
		cmd.Env = childEnv(append([]string{"ERRATA_NPM_CACHE=" + testtool.NPMCache()}, env...))
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &exit):
			return exit.ExitCode(), string(out)
		}
		t.Fatalf("scripts/setup --check: %v\n%s", err, out)
		return 0, ""
	}
	packages := npmPackages(t, filepath.Join(root, "scripts", "setup"))

	t.Run("this machine", func(t *testing.T) {
		t.Parallel()
		code, out := run(t)
		for _, want := range []string{"Go\n", "Programs\n", "PostgreSQL on 127.0.0.1:5432", "npm packages in ", "jq", "chromium"} {
			if !strings.Contains(out, want) {
				t.Errorf("the report lacks %q:\n%s", want, out)
			}
		}
		switch {
		case code == 0 && strings.Contains(out, "MISSING"):
			t.Errorf("exit 0 although something is missing:\n%s", out)
		case code == 1 && !strings.Contains(out, "MISSING"):
			t.Errorf("exit 1 naming nothing missing:\n%s", out)
		case code != 0 && code != 1:
			t.Errorf("exit %d, want 0 or 1:\n%s", code, out)
		case code != 0 && os.Getenv("CI") == "true":
			t.Errorf("under CI=true .ci/run ran scripts/setup, yet the check finds something missing:\n%s", out)
		}
	})
	t.Run("empty npm cache", func(t *testing.T) {
		t.Parallel()
		cache := t.TempDir()
		code, out := run(t, "ERRATA_NPM_CACHE="+cache)
		if code != 1 {
			t.Errorf("exit %d with an empty npm cache, want 1:\n%s", code, out)
		}
		for _, pkg := range packages {
			if !strings.Contains(out, "MISSING  "+pkg+"\n") {
				t.Errorf("the report does not name %s as missing:\n%s", pkg, out)
			}
		}
		if entries, _ := os.ReadDir(cache); len(entries) != 0 {
			t.Errorf("--check installed into the npm cache: %v", entries)
		}
	})
	t.Run("without jq", func(t *testing.T) {
		t.Parallel()
		code, out := run(t, "PATH="+pathWithout(t, "jq"))
		if code != 1 || !strings.Contains(out, "MISSING  jq (") {
			t.Errorf("exit %d without jq, want 1 naming jq:\n%s", code, out)
		}
	})
}

// npmPackages is the NPM_PACKAGES list of scripts/setup.
func npmPackages(t *testing.T, setup string) []string {
	t.Helper()
	raw, err := os.ReadFile(setup)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^NPM_PACKAGES=\(([^)]*)\)$`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("scripts/setup has no NPM_PACKAGES=(…) line")
	}
	return strings.Fields(string(m[1]))
}

// pathWithout is a PATH of one directory holding links to every program of
// $PATH except name (the first of each name, as the shell finds it).
func pathWithout(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			link := filepath.Join(dir, e.Name())
			if e.Name() == name || e.IsDir() {
				continue
			}
			if _, err := os.Lstat(link); err == nil {
				continue
			}
			if err := os.Symlink(filepath.Join(d, e.Name()), link); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}
