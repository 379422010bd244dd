package cli_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestConcurrentMigrate starts four `errata migrate` processes at once on a
// fresh database, six times on SQLite and three on PostgreSQL: every one succeeds, and the schema
// they leave is exactly the one a lone migrate makes. Without the migration
// lock, PostgreSQL fails most rounds ("duplicate key value violates unique
// constraint pg_type_typname_nsp_index") and SQLite some ("table … already
// exists").
func TestConcurrentMigrate(t *testing.T) {
	t.Parallel()
	const processes = 4
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			// Unlocked, SQLite failed in the third of twenty rounds here and
			// PostgreSQL in the first; a locked PostgreSQL round costs a
			// second (goose tries the lock once a second).
			rounds := 6
			if d == store.Postgres {
				rounds = 3
			}
			want := schemaOf(t, d, freshDatabase(t, d, func(env []string) {
				if res := errata(t, t.TempDir(), env, "migrate"); res.code != 0 {
					t.Fatalf("lone migrate: code %d, stderr %s", res.code, res.stderr)
				}
			}))
			for round := 0; round < rounds; round++ {
				got := schemaOf(t, d, freshDatabase(t, d, func(env []string) {
					results := make([]result, processes)
					var wg sync.WaitGroup
					start := make(chan struct{})
					for i := range results {
						wg.Add(1)
						go func() {
							defer wg.Done()
							<-start
							results[i] = errata(t, t.TempDir(), env, "migrate")
						}()
					}
					close(start)
					wg.Wait()
					applied := 0
					for i, res := range results {
						if res.code != 0 {
							t.Fatalf("round %d: migrate %d of %d: code %d, stderr %s", round, i+1, processes, res.code, res.stderr)
						}
						applied += migrated(t, res.stderr)
					}
					if applied != len(want.versions) {
						t.Errorf("round %d: the processes applied %d migrations between them, want %d (each once)", round, applied, len(want.versions))
					}
				}))
				if g, w := got.String(), want.String(); g != w {
					t.Fatalf("round %d: schema after %d concurrent migrates:\n%s\nwant (a lone migrate):\n%s", round, processes, g, w)
				}
			}
		})
	}
}

// TestConcurrentServeStart starts four `errata serve` processes (workers and
// API processes on their own ports) at once on a fresh PostgreSQL database:
// all come up.
func TestConcurrentServeStart(t *testing.T) {
	t.Parallel()
	url := emptyPostgres(t)
	servers := make([]*server, 4)
	for i := range servers {
		role := "worker"
		if i%2 == 1 {
			role = "api"
		}
		servers[i] = startServeProcess(t, t.TempDir(), "ERRATA_DATABASE_URL="+url, "ERRATA_ROLES="+role,
			"ERRATA_ADDR=127.0.0.1:0", "ERRATA_GRPC_ADDR=off")
	}
	for i, s := range servers {
		s.log.waitFor(t, s.exited, "errata started")
		if code := s.stop(); code != 0 {
			t.Fatalf("process %d: exit code %d; log:\n%s", i, code, s.log)
		}
	}
	if s := schemaOf(t, store.Postgres, url); len(s.versions) == 0 || s.versions[len(s.versions)-1] != latestMigration(t) {
		t.Fatalf("schema versions %v, want up to %d", s.versions, latestMigration(t))
	}
}

// freshDatabase makes an empty database of dialect d, runs fill with the
// environment that selects it, and returns its URL.
func freshDatabase(t *testing.T, d store.Dialect, fill func(env []string)) string {
	t.Helper()
	url := "sqlite:" + filepath.Join(t.TempDir(), "errata.db")
	if d == store.Postgres {
		url = emptyPostgres(t)
	}
	fill([]string{"ERRATA_DATABASE_URL=" + url})
	return url
}

// schema is what a database's migrations made: the applied versions and
// every table, column and index.
type schema struct {
	versions []int64
	objects  []string
}

func (s schema) String() string {
	return fmt.Sprintf("versions %v\n%s", s.versions, strings.Join(s.objects, "\n"))
}

// schemaOf reads the schema of the database at url.
func schemaOf(t *testing.T, d store.Dialect, url string) schema {
	t.Helper()
	driver, dsn := "pgx", url
	objects := `SELECT 'table ' || table_name || '.' || column_name || ' ' || data_type FROM information_schema.columns WHERE table_schema = 'public'
		UNION ALL SELECT 'index ' || indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1`
	if d == store.SQLite {
		driver, dsn = "sqlite", strings.TrimPrefix(url, "sqlite:")
		objects = `SELECT type || ' ' || name || ' ' || COALESCE(sql, '') FROM sqlite_master ORDER BY 1`
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var s schema
	s.versions = queryColumn[int64](ctx, t, db, `SELECT version_id FROM goose_db_version WHERE version_id > 0 ORDER BY id`)
	s.objects = queryColumn[string](ctx, t, db, objects)
	return s
}

// queryColumn runs q and returns its one column.
func queryColumn[T any](ctx context.Context, t *testing.T, db *sql.DB, q string) []T {
	t.Helper()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// latestMigration is the highest migration the binary under test carries,
// as a lone migrate of a fresh SQLite database records it.
func latestMigration(t *testing.T) int64 {
	t.Helper()
	latestOnce.Do(func() {
		url := freshDatabase(t, store.SQLite, func(env []string) {
			if res := errata(t, t.TempDir(), env, "migrate"); res.code != 0 {
				t.Fatalf("migrate: code %d, stderr %s", res.code, res.stderr)
			}
		})
		v := schemaOf(t, store.SQLite, url).versions
		latest = v[len(v)-1]
	})
	return latest
}

var (
	latestOnce sync.Once
	latest     int64
)
