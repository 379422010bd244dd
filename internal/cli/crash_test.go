package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestCrashLosesNoAcceptedBatch SIGKILLs a real `errata serve` under
// concurrent ingest load, restarts it, and checks the durable queue: every
// batch answered 202 is there exactly once, and no batch is there twice.
// (Batches whose answer the kill cut off may or may not be there: their
// client saw no 202 and would resend.)
func TestCrashLosesNoAcceptedBatch(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			dbURL := storetest.URL(t, d)
			if d == store.SQLite {
				dbURL = "sqlite:" + filepath.Join(dir, "errata.db")
			}
			env := []string{"ERRATA_DATABASE_URL=" + dbURL, "ERRATA_INGEST_RATE_LIMIT=100000", "ERRATA_INGEST_RATE_BURST=100000"}
			s := startServe(t, dir, env...)
			owner := s.must(http.StatusOK, "POST", "/v1/auth/sign-up/email", "", map[string]any{"email": "o@example.com", "password": "long enough", "name": "O"})
			token := owner["token"].(string)
			org := s.must(http.StatusCreated, "POST", "/v1/orgs", token, map[string]any{"name": "Acme"})["id"].(string)
			prj := s.must(http.StatusCreated, "POST", "/v1/orgs/"+org+"/projects", token, map[string]any{"name": "web"})["id"].(string)
			key := s.must(http.StatusCreated, "POST", "/v1/projects/"+prj+"/keys", token, map[string]any{"name": "k"})["key"].(string)

			accepted := loadUntilKilled(t, s, key)
			if len(accepted) == 0 {
				t.Fatalf("no batch was accepted before the kill; log:\n%s", s.log)
			}

			// Restart on the same database: it starts and takes work again.
			s2 := startServe(t, dir, env...)
			if code, _ := s2.call("POST", "/v1/ingest", key, map[string]any{"service": "api", "events": []any{map[string]any{"message": "after restart"}}}); code != http.StatusAccepted {
				t.Fatalf("ingest after restart = %d, want 202", code)
			}
			db, err := store.Open(context.Background(), store.Options{URL: dbURL})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			batches, err := db.Read().ListBatches(context.Background(), prj)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]int{}
			for _, b := range batches {
				events, err := ingest.DecodePayload(b.Payload)
				if err != nil {
					t.Fatalf("batch %d: %v", b.ID, err)
				}
				seen[events[0].Message]++
			}
			for msg, n := range seen {
				if n > 1 {
					t.Errorf("batch %q is queued %d times", msg, n)
				}
			}
			for _, msg := range accepted {
				if seen[msg] != 1 {
					t.Errorf("accepted batch %q is queued %d times, want once", msg, seen[msg])
				}
			}
			t.Logf("%s: %d batches accepted before SIGKILL, %d queued (%d committed without a 202 reaching the client)",
				d, len(accepted), len(seen)-1, len(seen)-1-len(accepted))
			if code := s2.stop(); code != 0 {
				t.Fatalf("restarted serve exit code %d", code)
			}
		})
	}
}

// loadUntilKilled sends batches from several clients and SIGKILLs the server
// at a random moment, returning the first message of every batch answered 202.
func loadUntilKilled(t *testing.T, s *server, key string) []string {
	t.Helper()
	var (
		mu       sync.Mutex
		accepted []string
		wg       sync.WaitGroup
		stop     = make(chan struct{})
	)
	client := &http.Client{Timeout: 10 * time.Second}
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for seq := 0; ; seq++ {
				select {
				case <-stop:
					return
				default:
				}
				var body bytes.Buffer
				fmt.Fprintf(&body, `{"service":"crash","events":[`)
				for i := 0; i < 50; i++ {
					if i > 0 {
						body.WriteByte(',')
					}
					fmt.Fprintf(&body, `{"message":"batch %d-%d event %d","level":"error","attributes":{"w":%d,"seq":%d}}`, w, seq, i, w, seq)
				}
				body.WriteString(`]}`)
				req, _ := http.NewRequest("POST", s.URL+"/v1/ingest", &body)
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				res, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				res.Body.Close()
				if res.StatusCode == http.StatusAccepted {
					mu.Lock()
					accepted = append(accepted, fmt.Sprintf("batch %d-%d event 0", w, seq))
					mu.Unlock()
				}
			}
		}(w)
	}
	time.Sleep(time.Duration(300+rand.IntN(700)) * time.Millisecond)
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatalf("SIGKILL: %v", err)
	}
	<-s.exited
	close(stop)
	wg.Wait()
	return accepted
}
