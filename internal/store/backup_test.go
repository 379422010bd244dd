package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestBackup copies a SQLite database while a writer keeps adding users:
// the copy is a whole, sound database holding a prefix of the users (every
// one created before the copy began, none half-written), readable by its
// owner only, with nothing beside it; an existing file is never overwritten.
func TestBackup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t, store.SQLite)
	dir := t.TempDir()
	for i := 0; i < 50; i++ {
		seedUser(t, db.Write(), fmt.Sprintf("before%d@example.com", i))
	}

	var created atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			u := store.User{ID: id.New(id.User), Email: fmt.Sprintf("during%d@example.com", i), Name: "N", PasswordHash: "h", CreatedAt: now, UpdatedAt: now}
			if err := db.Write().CreateUser(ctx, u); err != nil {
				t.Errorf("CreateUser during the backup: %v", err)
				return
			}
			created.Add(1)
		}
	}()
	dest := filepath.Join(dir, "copy.db")
	before := created.Load()
	info, err := store.Backup(ctx, store.Options{URL: "sqlite:" + db.Path()}, dest)
	after := created.Load()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("Backup: %v", err)
	}

	st, err := os.Stat(dest)
	if err != nil || st.Size() != info.Size || st.Mode().Perm() != 0o600 {
		t.Fatalf("copy: %v, %v; want size %d, mode 0600", st, err, info.Size)
	}
	if info.Schema.Version != info.Schema.Latest || info.Schema.Dialect != store.SQLite {
		t.Errorf("copy's schema = %+v, want SQLite at the latest version", info.Schema)
	}
	if e, _ := filepath.Glob(dest + "-*"); len(e) != 0 {
		t.Errorf("files beside the copy: %v", e)
	}
	copyDB, err := sql.Open("sqlite", dest)
	if err != nil {
		t.Fatal(err)
	}
	defer copyDB.Close()
	var check string
	if err := copyDB.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check of the copy = %q, %v", check, err)
	}
	var n, during int64
	if err := copyDB.QueryRow(`SELECT COUNT(*), COUNT(*) FILTER (WHERE email LIKE 'during%') FROM users`).Scan(&n, &during); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d users made during the copy were in it (%d made before it began, %d by its end)", during, before, after)
	if n-during != 50 || during < before || during > after {
		t.Errorf("copy holds %d users, %d of them made during the copy; want 50 made before and between %d and %d during", n, during, before, after)
	}
	var maxDuring int64 = -1
	_ = copyDB.QueryRow(`SELECT COALESCE(MAX(CAST(SUBSTR(email, 7, INSTR(email, '@') - 7) AS INTEGER)), -1) FROM users WHERE email LIKE 'during%'`).Scan(&maxDuring)
	if maxDuring != during-1 {
		t.Errorf("the copy's users made during it are not a prefix: %d of them, the last numbered %d", during, maxDuring)
	}

	src := store.Options{URL: "sqlite:" + db.Path()}
	if _, err := store.Backup(ctx, src, dest); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("Backup onto an existing file: %v, want a refusal", err)
	}
	if st2, _ := os.Stat(dest); st2.Size() != info.Size {
		t.Fatalf("the refused backup changed the existing file (size %d, was %d)", st2.Size(), info.Size)
	}
	if _, err := store.Backup(ctx, src, filepath.Join(dir, "missing", "copy.db")); err == nil {
		t.Fatal("Backup into a missing directory succeeded")
	}
	noDB := filepath.Join(dir, "nothing-here")
	if _, err := store.Backup(ctx, store.Options{DataDir: noDB}, filepath.Join(dir, "nothing.db")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Backup of a missing database: %v, want ErrNotFound", err)
	}
	for _, p := range []string{noDB, filepath.Join(dir, "nothing.db")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Backup of a missing database made %s", p)
		}
	}
}

// TestBackupPostgres: PostgreSQL is backed up with its own tools; Backup
// says so without connecting (the server named here does not exist).
func TestBackupPostgres(t *testing.T) {
	t.Parallel()
	dest := filepath.Join(t.TempDir(), "pg.db")
	if _, err := store.Backup(context.Background(), store.Options{URL: "postgres://postgres@127.0.0.1:1/none"}, dest); !errors.Is(err, store.ErrBackupUnsupported) {
		t.Fatalf("Backup on PostgreSQL: %v, want ErrBackupUnsupported", err)
	}
	if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Backup on PostgreSQL left a file: %v", err)
	}
}

// TestReadSchema reads where migrations stand without changing anything: a
// missing SQLite file is not created, an unreachable server is unavailable.
func TestReadSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "none", "errata.db")
	if _, err := store.ReadSchema(ctx, store.Options{URL: "sqlite:" + missing}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ReadSchema of a missing file: %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadSchema created %s", filepath.Dir(missing))
	}
	empty := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := store.ReadSchema(ctx, store.Options{URL: "sqlite:" + empty}); err != nil || s.Version != 0 || s.Latest < 12 {
		t.Fatalf("ReadSchema of an empty file = %+v, %v; want version 0 of at least 12", s, err)
	}
	if _, err := store.ReadSchema(ctx, store.Options{URL: "postgres://postgres@127.0.0.1:1/none?connect_timeout=5"}); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("ReadSchema of an unreachable server: %v, want ErrUnavailable", err)
	}
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			u := storetest.URL(t, d)
			db, err := store.Open(ctx, store.Options{URL: u})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			s, err := store.ReadSchema(ctx, store.Options{URL: u})
			if err != nil || s.Dialect != d || s.Version != s.Latest || s.Latest < 12 {
				t.Fatalf("ReadSchema = %+v, %v; want %s at its latest version", s, err, d)
			}
			if own, err := db.Schema(ctx); err != nil || own != s {
				t.Fatalf("Schema = %+v, %v; want %+v", own, err, s)
			}
		})
	}
}
