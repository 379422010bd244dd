// Package storetest opens fresh, migrated databases for tests: a SQLite file
// in a temporary directory, and a PostgreSQL database created for the test on
// the server named by ERRATA_TEST_DATABASE_URL. Each runs every store test on
// both, so the two dialects cannot drift apart.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/errata-dev/errata/internal/store"
)

// EnvURL names the environment variable with the PostgreSQL server used by
// tests, e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const EnvURL = "ERRATA_TEST_DATABASE_URL"

// Dialects lists the databases every store-level test runs on.
var Dialects = []store.Dialect{store.SQLite, store.Postgres}

// Each runs fn as a subtest once per database, each time on a fresh, migrated
// database.
func Each(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	for _, d := range Dialects {
		t.Run(string(d), func(t *testing.T) {
			fn(t, Open(t, d))
		})
	}
}

// Open returns a fresh, migrated database of dialect d, closed and removed
// when the test ends.
func Open(t testing.TB, d store.Dialect) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.Options{URL: MigratedURL(t, d)})
	if err != nil {
		t.Fatalf("open %s: %v", d, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// URL creates a fresh, empty-but-migrated database of dialect d and returns
// the URL that store.Open takes (for SQLite: a file that does not exist yet).
// Tests that start a real server process pass it as ERRATA_DATABASE_URL.
func URL(t testing.TB, d store.Dialect) string {
	t.Helper()
	if d == store.SQLite {
		return "sqlite:" + filepath.Join(t.TempDir(), "errata.db")
	}
	base := PostgresBase(t)
	name := "errata_test_" + randomHex(6)
	admin := adminDB(t, base)
	tpl, err := template(base)
	if err != nil {
		t.Fatalf("postgres template: %v", err)
	}
	if _, err := admin.Exec(fmt.Sprintf(`CREATE DATABASE %s TEMPLATE %s`, name, tpl)); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, name))
	})
	return withDatabase(base, name)
}

// MigratedURL is URL with the schema in place on both databases: a SQLite
// file copied from one migrated once per test binary (migrating a file
// costs about half a second of fsyncs, which hundreds of server starts under
// the race detector added up to minutes), a PostgreSQL database as URL makes.
func MigratedURL(t testing.TB, d store.Dialect) string {
	t.Helper()
	if d != store.SQLite {
		return URL(t, d)
	}
	tpl, err := sqliteTemplate()
	if err != nil {
		t.Fatalf("sqlite template: %v", err)
	}
	path := filepath.Join(t.TempDir(), "errata.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(tpl + suffix)
		if suffix != "" && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			err = os.WriteFile(path+suffix, b, 0o600)
		}
		if err != nil {
			t.Fatalf("copy the sqlite template: %v", err)
		}
	}
	return "sqlite:" + path
}

// sqliteTemplate migrates one SQLite file per test binary.
func sqliteTemplate() (string, error) {
	sqliteTplOnce.Do(func() {
		var dir string
		if dir, sqliteTplErr = os.MkdirTemp("", "errata-storetest-"); sqliteTplErr != nil {
			return
		}
		sqliteTplPath = filepath.Join(dir, "errata.db")
		var db *store.DB
		if db, sqliteTplErr = store.Open(context.Background(), store.Options{URL: "sqlite:" + sqliteTplPath}); sqliteTplErr != nil {
			return
		}
		_, sqliteTplErr = db.Migrate(context.Background())
		if err := db.Close(); sqliteTplErr == nil {
			sqliteTplErr = err
		}
	})
	return sqliteTplPath, sqliteTplErr
}

// PostgresBase returns the test server's URL. Without one the test fails when
// CI=true and is skipped, with a message, elsewhere.
func PostgresBase(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvURL)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: PostgreSQL tests must run in CI", EnvURL)
		}
		skipped.Add(1)
		t.Skipf("PostgreSQL tests skipped: set %s (see README)", EnvURL)
	}
	return base
}

// skipped counts the tests of this package that skipped their PostgreSQL
// half; Cleanup reports them.
var skipped atomic.Int64

// reportSkipped says, in one line, that this package skipped its
// PostgreSQL half: go test shows nothing of a passing package but its "ok"
// line, so the line goes to the terminal when there is one (and to stderr,
// which -v shows, otherwise).
func reportSkipped() {
	n := skipped.Load()
	if n == 0 {
		return
	}
	pkg := filepath.Base(os.Args[0])
	pkg = strings.TrimSuffix(pkg, ".test")
	line := fmt.Sprintf("note: %s skipped the PostgreSQL half of %d tests: set %s (make test sets it; see README)\n", pkg, n, EnvURL)
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		_, _ = tty.WriteString(line)
		_ = tty.Close()
		return
	}
	_, _ = os.Stderr.WriteString(line)
}

var (
	adminOnce sync.Once
	admin     *sql.DB
	adminErr  error

	tplOnce sync.Once
	tplName string
	tplErr  error

	sqliteTplOnce sync.Once
	sqliteTplPath string
	sqliteTplErr  error
)

func adminDB(t testing.TB, base string) *sql.DB {
	t.Helper()
	adminOnce.Do(func() {
		admin, adminErr = sql.Open("pgx", base)
		if adminErr == nil {
			adminErr = admin.Ping()
		}
	})
	if adminErr != nil {
		t.Fatalf("connect to %s: %v", EnvURL, adminErr)
	}
	return admin
}

// template migrates one database per test binary and uses it as the template
// of every test database: copying it is much faster than migrating each.
func template(base string) (string, error) {
	tplOnce.Do(func() {
		tplName = "errata_tpl_" + randomHex(6)
		if _, tplErr = admin.Exec(`CREATE DATABASE ` + tplName); tplErr != nil {
			return
		}
		var db *store.DB
		db, tplErr = store.Open(context.Background(), store.Options{URL: withDatabase(base, tplName)})
		if tplErr != nil {
			return
		}
		_, tplErr = db.Migrate(context.Background())
		_ = db.Close()
	})
	return tplName, tplErr
}

// Cleanup drops the template databases; call it from TestMain after m.Run.
func Cleanup() {
	reportSkipped()
	if sqliteTplPath != "" {
		_ = os.RemoveAll(filepath.Dir(sqliteTplPath))
	}
	if admin != nil && tplName != "" {
		_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + tplName + ` WITH (FORCE)`)
	}
}

// Main runs a package's tests and then drops its template database.
func Main(m interface{ Run() int }) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// testConnectTimeout is the connect_timeout a test database's URL carries
// when the base URL sets none: on a loaded two-core CI machine a connection
// made while a hundred other tests start servers once took longer than the
// server's 5 s default, failing a test that was not about connecting.
// testproxy's URLs drop it, so outage tests see the default.
const testConnectTimeout = "30"

func withDatabase(base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	u.Path = "/" + name
	if q := u.Query(); !q.Has("connect_timeout") {
		q.Set("connect_timeout", testConnectTimeout)
		u.RawQuery = q.Encode()
	}
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
