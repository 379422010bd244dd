package cli_test

import (
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestLoadgenPresetCountCheck runs `errata loadgen --preset busy-senders`
// with the count check against a real `errata serve` (every role, limits
// raised) on both databases: the preset's load (4 senders, 1,000-event
// batches of about 540 bytes, 16 prebuilt, plain JSON), one latency line
// a sender, every accepted event counted once, and the complete JSON
// summary.
func TestLoadgenPresetCountCheck(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			dbURL := storetest.URL(t, d)
			if d == store.SQLite {
				dbURL = "sqlite:" + filepath.Join(dir, "errata.db")
			}
			s := startServe(t, dir, "ERRATA_DATABASE_URL="+dbURL, "ERRATA_INGEST_RATE_LIMIT=100000", "ERRATA_INGEST_RATE_BURST=100000")
			token := s.must(http.StatusOK, "POST", "/v1/auth/sign-up/email", "", map[string]any{"email": "o@example.com", "password": "long enough", "name": "O"})["token"].(string)
			org := s.must(http.StatusCreated, "POST", "/v1/orgs", token, map[string]any{"name": "Acme"})["id"].(string)
			prj := s.must(http.StatusCreated, "POST", "/v1/orgs/"+org+"/projects", token, map[string]any{"name": "loadgen"})["id"].(string)
			key := s.must(http.StatusCreated, "POST", "/v1/projects/"+prj+"/keys", token, map[string]any{"name": "k"})["key"].(string)

			// No --url: the server's own ERRATA_ADDR, as after the README's quick start.
			res := errata(t, dir, []string{"ERRATA_LOADGEN_KEY=" + key, "ERRATA_LOADGEN_TOKEN=" + token, "ERRATA_ADDR=" + strings.TrimPrefix(s.URL, "http://")},
				"loadgen", "--preset", "busy-senders", "--batches", "12", "--project", prj, "--readers", "1", "--json")
			if res.code != 0 {
				t.Fatalf("loadgen: code %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
			}
			if !strings.Contains(res.stderr, "loadgen writes real events into the key's project") {
				t.Errorf("no warning that the events are real:\n%s", res.stderr)
			}
			var rep struct {
				Preset         string  `json:"preset"`
				Concurrency    int     `json:"concurrency"`
				BatchSize      int     `json:"batch_size"`
				Distinct       int     `json:"distinct"`
				Gzip           bool    `json:"gzip"`
				EventsAccepted int64   `json:"events_accepted"`
				MeanEventBytes float64 `json:"mean_event_bytes"`
				Senders        []struct {
					BatchesAccepted int64 `json:"batches_accepted"`
					Latency         struct {
						Samples int     `json:"samples"`
						P50     float64 `json:"p50"`
						P99     float64 `json:"p99"`
						P999    float64 `json:"p99_9"`
						Max     float64 `json:"max"`
					} `json:"latency_ms"`
				} `json:"senders"`
				Readers []struct {
					Reads   int64 `json:"reads"`
					Failed  int64 `json:"failed"`
					Latency struct {
						Max float64 `json:"max"`
					} `json:"latency_ms"`
				} `json:"readers"`
				RateLimit struct {
					Paced bool  `json:"paced"`
					Limit int64 `json:"limit"`
					Waits int64 `json:"waits"`
				} `json:"rate_limit"`
				Refusals struct {
					Status429 int64 `json:"429"`
				} `json:"refusals"`
				Drain  *struct{ Drained bool } `json:"drain"`
				Counts *struct {
					GroupEvents int64 `json:"group_events"`
					InfoEvents  int64 `json:"info_events"`
					DebugEvents int64 `json:"debug_events"`
					Counted     int64 `json:"counted"`
					Match       bool  `json:"match"`
				} `json:"counts"`
			}
			if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
				t.Fatalf("stdout is not the JSON summary: %v\n%s", err, res.stdout)
			}
			if rep.Preset != "busy-senders" || rep.Concurrency != 4 || rep.BatchSize != 1000 || rep.Distinct != 16 || rep.Gzip {
				t.Errorf("preset %q: %d senders, batches of %d, %d prebuilt, gzip %v; want busy-senders, 4, 1000, 16, false",
					rep.Preset, rep.Concurrency, rep.BatchSize, rep.Distinct, rep.Gzip)
			}
			if rep.MeanEventBytes < 500 || rep.MeanEventBytes > 600 {
				t.Errorf("mean event %.1f bytes, want about 540", rep.MeanEventBytes)
			}
			var batches int64
			for _, snd := range rep.Senders {
				batches += snd.BatchesAccepted
				if int64(snd.Latency.Samples) != snd.BatchesAccepted || snd.Latency.P99 < snd.Latency.P50 ||
					snd.Latency.P999 < snd.Latency.P99 || snd.Latency.Max < snd.Latency.P999 {
					t.Errorf("sender %+v", snd)
				}
			}
			if len(rep.Senders) != 4 || batches != 12 || rep.EventsAccepted != 12000 {
				t.Errorf("%d senders sent %d batches, %d events accepted; want 4, 12, 12000", len(rep.Senders), batches, rep.EventsAccepted)
			}
			if len(rep.Readers) != 1 || rep.Readers[0].Reads < 2 || rep.Readers[0].Failed != 0 || rep.Readers[0].Latency.Max <= 0 {
				t.Errorf("readers %+v: want one that read the group list and summaries with the token", rep.Readers)
			}
			if !rep.RateLimit.Paced || rep.RateLimit.Limit != 100000 || rep.RateLimit.Waits != 0 || rep.Refusals.Status429 != 0 {
				t.Errorf("rate limit %+v, %d refused: want paced to a raised limit without a wait", rep.RateLimit, rep.Refusals.Status429)
			}
			if rep.Drain == nil || !rep.Drain.Drained || rep.Counts == nil || !rep.Counts.Match || rep.Counts.Counted != 12000 ||
				rep.Counts.GroupEvents == 0 || rep.Counts.InfoEvents == 0 || rep.Counts.DebugEvents == 0 {
				t.Errorf("drain %+v, counts %+v: want drained and all 12,000 counted", rep.Drain, rep.Counts)
			}
		})
	}
}

// TestLoadgenHelpAndUsage: the help says where the events go and how the
// rate limit is kept, and the count check's flags go together.
func TestLoadgenHelpAndUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	help := errata(t, dir, nil, "loadgen", "--help")
	for _, want := range []string{"written into the project of the key", "create a project named loadgen", "--preset=", "--ignore-rate-limit",
		"--token=", "--project=", "busy-senders", "--readers=", "--reader-token="} {
		if !strings.Contains(strings.Join(strings.Fields(help.stdout), " "), want) {
			t.Errorf("errata loadgen --help lacks %q:\n%s", want, help.stdout)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"loadgen", "--key", "svc_live_x", "--token", "t"}, "--project"},
		{[]string{"loadgen", "--key", "svc_live_x", "--preset", "fast"}, "--preset"},
	} {
		res := errata(t, dir, nil, tc.args...)
		if res.code != 2 || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 naming %s", tc.args, res.code, res.stderr, tc.want)
		}
	}
}

// TestLoadgenThatReachesNothingFails: a run of which nothing was accepted
// (no server at the address) exits 1 saying so and where it sent, not 0
// with a report of zeros.
func TestLoadgenThatReachesNothingFails(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	res := errata(t, t.TempDir(), []string{"ERRATA_LOADGEN_KEY=svc_live_x", "ERRATA_ADDR=" + addr},
		"loadgen", "--batches", "1", "--concurrency", "1", "--max-retries", "0", "--duration", "5s")
	if res.code != 1 || !strings.Contains(res.stderr, "nothing was accepted") || !strings.Contains(res.stderr, "http://"+addr) {
		t.Fatalf("loadgen to a closed port: code %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
}
