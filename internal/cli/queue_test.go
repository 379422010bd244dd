package cli_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestQueueFailedAndRetry lists a batch set aside after five failures and
// puts it back, on both databases.
func TestQueueFailedAndRetry(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dir := t.TempDir()
			dbURL := storetest.URL(t, d)
			env := []string{"ERRATA_DATABASE_URL=" + dbURL}
			if d == store.SQLite { // PostgreSQL's test databases are made from a migrated template
				// A database no server made is said, not made empty to
				// answer from (the command pointed at the wrong place).
				for _, args := range [][]string{{"queue", "failed"}, {"org", "set-plan", id.New(id.Org), "team"}} {
					if res := errata(t, dir, env, args...); res.code != 1 || !strings.Contains(res.stderr, "`errata serve` or `errata migrate` makes it") {
						t.Fatalf("%s where there is no database: code %d, stdout %q, stderr %q", args, res.code, res.stdout, res.stderr)
					}
				}
				if res := errata(t, dir, env, "migrate"); res.code != 0 {
					t.Fatalf("migrate: code %d, stderr %q", res.code, res.stderr)
				}
			}
			if res := errata(t, dir, env, "queue", "failed"); res.code != 0 || !strings.Contains(res.stdout, "no batches are set aside") {
				t.Fatalf("queue failed on an empty queue: code %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
			}
			db, err := store.Open(ctx, store.Options{URL: dbURL})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			now := time.Now().UTC().Truncate(time.Millisecond)
			o := store.Org{ID: id.New(id.Org), Name: "o", Plan: "team", CreatedAt: now, UpdatedAt: now}
			p := store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "p", CreatedAt: now, UpdatedAt: now}
			if err := db.Write().CreateOrg(ctx, o); err != nil {
				t.Fatal(err)
			}
			if err := db.Write().CreateProject(ctx, p); err != nil {
				t.Fatal(err)
			}
			bs := []store.Batch{{ProjectID: p.ID, ReceivedAt: now, EventCount: 7, Payload: []byte("x")}}
			if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertBatches(ctx, bs) }); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 5; i++ {
				claimed, err := db.Write().ClaimBatches(ctx, now.Add(time.Duration(i)*time.Hour), now.Add(time.Duration(i)*time.Hour+time.Minute), 1)
				if err != nil || len(claimed) != 1 {
					t.Fatalf("claim %d: %v, %v", i, claimed, err)
				}
				if _, err := db.Write().RecordBatchFailure(ctx, claimed[0], "boom: the payload\nstack…", 5, now, now); err != nil {
					t.Fatal(err)
				}
			}
			batchID := strconv.FormatInt(bs[0].ID, 10)
			res := errata(t, dir, env, "queue", "failed")
			if res.code != 0 || !strings.Contains(res.stdout, batchID) || !strings.Contains(res.stdout, p.ID) || !strings.Contains(res.stdout, "boom: the payload …") {
				t.Fatalf("queue failed: code %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
			}
			if res := errata(t, dir, env, "queue", "retry"); res.code != 2 {
				t.Fatalf("queue retry without ids or --all: code %d, want 2", res.code)
			}
			if res := errata(t, dir, env, "queue", "retry", "nope"); res.code != 2 {
				t.Fatalf("queue retry nope: code %d, want 2", res.code)
			}
			if res := errata(t, dir, env, "queue", "retry", "999999"); res.code == 0 {
				t.Fatalf("queue retry of an unknown batch: code 0, stdout %q", res.stdout)
			}
			if res := errata(t, dir, env, "queue", "retry", batchID); res.code != 0 || !strings.Contains(res.stdout, "1 batches put back") {
				t.Fatalf("queue retry: code %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
			}
			if b, _, _, err := db.Read().Backlog(ctx); err != nil || b != 1 {
				t.Fatalf("backlog after retry = %d, %v; want 1", b, err)
			}
			if res := errata(t, dir, env, "queue", "retry", "--all"); res.code != 0 || !strings.Contains(res.stdout, "0 batches put back") {
				t.Fatalf("queue retry --all with none set aside: code %d, stdout %q", res.code, res.stdout)
			}
		})
	}
}

// TestAdminCommandsMigrateNothing: a command that works on a server's data
// does not migrate an older schema under the servers of its release (as
// `errata migrate` does, deliberately): it says so, exit 1, and the schema
// stays as it was.
func TestAdminCommandsMigrateNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "errata.db")
	env := []string{"ERRATA_DATABASE_URL=sqlite:" + path}
	if res := errata(t, dir, env, "migrate"); res.code != 0 {
		t.Fatalf("migrate: code %d, stderr %q", res.code, res.stderr)
	}
	latest := latestMigration(t)
	execSQLite(t, path, fmt.Sprintf(`DELETE FROM goose_db_version WHERE version_id = %d`, latest)) // as the release before left it
	want := fmt.Sprintf("schema version %d is older than this build's %d: run `errata migrate` first", latest-1, latest)
	for _, args := range [][]string{{"queue", "failed"}, {"user", "create", "--email", "a@example.com", "--password", "long enough"}} {
		if res := errata(t, dir, env, args...); res.code != 1 || !strings.Contains(res.stderr, want) {
			t.Fatalf("%s on an older schema: code %d, stdout %q, stderr %q; want 1 saying %q", args, res.code, res.stdout, res.stderr, want)
		}
	}
	if v := errata(t, dir, env, "version"); !strings.Contains(v.stdout, fmt.Sprintf("schema version %d ", latest-1)) {
		t.Fatalf("version after it: %q, want the schema left at %d", v.stdout, latest-1)
	}
}
