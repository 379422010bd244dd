package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store/storetest"
)

// testVersion is linked into the binary under test.
const testVersion = "v0.0.0-clitest"

// wait bounds every wait on a child process. It is generous on purpose: the
// tests assert what happens, never how fast.
const wait = 2 * time.Minute

// raceBuild is set by race_test.go when the tests run with -race. Only
// raceBinary then builds the binary with -race too, so that races in serve
// and its shutdown fail the test (a race-detector exit is code 66); the
// other tests run a plain build. Their server processes (clusters, crashes,
// load) take a third of the CPU that way, and the code they run is tested
// in-process under the race detector by the app, httpapi and process
// packages (see docs/decisions.md, "CI time").
var raceBuild bool

// build is one build of cmd/errata, made once per test run.
type build struct {
	once sync.Once
	dir  string
	path string
	err  error
}

var plainBuild, raceDetBuild build

func TestMain(m *testing.M) {
	code := m.Run()
	storetest.Cleanup()
	for _, b := range []*build{&plainBuild, &raceDetBuild} {
		if b.dir != "" {
			_ = os.RemoveAll(b.dir)
		}
	}
	os.Exit(code)
}

// binary builds cmd/errata once per test run and returns its path.
func binary(t testing.TB) string {
	t.Helper()
	return plainBuild.get(t, false)
}

// raceBinary is binary built with -race when the tests run with -race.
func raceBinary(t testing.TB) string {
	t.Helper()
	if !raceBuild {
		return binary(t)
	}
	return raceDetBuild.get(t, true)
}

func (b *build) get(t testing.TB, race bool) string {
	t.Helper()
	b.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		}
		if b.dir, b.err = os.MkdirTemp("", "errata-cli-test-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "errata")
		args := []string{"build", "-o", b.path, "-ldflags", "-X github.com/errata-dev/errata/internal/cli.Version=" + testVersion}
		if race {
			args = append(args, "-race")
		}
		out, err := exec.Command(goBin, append(args, "github.com/errata-dev/errata/cmd/errata")...).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// childEnv is the test's environment without any ERRATA_* setting, with JSON
// logs, plus env.
func childEnv(env []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ERRATA_") {
			out = append(out, kv)
		}
	}
	return append(append(out, "ERRATA_LOG_FORMAT=json"), env...)
}

// result is a finished command.
type result struct {
	code           int
	stdout, stderr string
}

// lines returns the non-empty lines of s.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// errata runs the binary in dir with env and args and waits for it.
func errata(t testing.TB, dir string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), args...)
	cmd.Dir, cmd.Env = dir, childEnv(env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok && ctx.Err() == nil {
		res.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("errata %s: %v\nstderr: %s", strings.Join(args, " "), err, res.stderr)
	}
	return res
}

// logRecord is one JSON log line of the server.
type logRecord map[string]any

func (r logRecord) msg() string { s, _ := r["msg"].(string); return s }

// logWatch collects a child's JSON log lines and lets tests wait for one.
type logWatch struct {
	mu      sync.Mutex
	partial []byte
	records []logRecord
	raw     []string
	changed chan struct{}
}

func newLogWatch() *logWatch { return &logWatch{changed: make(chan struct{})} }

func (w *logWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			break
		}
		line := string(w.partial[:i])
		w.partial = w.partial[i+1:]
		w.raw = append(w.raw, line)
		var r logRecord
		if json.Unmarshal([]byte(line), &r) == nil {
			w.records = append(w.records, r)
		}
	}
	close(w.changed)
	w.changed = make(chan struct{})
	return len(p), nil
}

// find returns the index of the first record with message msg, or -1.
func (w *logWatch) find(msg string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, r := range w.records {
		if r.msg() == msg {
			return i
		}
	}
	return -1
}

func (w *logWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.raw, "\n") + string(w.partial)
}

// waitFor returns the first record with message msg, failing the test if the
// process exits or wait passes first.
func (w *logWatch) waitFor(t testing.TB, exited <-chan struct{}, msg string) logRecord {
	t.Helper()
	deadline := time.After(wait)
	for {
		w.mu.Lock()
		for _, r := range w.records {
			if r.msg() == msg {
				w.mu.Unlock()
				return r
			}
		}
		changed := w.changed
		w.mu.Unlock()
		select {
		case <-changed:
		case <-exited:
			if i := w.find(msg); i >= 0 {
				return w.records[i]
			}
			t.Fatalf("errata exited before logging %q; log:\n%s", msg, w)
		case <-deadline:
			t.Fatalf("errata did not log %q within %s; log:\n%s", msg, wait, w)
		}
	}
}

// server is a running `errata serve` process.
type server struct {
	t      testing.TB
	cmd    *exec.Cmd
	log    *logWatch
	URL    string
	Addr   string
	exited chan struct{}
	err    error // of cmd.Wait, once exited is closed
}

// startServe runs `errata serve` in dir on a free loopback port with gRPC
// off, and waits until it logs the address it serves on.
func startServe(t testing.TB, dir string, env ...string) *server {
	t.Helper()
	return startServeOf(t, binary(t), dir, env...)
}

// startServeOf is startServe with the binary bin.
func startServeOf(t testing.TB, bin, dir string, env ...string) *server {
	t.Helper()
	s := startProcessOf(t, bin, dir, append([]string{"ERRATA_ADDR=127.0.0.1:0", "ERRATA_GRPC_ADDR=off"}, env...)...)
	r := s.log.waitFor(t, s.exited, "errata serving")
	s.Addr, _ = r["addr"].(string)
	s.URL = "http://" + s.Addr
	return s
}

// startServeProcess starts `errata serve` and returns at once.
func startServeProcess(t testing.TB, dir string, env ...string) *server {
	t.Helper()
	return startProcessOf(t, binary(t), dir, env...)
}

// startProcessOf is startServeProcess with the binary bin.
func startProcessOf(t testing.TB, bin, dir string, env ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, "serve")
	cmd.Dir, cmd.Env = dir, childEnv(env)
	s := &server{t: t, cmd: cmd, log: newLogWatch(), exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start errata serve: %v", err)
	}
	go func() {
		s.err = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = cmd.Process.Kill()
			<-s.exited
		}
	})
	return s
}

// stop sends SIGTERM and returns the exit code.
func (s *server) stop() int {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.t.Fatalf("SIGTERM: %v", err)
	}
	return s.waitExit()
}

// waitExit waits for the process to end and returns its exit code.
func (s *server) waitExit() int {
	s.t.Helper()
	select {
	case <-s.exited:
	case <-time.After(wait):
		s.t.Fatalf("errata serve still running %s after SIGTERM; log:\n%s", wait, s.log)
	}
	if ee, ok := s.err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if s.err != nil {
		s.t.Fatalf("errata serve: %v", s.err)
	}
	return 0
}

// call sends a JSON request to the server and decodes a JSON answer.
func (s *server) call(method, path, token string, body any) (int, map[string]any) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	c := &http.Client{Timeout: wait}
	res, err := c.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatalf("%s %s: read: %v", method, path, err)
	}
	var m map[string]any
	if len(raw) > 0 && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		if err := json.Unmarshal(raw, &m); err != nil {
			s.t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	}
	return res.StatusCode, m
}

// must is call that fails the test unless the status is want.
func (s *server) must(want int, method, path, token string, body any) map[string]any {
	s.t.Helper()
	got, m := s.call(method, path, token, body)
	if got != want {
		s.t.Fatalf("%s %s = %d, want %d; body: %v", method, path, got, want, m)
	}
	return m
}

// readLine reads one CRLF-terminated line.
func readLine(br *bufio.Reader) (string, error) {
	l, err := br.ReadString('\n')
	return strings.TrimRight(l, "\r\n"), err
}
