package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestCrashLosesNoAcceptedBatch SIGKILLs a real `errata serve` under
// concurrent ingest load while it processes, restarts it, lets it drain the
// queue, and checks the results: every batch answered 202 became exactly its
// 40 grouped errors (each batch has its own fingerprint) and its 10 INFO
// events, and no batch counts twice or in part. (Batches whose answer the
// kill cut off may or may not be there: their client saw no 202 and would
// resend.)
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
			env := []string{"ERRATA_DATABASE_URL=" + dbURL, "ERRATA_INGEST_RATE_LIMIT=100000", "ERRATA_INGEST_RATE_BURST=100000", "ERRATA_WORKER_LEASE=2s"}
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
			if code, _ := s2.call("POST", "/v1/ingest", key, map[string]any{"service": "api", "events": []any{
				map[string]any{"message": "after restart", "level": "error", "attributes": map[string]any{"fingerprint": "after"}},
				map[string]any{"message": "after restart"}}}); code != http.StatusAccepted {
				t.Fatalf("ingest after restart = %d, want 202", code)
			}
			db, err := store.Open(context.Background(), store.Options{URL: dbURL})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			waitDrained(t, db)
			counts := groupCounts(t, db, prj)
			if counts["after"] != 1 {
				t.Errorf("the batch sent after the restart counted %d errors, want 1", counts["after"])
			}
			for fp, n := range counts {
				if fp != "after" && n != 40 {
					t.Errorf("batch %s counted %d errors, want 40 (once, whole)", fp, n)
				}
			}
			for _, fp := range accepted {
				if counts[fp] != 40 {
					t.Errorf("accepted batch %s counted %d errors, want 40", fp, counts[fp])
				}
			}
			info := infoCount(t, db, prj)
			if want := int64(10 * (len(counts) - 1)); info != want+1 { // +1: the "after restart" event
				t.Errorf("INFO events = %d, want %d (10 for each of %d batches, and 1)", info, want+1, len(counts)-1)
			}
			t.Logf("%s: %d batches accepted before SIGKILL, %d processed (%d committed without a 202 reaching the client)",
				d, len(accepted), len(counts)-1, len(counts)-1-len(accepted))
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
					if i < 40 {
						fmt.Fprintf(&body, `{"message":"batch %d-%d event %d","level":"error","attributes":{"fingerprint":"batch-%d-%d"}}`, w, seq, i, w, seq)
					} else {
						fmt.Fprintf(&body, `{"message":"info %d-%d event %d"}`, w, seq, i)
					}
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
					accepted = append(accepted, fmt.Sprintf("batch-%d-%d", w, seq))
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

// waitDrained waits until the restarted server has processed the queue.
func waitDrained(t *testing.T, db *store.DB) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		batches, _, _, err := db.Read().Backlog(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if batches == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d batches still queued after %s", batches, wait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// groupCounts maps each group's fingerprint value (the batch name) to its
// event count. Custom fingerprints are hashed, so the batch name is read
// from the group's sample event.
func groupCounts(t *testing.T, db *store.DB, projectID string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	out := map[string]int64{}
	before := ""
	for {
		gs, err := db.Read().ListGroups(ctx, projectID, store.GroupFilter{}, before, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gs {
			evs, err := db.Read().ListGroupEvents(ctx, g.ID, 0, 1)
			if err != nil || len(evs) == 0 {
				t.Fatalf("group %s has no sample: %v", g.ID, err)
			}
			var attrs struct{ Fingerprint string }
			_ = json.Unmarshal([]byte(evs[0].Attributes), &attrs)
			if _, dup := out[attrs.Fingerprint]; dup {
				t.Errorf("batch %s has two groups", attrs.Fingerprint)
			}
			out[attrs.Fingerprint] = g.EventCount
		}
		if len(gs) < 100 {
			return out
		}
		before = gs[len(gs)-1].ID
	}
}

// infoCount sums the INFO events of every summary of a project.
func infoCount(t *testing.T, db *store.DB, projectID string) int64 {
	t.Helper()
	list, err := db.Read().ListInfoSummaries(context.Background(), projectID, nil, nil, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, s := range list {
		n += s.EventCount
	}
	return n
}
