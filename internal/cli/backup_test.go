package cli_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

// Every batch the load sends: 40 errors of its own group, 10 INFO and 5
// debug events.
const batchErrors, batchInfo, batchDebug = 40, 10, 5

// TestBackupAndRestore backs a SQLite database up with `errata backup`
// while a real `errata serve` ingests into it from four clients, then
// restores the copy twice, as docs/operations.md says: into a fresh data
// directory, and in place of the original after the server was killed.
// Each restored server, once it has processed what the copy had queued,
// holds exactly the batches the copy held, every one whole (40 errors, 10
// INFO and 5 debug events: groups' event_count + summaries' event_count +
// debug_count), among them every batch answered 202 before the backup began
// and none sent after it ended; the accounts and keys came along, and
// PRAGMA integrity_check says ok.
func TestBackupAndRestore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	limits := []string{"ERRATA_INGEST_RATE_LIMIT=100000", "ERRATA_INGEST_RATE_BURST=100000"}
	s := startServe(t, dir, append([]string{"ERRATA_DATA_DIR=" + dataDir}, limits...)...)
	owner := s.must(http.StatusOK, "POST", "/v1/auth/sign-up/email", "", map[string]any{"email": "o@example.com", "password": "long enough", "name": "O"})
	token := owner["token"].(string)
	org := s.must(http.StatusCreated, "POST", "/v1/orgs", token, map[string]any{"name": "Acme"})["id"].(string)
	prj := s.must(http.StatusCreated, "POST", "/v1/orgs/"+org+"/projects", token, map[string]any{"name": "web"})["id"].(string)
	key := s.must(http.StatusCreated, "POST", "/v1/projects/"+prj+"/keys", token, map[string]any{"name": "k"})["key"].(string)

	load := startLoad(t, s.URL, key, 4)
	load.waitAccepted(t, 20)
	backupFile := filepath.Join(dir, "backup.db")
	began := time.Now()
	res := errata(t, dir, []string{"ERRATA_DATA_DIR=" + dataDir}, "backup", backupFile)
	ended := time.Now()
	load.waitAccepted(t, load.accepted()+20) // the server goes on ingesting past the copy
	load.stop()
	if res.code != 0 {
		t.Fatalf("errata backup: code %d, stderr %s", res.code, res.stderr)
	}
	st, err := os.Stat(backupFile)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`^wrote %s: %d bytes \(\d+\.\d [KM]iB\), schema version %d \(sqlite\)\n$`, regexp.QuoteMeta(backupFile), st.Size(), latestMigration(t))
	if !regexp.MustCompile(want).MatchString(res.stdout) {
		t.Errorf("backup said %q, want it to match %s", res.stdout, want)
	}
	if again := errata(t, dir, []string{"ERRATA_DATA_DIR=" + dataDir}, "backup", backupFile); again.code == 0 || !strings.Contains(again.stderr, "already exists") {
		t.Errorf("a second backup onto the same file: code %d, stderr %q; want a refusal", again.code, again.stderr)
	}
	checkIntegrity(t, backupFile)
	// A directory as the destination: a copy named by the time, in it.
	into := errata(t, dir, []string{"ERRATA_DATA_DIR=" + dataDir}, "backup", dir)
	named := regexp.MustCompile(`^wrote (` + regexp.QuoteMeta(dir) + `/errata-\d{8}T\d{6}Z\.db): `).FindStringSubmatch(into.stdout)
	if into.code != 0 || named == nil {
		t.Fatalf("backup into a directory: code %d, stdout %q, stderr %q; want errata-<time>.db in %s", into.code, into.stdout, into.stderr, dir)
	}
	checkIntegrity(t, named[1])
	held := eventsHeld(t, backupFile)
	sentBefore, ackedBefore := load.split(began, ended)
	t.Logf("the copy holds %d events; %d batches were answered 202 before the backup began, %d sent before it ended, %d sent in all",
		held, len(ackedBefore), len(sentBefore), len(load.batches))

	// Restore into a fresh data directory.
	fresh := filepath.Join(dir, "restored")
	copyFile(t, backupFile, filepath.Join(fresh, "errata.db"))
	first := checkRestored(t, dir, fresh, limits, prj, held, ackedBefore, sentBefore)

	// Restore in place of the original, after killing its server (SIGKILL)
	// while it may still be processing: its -wal must not outlive it.
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.exited
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(filepath.Join(dataDir, "errata.db"+suffix)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	copyFile(t, backupFile, filepath.Join(dataDir, "errata.db"))
	second := checkRestored(t, dir, dataDir, limits, prj, held, ackedBefore, sentBefore)
	if first != second {
		t.Errorf("restored in place: %d batches; into a fresh directory: %d", second, first)
	}
}

// checkRestored starts a server on the restored data directory, lets it
// process what the copy had queued, checks what it holds, and returns how
// many batches that is.
func checkRestored(t *testing.T, dir, dataDir string, env []string, prj string, held int64, ackedBefore, sentBefore map[string]bool) int {
	t.Helper()
	s := startServe(t, dir, append([]string{"ERRATA_DATA_DIR=" + dataDir}, env...)...)
	signed := s.must(http.StatusOK, "POST", "/v1/auth/sign-in/email", "", map[string]any{"email": "o@example.com", "password": "long enough"})
	s.must(http.StatusOK, "GET", "/v1/projects/"+prj, signed["token"].(string), nil)

	db, err := store.Open(context.Background(), store.Options{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	waitDrained(t, db)
	groups := groupCounts(t, db, prj)
	info, debug := summaryCounts(t, db, prj)
	_ = db.Close()
	if code := s.stop(); code != 0 {
		t.Fatalf("restored serve exit code %d; log:\n%s", code, s.log)
	}
	checkIntegrity(t, filepath.Join(dataDir, "errata.db"))

	var total int64
	for name, n := range groups {
		total += n
		if n != batchErrors {
			t.Errorf("%s: batch %s counted %d errors, want %d (whole, once)", dataDir, name, n, batchErrors)
		}
		if !sentBefore[name] {
			t.Errorf("%s: batch %s was sent after the backup ended, yet the copy holds it", dataDir, name)
		}
	}
	for name := range ackedBefore {
		if _, ok := groups[name]; !ok {
			t.Errorf("%s: batch %s was answered 202 before the backup began, yet the copy lacks it", dataDir, name)
		}
	}
	if n := int64(len(groups)); info != batchInfo*n || debug != batchDebug*n {
		t.Errorf("%s: %d INFO and %d debug events, want %d and %d (for %d whole batches)", dataDir, info, debug, batchInfo*n, batchDebug*n, n)
	}
	if total += info + debug; total != held {
		t.Errorf("%s: the restored server counts %d events, the copy held %d", dataDir, total, held)
	}
	return len(groups)
}

// eventsHeld counts the events a database file holds: processed (groups'
// event_count, summaries' event_count and debug_count) and still queued.
func eventsHeld(t *testing.T, path string) int64 {
	t.Helper()
	db := openQueryOnly(t, path)
	var n int64
	err := db.QueryRow(`SELECT (SELECT COALESCE(SUM(event_count), 0) FROM error_groups)
		+ (SELECT COALESCE(SUM(event_count + debug_count), 0) FROM info_summaries)
		+ (SELECT COALESCE(SUM(event_count), 0) FROM ingest_batches WHERE failed_at IS NULL)`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkIntegrity runs PRAGMA integrity_check on a database file.
func checkIntegrity(t *testing.T, path string) {
	t.Helper()
	db := openQueryOnly(t, path)
	var res string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check of %s = %q, %v; want ok", path, res, err)
	}
}

// openQueryOnly opens a SQLite file for reading, closed when the test ends.
func openQueryOnly(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// summaryCounts sums a project's INFO summaries: INFO and debug events.
func summaryCounts(t *testing.T, db *store.DB, projectID string) (info, debug int64) {
	t.Helper()
	list, err := db.Read().ListInfoSummaries(context.Background(), projectID, nil, nil, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		info += s.EventCount
		debug += s.DebugCount
	}
	return info, debug
}

// copyFile copies src to dst, making dst's directory.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// load sends batches from several clients until stopped, recording when
// each was sent and whether, and when, it was answered 202.
type load struct {
	mu      sync.Mutex
	batches []sentBatch
	changed chan struct{}
	done    chan struct{}
	wg      sync.WaitGroup
}

type sentBatch struct {
	name        string
	sent, acked time.Time // acked is zero unless answered 202
}

func startLoad(t *testing.T, baseURL, key string, clients int) *load {
	t.Helper()
	l := &load{changed: make(chan struct{}), done: make(chan struct{})}
	client := &http.Client{Timeout: wait}
	for w := 0; w < clients; w++ {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for seq := 0; ; seq++ {
				select {
				case <-l.done:
					return
				default:
				}
				name := fmt.Sprintf("batch-%d-%d", w, seq)
				req, _ := http.NewRequest("POST", baseURL+"/v1/ingest", batchBody(name))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				b := sentBatch{name: name, sent: time.Now()}
				res, err := client.Do(req)
				if err != nil {
					t.Errorf("ingest %s: %v", name, err)
					return
				}
				_ = res.Body.Close()
				if res.StatusCode == http.StatusAccepted {
					b.acked = time.Now()
				} else {
					t.Errorf("ingest %s = %d, want 202", name, res.StatusCode)
				}
				l.mu.Lock()
				l.batches = append(l.batches, b)
				close(l.changed)
				l.changed = make(chan struct{})
				l.mu.Unlock()
			}
		}()
	}
	return l
}

// batchBody is one batch of the load, its errors grouped by its name.
func batchBody(name string) io.Reader {
	var body bytes.Buffer
	fmt.Fprintf(&body, `{"service":"backup","events":[`)
	for i := 0; i < batchErrors+batchInfo+batchDebug; i++ {
		if i > 0 {
			body.WriteByte(',')
		}
		switch {
		case i < batchErrors:
			fmt.Fprintf(&body, `{"message":"%s event %d","level":"error","attributes":{"fingerprint":%q}}`, name, i, name)
		case i < batchErrors+batchInfo:
			fmt.Fprintf(&body, `{"message":"info %s event %d"}`, name, i)
		default:
			fmt.Fprintf(&body, `{"message":"debug %s event %d","level":"debug"}`, name, i)
		}
	}
	body.WriteString(`]}`)
	return &body
}

func (l *load) accepted() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, b := range l.batches {
		if !b.acked.IsZero() {
			n++
		}
	}
	return n
}

// waitAccepted waits until n batches were answered 202.
func (l *load) waitAccepted(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(wait)
	for {
		l.mu.Lock()
		changed := l.changed
		l.mu.Unlock()
		if l.accepted() >= n {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("only %d batches accepted within %s, want %d", l.accepted(), wait, n)
		}
	}
}

func (l *load) stop() {
	close(l.done)
	l.wg.Wait()
}

// split names the batches sent before ended and those answered 202 before
// began.
func (l *load) split(began, ended time.Time) (sentBefore, ackedBefore map[string]bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sentBefore, ackedBefore = map[string]bool{}, map[string]bool{}
	for _, b := range l.batches {
		if b.sent.Before(ended) {
			sentBefore[b.name] = true
		}
		if !b.acked.IsZero() && b.acked.Before(began) {
			ackedBefore[b.name] = true
		}
	}
	return sentBefore, ackedBefore
}
