package cli_test

import (
	"net"
	"strings"
	"testing"
)

// TestHealthcheck asks a running server, as a container's HEALTHCHECK does,
// through its own ERRATA_ADDR (also when that is every address), and fails
// with exit 1 and one line once the server is gone.
func TestHealthcheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServe(t, dir, "ERRATA_DATA_DIR="+dir+"/data")
	_, port, _ := net.SplitHostPort(s.Addr)
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"the server's address", []string{"ERRATA_ADDR=" + s.Addr}, nil, "GET http://" + s.Addr + "/healthz: 200 OK\n"},
		{"every address, asked on loopback", []string{"ERRATA_ADDR=0.0.0.0:" + port}, nil, "GET http://127.0.0.1:" + port + "/healthz: 200 OK\n"},
		{"no host", []string{"ERRATA_ADDR=:" + port}, nil, "GET http://127.0.0.1:" + port + "/healthz: 200 OK\n"},
		{"readiness", nil, []string{"--addr", s.Addr, "--ready"}, "GET http://" + s.Addr + "/readyz: 200 OK\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := errata(t, dir, tc.env, append([]string{"healthcheck"}, tc.args...)...)
			if res.code != 0 || res.stdout != tc.want {
				t.Fatalf("code %d, stdout %q, stderr %q; want 0 and %q", res.code, res.stdout, res.stderr, tc.want)
			}
		})
	}
	if code := s.stop(); code != 0 {
		t.Fatalf("serve exit code %d", code)
	}
	res := errata(t, dir, []string{"ERRATA_ADDR=" + s.Addr}, "healthcheck", "--timeout", "2s")
	if l := lines(res.stderr); res.code != 1 || len(l) != 1 || !strings.HasPrefix(l[0], "errata: healthcheck: ") {
		t.Fatalf("with the server gone: code %d, stderr %q; want 1 and one line", res.code, res.stderr)
	}
	bad := errata(t, dir, []string{"ERRATA_ADDR=8080"}, "healthcheck")
	if l := lines(bad.stderr); bad.code != 2 || len(l) != 1 || !strings.Contains(l[0], "ERRATA_ADDR") {
		t.Fatalf("bad address: code %d, stderr %q; want 2 and one line naming ERRATA_ADDR", bad.code, bad.stderr)
	}
}
