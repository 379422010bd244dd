package cli_test

import (
	"net"
	"net/http"
	"testing"
	"time"
)

// BenchmarkServeStartup measures how long `errata serve` takes from exec to
// its first 200 answer (GET /v1/openapi.json) on a fresh SQLite directory:
// process start, creating and migrating the database, building the API and
// listening. Shutdown is not timed. Run without -race:
//
//	go test -run '^$' -bench ServeStartup -benchtime 20x ./internal/cli/
func BenchmarkServeStartup(b *testing.B) {
	binary(b) // build outside the timer
	client := &http.Client{Timeout: time.Second}
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		addr := freeAddr(b)
		b.StartTimer()

		s := startServeProcess(b, dir, "ERRATA_ADDR="+addr, "ERRATA_GRPC_ADDR=off", "ERRATA_DATA_DIR="+dir+"/data")
		for !answers(client, "http://"+addr+"/v1/openapi.json") {
			select {
			case <-s.exited:
				b.Fatalf("errata serve exited during start-up; log:\n%s", s.log)
			case <-time.After(time.Millisecond):
			}
		}

		b.StopTimer()
		if code := s.stop(); code != 0 {
			b.Fatalf("exit code %d, want 0; log:\n%s", code, s.log)
		}
		b.StartTimer()
	}
}

// freeAddr returns a loopback address no one listens on right now.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func answers(c *http.Client, url string) bool {
	res, err := c.Get(url)
	if err != nil {
		return false
	}
	_ = res.Body.Close()
	return res.StatusCode == http.StatusOK
}
