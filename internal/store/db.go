// Package store keeps Errata's data in SQLite (the embedded default) or
// PostgreSQL behind one set of queries. Queries are written once with "?"
// placeholders and rebound to "$n" for PostgreSQL; where the databases
// differ, the shared code asks its driver (dbDriver, driver.go) for a
// capability, and the per-database code lives in sqlite_*.go and
// postgres_*.go. Times are stored as Unix milliseconds (BIGINT) in both
// databases so that one code path reads and writes them.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Dialect names the database behind a DB.
type Dialect string

// The two supported databases.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is the store. On SQLite it holds one writer connection (SQLite allows one
// writer at a time; queueing in Go is cheaper than busy-waiting in SQLite) and
// a pool of readers; on PostgreSQL both are the same pool.
type DB struct {
	dialect Dialect
	drv     dbDriver // what the database does its own way (driver.go)
	write   *sql.DB
	read    *sql.DB
	// Path is the SQLite database file ("" on PostgreSQL).
	path string
	// stmts caches prepared statements by query text on SQLite, whose driver
	// would otherwise parse every statement anew (pgx caches on its own).
	wstmts, rstmts stmtCache
	// ckpt is SQLite's checkpointing connection.
	ckpt     *sql.DB
	stopCkpt chan struct{}
	ckptDone chan struct{}
	// walRestart is the WAL size, in bytes, past which the checkpointer
	// starts the WAL over (restartWAL).
	walRestart atomic.Int64
	// slow reports writes that hold the writer long (WarnSlowWrites).
	slow slowWatch
	// health is whether the last write failed for want of a database.
	health writeHealth
	// keys caches API keys on SQLite (keycache.go).
	keys keyCache
	// timeout bounds a request's statements and transactions on
	// PostgreSQL (BoundRequests, AsRequest); 0 on SQLite.
	timeout time.Duration
}

// Options tune Open.
type Options struct {
	// DataDir holds the SQLite database when URL is empty.
	DataDir string
	// URL is a postgres:// URL, a sqlite: file path, or empty for SQLite in DataDir.
	URL string
	// ReadConns bounds the SQLite read pool (default 4).
	ReadConns int
}

// Open connects to the database named by opts, creating the SQLite data
// directory when needed. It does not migrate; call Migrate.
func Open(ctx context.Context, opts Options) (*DB, error) {
	d, path, err := opts.target()
	if err != nil {
		return nil, err
	}
	return d.open(ctx, opts, path)
}

// target names the database opts select: its driver and, on SQLite, the
// file.
func (opts Options) target() (dbDriver, string, error) {
	switch {
	case strings.HasPrefix(opts.URL, "postgres://"), strings.HasPrefix(opts.URL, "postgresql://"):
		return postgresDriver{}, "", nil
	case opts.URL == "":
		return sqliteDriver{}, filepath.Join(opts.DataDir, "errata.db"), nil
	case strings.HasPrefix(opts.URL, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(opts.URL, "sqlite:"), "//")
		if path == "" {
			return nil, "", locationError{errors.New("store: the sqlite: URL names no file (ERRATA_DATABASE_URL); want sqlite:path/to/errata.db")}
		}
		return sqliteDriver{}, path, nil
	default:
		return nil, "", fmt.Errorf("store: unsupported database URL scheme (want postgres:// or sqlite:)")
	}
}

// Dialect reports which database is behind db.
func (db *DB) Dialect() Dialect { return db.dialect }

// Path is the SQLite database file, or "" on PostgreSQL.
func (db *DB) Path() string { return db.path }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return translate(db.write.PingContext(ctx)) }

// Close closes every connection.
func (db *DB) Close() error {
	if db.ckpt != nil {
		close(db.stopCkpt)
		<-db.ckptDone
		_, _ = db.ckpt.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
		_ = db.ckpt.Close()
	}
	for _, c := range []*stmtCache{&db.wstmts, &db.rstmts} {
		c.m.Range(func(_, v any) bool { _ = v.(*sql.Stmt).Close(); return true })
	}
	err := db.write.Close()
	if db.read != db.write {
		err = errors.Join(err, db.read.Close())
	}
	return err
}

// Read returns a Conn on the read pool, for queries that change nothing.
func (db *DB) Read() *Conn {
	return &Conn{run: db.read, dialect: db.dialect, drv: db.drv, pool: db.read, stmts: &db.rstmts, timeout: db.timeout}
}

// Write returns a Conn that runs each statement in its own transaction on the
// writer.
func (db *DB) Write() *Conn {
	return &Conn{run: db.write, dialect: db.dialect, drv: db.drv, pool: db.write, stmts: &db.wstmts, slow: &db.slow, health: &db.health, keys: &db.keys, timeout: db.timeout}
}

// Tx runs fn in one write transaction, committing when fn returns nil. fn must
// use only the Conn it is given: on SQLite another write would wait for this
// one forever.
//
// The time from its BEGIN to the end of its COMMIT or ROLLBACK is the time
// it held SQLite's one writer (BEGIN IMMEDIATE), or on PostgreSQL the row
// locks it took: past ERRATA_SLOW_TX_WARN it is logged (WarnSlowWrites).
func (db *DB) Tx(ctx context.Context, fn func(c *Conn) error) error {
	err := db.runTx(ctx, time.Now(), db.write.BeginTx, fn)
	if err == nil && db.drv.cachesStatements() {
		db.wstmts.prepareWanted(ctx, db.write)
	}
	return err
}

// TxAgain is Tx run again, up to four more times, while it loses a race
// with another transaction (LostRace: a deadlock with processing on
// PostgreSQL), for the changes a person asks for that touch rows
// processing writes (deleting a project or an organization): the person
// gets the answer, not a 409 to retry by hand. fn must do nothing outside
// its transaction.
func (db *DB) TxAgain(ctx context.Context, fn func(c *Conn) error) error {
	for attempt := 1; ; attempt++ {
		err := db.Tx(ctx, fn)
		if !LostRace(err) || attempt == 5 {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt*attempt) * 20 * time.Millisecond):
		}
	}
}

// runTx is Tx with the transaction begun by begin (on the writer pool or
// on a connection taken from it), asked for at asked.
func (db *DB) runTx(ctx context.Context, asked time.Time, begin func(context.Context, *sql.TxOptions) (*sql.Tx, error), fn func(c *Conn) error) error {
	// A request's transaction, its COMMIT included, ends within the
	// request timeout (AsRequest); each of its statements too.
	bctx, cancel, _ := bound(ctx, db.timeout)
	defer cancel()
	tx, err := begin(bctx, nil)
	if err != nil {
		err = silent(ctx, bctx, db.timeout, translate(err))
		db.health.note(err)
		return fmt.Errorf("store: begin: %w", err)
	}
	began := time.Now()
	var after []func()
	if err := fn(&Conn{run: tx, dialect: db.dialect, drv: db.drv, pool: db.write, stmts: &db.wstmts, tx: tx, keys: &db.keys, after: &after, timeout: db.timeout}); err != nil {
		err = silent(ctx, bctx, db.timeout, err)
		db.slow.committing(db.dialect)
		_ = tx.Rollback()
		db.slow.done(ctx, db.dialect, "transaction", began, began.Sub(asked), 0)
		db.health.note(err)
		return err
	}
	committing := time.Now()
	db.slow.committing(db.dialect)
	err = silent(ctx, bctx, db.timeout, translate(tx.Commit()))
	db.slow.done(ctx, db.dialect, "transaction", began, began.Sub(asked), time.Since(committing))
	db.health.note(err)
	if errors.Is(err, ErrUnavailable) {
		err = fmt.Errorf("%w: %w", ErrCommitUnknown, err)
	}
	if err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	for _, f := range after {
		f()
	}
	return nil
}

type runner interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Conn runs the store's queries on a pool or inside a transaction.
type Conn struct {
	run runner
	// dialect names the database, for logs; what differs between the
	// databases is asked of drv.
	dialect Dialect
	drv     dbDriver
	pool    *sql.DB
	stmts   *stmtCache
	tx      *sql.Tx // nil outside a transaction
	// slow, on the writer outside a transaction, reports statements
	// that hold the writer long (see DB.Tx for those inside one).
	slow *slowWatch
	// health, on the writer outside a transaction, is told how each
	// statement went (DB.Ready).
	health *writeHealth
	// keys is the cache of API keys that changes to keys and projects
	// make stale (keysChanged); after, inside a transaction, what runs
	// once it commits.
	keys  *keyCache
	after *[]func()
	// timeout bounds each statement of a request (AsRequest).
	timeout time.Duration
}

func (c *Conn) exec(ctx context.Context, q string, args ...any) (_ sql.Result, err error) {
	if c.slow != nil {
		start := time.Now()
		defer func() {
			// A statement whose context ended while it waited for the
			// writer never held it (a session touch gives up after
			// 100 ms): reporting it would blame the waiter for the wait.
			if err == nil || ctx.Err() == nil {
				c.slow.done(ctx, c.dialect, "statement", start, 0, 0)
			}
		}()
	}
	if c.health != nil {
		defer func() { c.health.note(err) }()
	}
	if bctx, cancel, ok := c.bounded(ctx); ok {
		defer cancel()
		defer func(ctx context.Context) { err = silent(ctx, bctx, c.timeout, err) }(ctx)
		ctx = bctx
	}
	if st := c.stmt(ctx, q); st != nil {
		res, err := st.ExecContext(ctx, args...)
		return res, translate(err)
	}
	res, err := c.run.ExecContext(ctx, c.drv.bind(q), args...)
	return res, translate(err)
}

// execOne runs a statement that must change exactly one row.
func (c *Conn) execOne(ctx context.Context, q string, args ...any) error {
	res, err := c.exec(ctx, q, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

func (c *Conn) query(ctx context.Context, q string, args ...any) (*boundRows, error) {
	// The rows outlive this call, so the deadline is stopped when they
	// are closed: a work context (AsWork) never ends, and a timer left
	// running would hold its context for WorkTimeouts request timeouts.
	bctx, cancel, _ := c.bounded(ctx)
	var r *sql.Rows
	var err error
	if st := c.stmt(bctx, q); st != nil {
		r, err = st.QueryContext(bctx, args...)
	} else {
		r, err = c.run.QueryContext(bctx, c.drv.bind(q), args...)
	}
	if err != nil {
		cancel()
		return nil, silent(ctx, bctx, c.timeout, translate(err))
	}
	return &boundRows{Rows: r, ctx: bctx, cancel: cancel}, nil
}

// boundRows is a query's *sql.Rows whose Close also stops the statement's
// deadline (bounded).
type boundRows struct {
	*sql.Rows
	ctx    context.Context // the statement's, for tests
	cancel context.CancelFunc
}

// Close closes the rows and stops their deadline.
func (r *boundRows) Close() error {
	err := r.Rows.Close()
	r.cancel()
	return err
}

func (c *Conn) queryRow(ctx context.Context, q string, args ...any) row {
	bctx, cancel, _ := c.bounded(ctx)
	r := row{ctx: ctx, bctx: bctx, cancel: cancel, timeout: c.timeout}
	if st := c.stmt(bctx, q); st != nil {
		r.r = st.QueryRowContext(bctx, args...)
	} else {
		r.r = c.run.QueryRowContext(bctx, c.drv.bind(q), args...)
	}
	return r
}

// row is a *sql.Row whose Scan translates driver errors (translate), so
// that a lost connection surfaces as ErrUnavailable and no row as
// ErrNotFound wherever a single row is read; a request's row is bounded
// by the request timeout (AsRequest) until it is scanned.
type row struct {
	r         *sql.Row
	ctx, bctx context.Context
	cancel    context.CancelFunc
	timeout   time.Duration
}

// Scan copies the row's columns into dest.
func (r row) Scan(dest ...any) error {
	defer r.cancel()
	return silent(r.ctx, r.bctx, r.timeout, translate(r.r.Scan(dest...)))
}

// stmtCache maps query text to a statement prepared on a pool. Inside a
// transaction the writer's only connection is busy, so a query met there
// for the first time runs unprepared and is prepared after the commit.
type stmtCache struct{ m, want sync.Map }

// prepareWanted prepares the queries met inside transactions.
func (sc *stmtCache) prepareWanted(ctx context.Context, pool *sql.DB) {
	sc.want.Range(func(k, _ any) bool {
		q := k.(string)
		sc.want.Delete(q)
		if _, ok := sc.m.Load(q); ok {
			return true
		}
		if st, err := pool.PrepareContext(ctx, q); err == nil {
			if _, loaded := sc.m.LoadOrStore(q, st); loaded {
				_ = st.Close()
			}
		}
		return true
	})
}

// maxCachedQuery keeps one-off queries (long generated IN lists, multi-row
// inserts) out of the cache.
const maxCachedQuery = 2048

// stmt returns the cached prepared statement of q on SQLite (bound to the
// transaction when there is one), or nil to run q directly.
func (c *Conn) stmt(ctx context.Context, q string) *sql.Stmt {
	if !c.drv.cachesStatements() || c.stmts == nil || len(q) > maxCachedQuery {
		return nil
	}
	v, ok := c.stmts.m.Load(q)
	if !ok && c.tx != nil {
		c.stmts.want.Store(q, true)
		return nil
	}
	if !ok {
		st, err := c.pool.PrepareContext(ctx, q)
		if err != nil {
			return nil // let the direct path report the error
		}
		if v, ok = c.stmts.m.LoadOrStore(q, st); ok {
			_ = st.Close()
		} else {
			v = st
		}
	}
	st := v.(*sql.Stmt)
	if c.tx != nil {
		return c.tx.StmtContext(ctx, st)
	}
	return st
}

// ms converts a time to the stored Unix milliseconds.
func ms(t time.Time) int64 { return t.UnixMilli() }

// fromMS converts stored Unix milliseconds to a UTC time.
func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// nullMS converts an optional time for storage.
func nullMS(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// fromNullMS converts an optional stored time.
func fromNullMS(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}
