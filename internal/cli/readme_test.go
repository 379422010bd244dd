package cli_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/testtool"
)

// TestReadmeQuickStart runs the README's quick start as a script, as a
// newcomer pastes it (issue 17): every ```sh block of its "Quick start"
// section, in order, under `set -euo pipefail`, in a fresh directory. Two
// things differ from a terminal: `make build` is replaced by the binary
// under test (already built), and the ports are free ones instead of 8080,
// 4317 and 9443 (each set once, in a variable), so that the test runs
// beside anything else.
func TestReadmeQuickStart(t *testing.T) {
	t.Parallel()
	bash := testtool.Program(t, "bash")
	testtool.Program(t, "curl")
	testtool.Program(t, "jq")
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	script := quickStart(t, string(raw))
	if !strings.Contains(script, "make build && export PATH=\"$PWD:$PATH\"") {
		t.Fatalf("the quick start no longer starts with make build; update this test:\n%s", script)
	}
	script = strings.Replace(script, "make build && export PATH=\"$PWD:$PATH\"", "export PATH=\""+filepath.Dir(binary(t))+":$PATH\"", 1)
	// Each port is set once, in a variable (issue 29): that one place is
	// what a newcomer with a busy port changes, and what this test does.
	// All are counted, and taken out, before any free port is put in: a free
	// port that starts with 4317 (127.0.0.1:43177) would read as a second 4317.
	ports := []string{"127.0.0.1:8080", "127.0.0.1:4317", "127.0.0.1:9443"}
	for _, p := range ports {
		if n := strings.Count(script, p); n != 1 {
			t.Fatalf("the quick start names %s %d times, want once (in a variable):\n%s", p, n, script)
		}
	}
	for i, p := range ports { // through placeholders, which no free port can contain
		script = strings.Replace(script, p, fmt.Sprintf("\x00port%d\x00", i), 1)
	}
	for i := range ports {
		script = strings.Replace(script, fmt.Sprintf("\x00port%d\x00", i), freeAddr(t), 1)
	}
	script = "set -euo pipefail\n" + script
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", script)
	cmd.Dir = t.TempDir()
	cmd.Env = childEnv([]string{"HOME=" + t.TempDir()})
	// The script starts a server and a receiver in the background: they run
	// in the script's process group, which is killed when it ends (or times
	// out), so that none keeps the output pipe open after the script.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		t.Fatalf("the README's quick start failed: %v\n--- script ---\n%s\n--- output ---\n%s", err, script, out)
	}
	for _, want := range []string{"svc_live_", "receiving webhook deliveries at https://", "test of channel \"ops\""} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the quick start's output lacks %q:\n%s", want, out)
		}
	}
}

// quickStart is the README's ```sh blocks under "## Quick start", joined.
func quickStart(t *testing.T, readme string) string {
	t.Helper()
	return strings.Join(shBlocks(t, readme, "Quick start"), "")
}

// shBlocks are the ```sh blocks of the README's section "## <title>", in order.
func shBlocks(t *testing.T, readme, title string) []string {
	t.Helper()
	i := strings.Index(readme, "\n## "+title+"\n")
	if i < 0 {
		t.Fatalf("the README has no %s section", title)
	}
	section := readme[i+1:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	var blocks []string
	for {
		k := strings.Index(section, "```sh\n")
		if k < 0 {
			break
		}
		section = section[k+len("```sh\n"):]
		end := strings.Index(section, "```")
		blocks = append(blocks, section[:end])
		section = section[end+3:]
	}
	if len(blocks) == 0 {
		t.Fatalf("the %s section has no sh blocks", title)
	}
	return blocks
}
