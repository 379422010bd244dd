package cli_test

import (
	"bufio"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/testtool"
)

// TestMakeDist runs `make dist` (issue 29) for this machine's platform into
// a temporary directory: the binary is named for its version and platform,
// prints the stamped version, is static (no ELF interpreter or shared
// libraries on Linux), and SHA256SUMS lists exactly it with its real
// checksum. The other platforms are the same build cross-compiled.
func TestMakeDist(t *testing.T) {
	t.Parallel()
	mk := testtool.Program(t, "make")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	const version = "v0.0.0-dist-test"
	platform := runtime.GOOS + "/" + runtime.GOARCH
	cmd := exec.Command(mk, "-s", "dist", "DIST="+dist, "VERSION="+version, "DIST_PLATFORMS="+platform)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make dist: %v\n%s", err, out)
	}
	name := "errata-" + version + "-" + runtime.GOOS + "-" + runtime.GOARCH
	bin := filepath.Join(dist, name)
	raw, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	sums := readLines(t, filepath.Join(dist, "SHA256SUMS"))
	if want := hex.EncodeToString(sum[:]) + "  " + name; len(sums) != 1 || sums[0] != want {
		t.Errorf("SHA256SUMS = %q, want [%q]", sums, want)
	}

	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "errata "+version+" (go") {
		t.Errorf("%s version: %v, %q; want it to print %s", name, err, out, version)
	}

	if runtime.GOOS == "linux" {
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s has an ELF interpreter: not static", name)
			}
		}
		if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
			t.Errorf("%s needs shared libraries %v: not static", name, libs)
		}
	}
}

// TestDockerfileUsesTheDistBuild: the image's binary is built by the same
// scripts/build as make dist's, for the image's platform and version.
func TestDockerfileUsesTheDistBuild(t *testing.T) {
	t.Parallel()
	lines := readLines(t, filepath.Join("..", "..", "Dockerfile"))
	var build string
	for _, l := range lines {
		if strings.Contains(l, "scripts/build ") {
			build = l
		}
	}
	for _, want := range []string{"GOOS=$TARGETOS", "GOARCH=$TARGETARCH", "VERSION=${VERSION}", "scripts/build /out/errata"} {
		if !strings.Contains(build, want) {
			t.Errorf("the Dockerfile's build line %q lacks %q", build, want)
		}
	}
	mf := strings.Join(readLines(t, filepath.Join("..", "..", "Makefile")), "\n")
	if !strings.Contains(mf, "scripts/build $(DIST)/") {
		t.Error("make dist no longer builds with scripts/build")
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}
