package store

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteDriver is the store on a SQLite file: one process owns it, one
// writer connection writes, and queries are in-process calls on prepared
// statements the store caches.
type sqliteDriver struct{}

func (sqliteDriver) name() Dialect { return SQLite }

// open creates the data directory when the file is the default one in it.
func (sqliteDriver) open(ctx context.Context, opts Options, path string) (*DB, error) {
	if opts.URL == "" {
		if err := os.MkdirAll(opts.DataDir, 0o750); err != nil {
			return nil, locationError{fmt.Errorf("store: create data directory (ERRATA_DATA_DIR): %w", err)}
		}
	} else if dir := filepath.Dir(path); path != ":memory:" {
		// A file named by the URL is created, its directory is not: say
		// so rather than SQLite's "unable to open database file".
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil, locationError{fmt.Errorf("store: open sqlite %s: the directory %s does not exist (ERRATA_DATABASE_URL); create it, or use ERRATA_DATA_DIR, whose directory is created", path, dir)}
		}
	}
	db, err := openSQLite(ctx, path, opts.ReadConns)
	if err != nil && strings.Contains(err.Error(), "unable to open database file") {
		// A directory, or a path through a file: where the settings put
		// the database, not a failure of the moment.
		setting := "ERRATA_DATABASE_URL"
		if opts.URL == "" {
			setting = "ERRATA_DATA_DIR"
		}
		return nil, locationError{fmt.Errorf("store: open sqlite %s: cannot open or create the database file there (%s): %w", path, setting, err)}
	}
	return db, err
}

func (sqliteDriver) bind(q string) string        { return q }
func (sqliteDriver) cachesStatements() bool      { return true }
func (sqliteDriver) oneWriter() bool             { return true }
func (sqliteDriver) sharedByProcesses() bool     { return false }
func (sqliteDriver) roundTrips() bool            { return false }
func (sqliteDriver) file() bool                  { return true }
func (sqliteDriver) rowLock() string             { return "" }
func (sqliteDriver) skipLocked() string          { return "" }
func (sqliteDriver) durabilityQuery() string     { return `PRAGMA synchronous` }
func (sqliteDriver) migrationDir() string        { return "migrations/sqlite" }
func (sqliteDriver) gooseDialect() goose.Dialect { return goose.DialectSQLite3 }

func (sqliteDriver) lockKey(context.Context, *Conn, int64) error { return nil }

func (sqliteDriver) lockName(context.Context, *Conn, int, string) error { return nil }

func (sqliteDriver) waitTurn(_ context.Context, _ *Conn, _ time.Duration, take func() error) error {
	return take()
}

// durableCommit has nothing to do: every connection but TxRedone's runs
// with synchronous=FULL (openSQLite).
func (sqliteDriver) durableCommit(context.Context, *Conn) error { return nil }

// lazyTx runs the transaction with synchronous=NORMAL on the writer, and
// sets FULL back before the writer goes back to the pool: its WAL frames
// reach the disk with the next commit that waits, or before the next
// checkpoint.
func (sqliteDriver) lazyTx(ctx context.Context, db *DB, asked time.Time, fn func(c *Conn) error) error {
	conn, err := db.write.Conn(ctx) // the writer: the pool has one
	if err != nil {
		return fmt.Errorf("store: begin: %w", translate(err))
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		_ = conn.Close()
		return fmt.Errorf("store: lazy commit: %w", translate(err))
	}
	err = db.runTx(ctx, asked, conn.BeginTx, fn)
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = FULL`); rerr != nil {
		// Never hand the writer back without FULL: the pool closes a
		// connection reported bad, and the next one opens with FULL.
		_ = conn.Raw(func(any) error { return sqldriver.ErrBadConn })
	}
	_ = conn.Close()
	if err == nil {
		db.wstmts.prepareWanted(ctx, db.write)
	}
	return err
}

func (sqliteDriver) contains(col string) string { return "instr(" + col + ", ?) > 0" }

// number takes text made of digits, signs, points and exponents, with a
// digit, for a number (SQLite has no regular expressions): CAST reads the
// number it begins with.
func (sqliteDriver) number(expr string, args []any) (string, []any, string) {
	return "(CASE WHEN " + expr + " GLOB '*[0-9]*' AND NOT " + expr + " GLOB '*[^0-9.eE+-]*' THEN CAST(" + expr + " AS REAL) END)",
		append(append(append([]any{}, args...), args...), args...), "CAST(? AS REAL)"
}

// jsonText is a string's text, else the value's JSON text as written (true,
// 12345678901234567890, 1.50), as PostgreSQL's #>> reads them:
// json_extract would give 1 for true and a float for a large integer.
func (sqliteDriver) jsonText(col string, path []string) (string, []any) {
	p := `$."` + strings.Join(path, `"."`) + `"`
	return "(CASE json_type(" + col + ", ?) WHEN 'text' THEN json_extract(" + col + ", ?) WHEN 'null' THEN NULL ELSE " + col + " -> ? END)", []any{p, p, p}
}

// insertProjectQuery reads the next number from a counter row in the
// INSERT statement itself; a trigger moves the counter on (migration
// 00013).
func (sqliteDriver) insertProjectQuery() string {
	return `INSERT INTO projects (id, organization_id, name, slug, created_at, updated_at, number)
			VALUES (?, ?, ?, ?, ?, ?, (SELECT last + 1 FROM project_number_seq)) RETURNING number`
}

// insertBatches writes sqliteBatchRows batches a statement pair.
func (sqliteDriver) insertBatches(ctx context.Context, c *Conn, batches []Batch) error {
	for start := 0; start < len(batches); start += sqliteBatchRows {
		if err := c.insertBatchesSQLite(ctx, batches[start:min(start+sqliteBatchRows, len(batches))]); err != nil {
			return err
		}
	}
	return nil
}

// lockMigrations locks the file errata.db.lock beside the database: goose
// runs each migration in a transaction of its own, so SQLite's own locks
// cannot hold across them.
func (sqliteDriver) lockMigrations(ctx context.Context, db *DB) (func(), error) {
	return lockFile(ctx, db.path+migrationLockFile, migrationLockWait)
}

func (sqliteDriver) gooseOptions() ([]goose.ProviderOption, error) { return nil, nil }

// openSchema opens the file read-only, with errors ReadSchema returns as
// they are; a file that does not exist is
// missingDB, not a new database.
func (sqliteDriver) openSchema(_ Options, path string) (*sql.DB, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, missingDB(path)
	} else if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	conn, err := sql.Open("sqlite", "file:"+fileURI(path)+"?_pragma=query_only(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	return conn, nil
}

func (sqliteDriver) versionTableExists() string {
	return `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'goose_db_version'`
}

func openSQLite(ctx context.Context, path string, readConns int) (*DB, error) {
	if readConns <= 0 {
		readConns = 4
	}
	pragmas := url.Values{}
	// busy_timeout comes first: the driver applies the pragmas in order, and
	// journal_mode(WAL) takes a lock, so ahead of the timeout it failed at once
	// with SQLITE_BUSY while another process was switching a fresh file to
	// WAL (four `errata migrate` at once, on a loaded machine).
	// synchronous=FULL: a commit returns once the WAL is on disk (202 means
	// durable). journal_size_limit truncates the WAL back to 64 MiB after each
	// reset, so it does not grow without bound under a steady write load.
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "foreign_keys(1)", "synchronous(FULL)", "journal_size_limit(67108864)"} {
		pragmas.Add("_pragma", p)
	}
	wq := url.Values{"_txlock": {"immediate"}}
	for k, v := range pragmas {
		wq[k] = append([]string(nil), v...)
	}
	// The writer does not checkpoint: SQLite would do it inside whichever
	// commit crosses the threshold, stalling that request. A connection of
	// its own checkpoints in the background instead (checkpointer).
	wq.Add("_pragma", "wal_autocheckpoint(0)")
	// The writer keeps 32 MiB of pages rather than SQLite's 2 MiB: the
	// value counts' upserts land all over group_facets and its index, and
	// with the default cache each one read its pages back from the OS. On
	// issue 28's whole-server run this took 19 % more events a second (and
	// 40 % more end to end with varied values), for about 45 MB of peak RSS
	// (docs/decisions.md, "The writer's page cache").
	wq.Add("_pragma", "cache_size(-32768)")
	// temp_store(MEMORY): the writer's temporary files stay in memory. The
	// one that matters is the statement journal SQLite keeps for each
	// multi-row upsert inside a transaction (the page images it would
	// restore if the statement failed half-way): past 64 KiB it went to a
	// file, one pwrite a page, about a tenth of processing's CPU with varied
	// values (docs/decisions.md, "The writer's temporary files"). What the
	// writer's statements keep there is bounded by what one statement
	// changes; backups run on a connection of their own.
	wq.Add("_pragma", "temp_store(MEMORY)")
	uriPath := fileURI(path)
	w, err := sql.Open("sqlite", "file:"+uriPath+"?"+wq.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	if err := pingWriter(ctx, w); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	pragmas.Add("_pragma", "query_only(1)")
	r, err := sql.Open("sqlite", "file:"+uriPath+"?"+pragmas.Encode())
	if err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("store: open sqlite readers: %w", err)
	}
	r.SetMaxOpenConns(readConns)
	r.SetMaxIdleConns(readConns)
	pragmas.Del("_pragma")
	for _, p := range []string{"busy_timeout(10000)", "synchronous(FULL)", "journal_size_limit(67108864)"} {
		pragmas.Add("_pragma", p)
	}
	cp, err := sql.Open("sqlite", "file:"+uriPath+"?"+pragmas.Encode())
	if err != nil {
		_ = w.Close()
		_ = r.Close()
		return nil, fmt.Errorf("store: open sqlite checkpointer: %w", err)
	}
	cp.SetMaxOpenConns(1)
	db := &DB{dialect: SQLite, drv: sqliteDriver{}, write: w, read: r, path: path, ckpt: cp, stopCkpt: make(chan struct{}), ckptDone: make(chan struct{})}
	db.keys.enable() // one process owns the file: every change to a key goes through it
	db.walRestart.Store(walRestartBytes)
	go db.checkpointer()
	return db, nil
}

// openBusyWait bounds how long pingWriter retries an open that SQLite
// refused with SQLITE_BUSY.
const openBusyWait = 30 * time.Second

// pingWriter opens the writer's connection, which applies its pragmas.
// Switching a fresh file to WAL upgrades a read lock to an exclusive one,
// and when two processes do that at once SQLite answers one of them
// SQLITE_BUSY at once rather than wait (busy_timeout cannot break that
// deadlock): it happened to one of four `errata migrate` started together
// on a loaded machine. The open is tried again, with a short pause, until
// openBusyWait has passed; any other error is returned at once.
func pingWriter(ctx context.Context, w *sql.DB) error {
	deadline := time.Now().Add(openBusyWait)
	for pause := 10 * time.Millisecond; ; pause = min(2*pause, 500*time.Millisecond) {
		err := w.PingContext(ctx)
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}

// fileURI is path escaped for a file: URI, where "?" and "#" would end it.
func fileURI(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

func (sqliteDriver) rowAddress() string { return "rowid" }

// groupWord looks w up in the FTS5 trigram table group_search, whose phrase
// of w's trigrams is "contains w, any case"; a word too short for a
// trigram is not indexed.
func (sqliteDriver) groupWord(g, w string, _ bool) (string, any, bool) {
	if utf8.RuneCountInString(w) < ftsMinRunes {
		return "", nil, false
	}
	return g + "rowid IN (SELECT rowid FROM group_search WHERE group_search MATCH ?)", ftsPhrase(w), true
}

func (sqliteDriver) wordLookupDrivesList() bool { return true }
