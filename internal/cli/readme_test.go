package cli_test

import (
	"context"
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
// 4317 and 9443, so that the test runs beside anything else.
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
	for _, p := range []string{"127.0.0.1:8080", "127.0.0.1:9443"} {
		script = strings.ReplaceAll(script, p, freeAddr(t))
	}
	script = "set -euo pipefail\nexport ERRATA_GRPC_ADDR=" + freeAddr(t) + " ERRATA_ADDR=" + addrIn(script) + "\n" + script
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
	i := strings.Index(readme, "\n## Quick start")
	if i < 0 {
		t.Fatal("the README has no Quick start section")
	}
	section := readme[i+1:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	var b strings.Builder
	for {
		k := strings.Index(section, "```sh\n")
		if k < 0 {
			break
		}
		section = section[k+len("```sh\n"):]
		end := strings.Index(section, "```")
		b.WriteString(section[:end])
		section = section[end+3:]
	}
	if b.Len() == 0 {
		t.Fatal("the Quick start section has no sh blocks")
	}
	return b.String()
}

// addrIn is the server address the script's B= line names.
func addrIn(script string) string {
	i := strings.Index(script, "B=http://")
	line := script[i+len("B=http://"):]
	return line[:strings.IndexByte(line, '\n')]
}
