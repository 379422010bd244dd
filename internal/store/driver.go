package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"time"

	"github.com/pressly/goose/v3"
)

// dbDriver is the seam between the store's shared queries and the database
// behind them (riverqueue/river's driver pattern). Every query both
// databases run alike is written once, with "?" placeholders, in the file
// of its subject; where they differ, the shared code asks the driver for a
// capability named for what it does (rowLock, skipLocked, roundTrips,
// lockName, …) or hands it a whole algorithm (claimBatches,
// claimDeliveries), written out per database in sqlite_*.go and
// postgres_*.go. The shared code never tests which database it runs on.
//
// A new difference between the databases becomes a method here, with
// one implementation in each of sqliteDriver and postgresDriver, and the
// conformance test (driver_test.go) runs the contract on both.
type dbDriver interface {
	// name is the database's Dialect, for logs, Schema and tests.
	name() Dialect
	// open connects to the database of opts (path: the SQLite file).
	open(ctx context.Context, opts Options, path string) (*DB, error)
	// bind rewrites a query written with "?" placeholders for the database.
	bind(q string) string

	// cachesStatements reports whether the store prepares each query once
	// and keeps it (SQLite, whose driver would parse every statement anew;
	// pgx caches on its own).
	cachesStatements() bool
	// oneWriter reports whether write transactions run one at a time on a
	// single writer connection, so that a write waits for the one before.
	oneWriter() bool
	// sharedByProcesses reports whether several processes may use the
	// database at once, so that leases and locks must hold between them
	// (PostgreSQL). A SQLite file is owned by one process.
	sharedByProcesses() bool
	// roundTrips reports whether each statement costs a round trip to a
	// server, so that one larger statement beats several small ones. On
	// SQLite a statement is an in-process call on a cached prepared
	// statement, and small ones win.
	roundTrips() bool
	// file reports whether the database is a file this process opens,
	// which Backup can copy.
	file() bool

	// rowLock is the clause that locks the rows a transaction reads to
	// write back: under READ COMMITTED two workers applying batches of one
	// group would otherwise both add to the same old count. SQLite has one
	// writer, so its transactions never interleave: "".
	rowLock() string
	// skipLocked is the clause that locks the rows a claim takes and skips
	// those other claims hold, so that two schedulers never take one row.
	skipLocked() string
	// lockKey takes the advisory lock key until the end of c's
	// transaction, against every process on the database; lockName takes
	// the lock of a name within a class of them. Where one process owns the
	// database they do nothing: its one writer already serialises.
	lockKey(ctx context.Context, c *Conn, key int64) error
	lockName(ctx context.Context, c *Conn, class int, name string) error
	// waitTurn runs take, which takes a lock, waiting up to wait for it
	// however short the session's lock_timeout, and then restores the
	// session's lock_timeout for the rest of c's transaction: for locks
	// whose holders do short work but may queue many deep (an
	// organization's invitations fired together). Where one process owns
	// the database it just runs take.
	waitTurn(ctx context.Context, c *Conn, wait time.Duration, take func() error) error
	// durableCommit makes c's transaction wait for the disk when it
	// commits, whatever the server's default.
	durableCommit(ctx context.Context, c *Conn) error
	// durabilityQuery reads the setting durableCommit sets.
	durabilityQuery() string
	// lazyTx runs fn in one write transaction whose commit does not wait
	// for the disk (TxRedone).
	lazyTx(ctx context.Context, db *DB, asked time.Time, fn func(c *Conn) error) error

	// contains is the condition that text column col contains the text
	// of its one placeholder, case and all (SQLite's LIKE ignores the
	// case of ASCII letters, PostgreSQL's does not).
	contains(col string) string
	// foldContains is the condition that text column col contains w,
	// ignoring case (beyond ASCII too), and its one argument.
	foldContains(col, w string) (string, any)
	// jsonText is the text at path in the JSON column col, and the
	// argument of the expression's one placeholder.
	jsonText(col string, path []string) (expr string, args []any)
	// number is the number the text expression expr (with its args)
	// holds as written (12, -3.5, 1e3), NULL when it holds none, and
	// param, a parameter of the same type for it to be compared with.
	number(expr string, args []any) (num string, numArgs []any, param string)
	// groupWord is the condition, on the group columns of alias g, that
	// finds the free word w through the group_search index of migration
	// 00052; ok is false when the index cannot find w (the caller scans).
	// With recheck, the condition must not be answered from the index: the
	// query's index word already narrowed the rows, and the others are
	// cheaper checked on them than intersected from index scans of their own.
	groupWord(g, w string, recheck bool) (cond string, arg any, ok bool)
	// wordLookupDrivesList reports whether a list's free words are one
	// look-up in a separate index that should drive the query (SQLite's
	// FTS5 table), rather than a condition on the group's row.
	wordLookupDrivesList() bool
	// rowAddress is the column that addresses a row of any table, for
	// statements that work through a table in chunks (rowid, ctid).
	rowAddress() string
	// insertProjectQuery inserts a project with the installation's next
	// number and returns the number (InsertProject).
	insertProjectQuery() string

	// insertBatches adds batches to the queue inside c's transaction.
	insertBatches(ctx context.Context, c *Conn, batches []Batch) error
	// claimBatches leases queued batches (Conn.ClaimBatches).
	claimBatches(ctx context.Context, c *Conn, now, leaseUntil time.Time, n int) ([]Batch, error)
	// claimDeliveries leases due deliveries (Conn.ClaimDeliveries).
	claimDeliveries(ctx context.Context, c *Conn, now, leaseUntil time.Time, perChannel, limit int, exclude []string) ([]Delivery, error)

	// migrationDir is the folder of the embedded migrations.
	migrationDir() string
	// gooseDialect is the dialect goose migrates with.
	gooseDialect() goose.Dialect
	// lockMigrations holds the database-wide migration lock, where goose
	// cannot take it, until unlock is called (Migrate).
	lockMigrations(ctx context.Context, db *DB) (unlock func(), err error)
	// gooseOptions are the options of the goose provider: the lock goose
	// takes, where it takes one.
	gooseOptions() ([]goose.ProviderOption, error)
	// openSchema opens a connection to read the schema version of the
	// database of opts, creating nothing (ReadSchema); its errors are
	// ReadSchema's.
	openSchema(opts Options, path string) (*sql.DB, error)
	// versionTableExists counts goose's version table: 0 or 1.
	versionTableExists() string
}

// drivers maps each Dialect to its driver.
var drivers = map[Dialect]dbDriver{SQLite: sqliteDriver{}, Postgres: postgresDriver{}}

// driverOf is the dbDriver of dialect d.
func driverOf(d Dialect) dbDriver { return drivers[d] }

// Dir is the directory of the database file, whose disk the queue's
// monitor watches, or "" for a database on a server.
func (db *DB) Dir() string {
	if db.path == "" {
		return ""
	}
	return filepath.Dir(db.path)
}

// SingleProcess reports whether one process at a time uses the database
// (SQLite: the file its process owns), so that the leases found when a
// process starts were left by one that has stopped.
func (db *DB) SingleProcess() bool { return !db.drv.sharedByProcesses() }

// ConcurrentWrites reports whether write transactions run side by side
// (PostgreSQL) rather than one after the other on one writer (SQLite),
// so that more than one committer is worth running.
func (db *DB) ConcurrentWrites() bool { return !db.drv.oneWriter() }
