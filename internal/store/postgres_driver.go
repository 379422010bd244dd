package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// postgresDriver is the store on a PostgreSQL server: several processes
// share it, transactions write side by side under row and advisory locks,
// and every statement is a round trip.
type postgresDriver struct{}

func (postgresDriver) name() Dialect { return Postgres }

func (postgresDriver) open(ctx context.Context, opts Options, _ string) (*DB, error) {
	return openPostgres(ctx, opts.URL)
}

// bind turns "?" placeholders into PostgreSQL's "$1, $2, …". Our queries
// never hold a literal question mark; a query written with "$n" has none.
func (postgresDriver) bind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

func (postgresDriver) cachesStatements() bool      { return false }
func (postgresDriver) oneWriter() bool             { return false }
func (postgresDriver) sharedByProcesses() bool     { return true }
func (postgresDriver) roundTrips() bool            { return true }
func (postgresDriver) file() bool                  { return false }
func (postgresDriver) rowLock() string             { return " FOR UPDATE" }
func (postgresDriver) skipLocked() string          { return " FOR UPDATE SKIP LOCKED" }
func (postgresDriver) durabilityQuery() string     { return `SHOW synchronous_commit` }
func (postgresDriver) migrationDir() string        { return "migrations/postgres" }
func (postgresDriver) gooseDialect() goose.Dialect { return goose.DialectPostgres }

func (postgresDriver) lockKey(ctx context.Context, c *Conn, key int64) error {
	_, err := c.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, key)
	return err
}

func (postgresDriver) lockName(ctx context.Context, c *Conn, class int, name string) error {
	_, err := c.exec(ctx, `SELECT pg_advisory_xact_lock(?, hashtext(?))`, class, name)
	return err
}

// waitTurn raises lock_timeout for the transaction while take waits for
// its lock, then sets it back to the session's value (the default, or the
// one in the database URL).
func (postgresDriver) waitTurn(ctx context.Context, c *Conn, wait time.Duration, take func() error) error {
	if _, err := c.exec(ctx, `SELECT set_config('lock_timeout', ?, true)`, fmt.Sprintf("%dms", wait.Milliseconds())); err != nil {
		return err
	}
	if err := take(); err != nil {
		return err
	}
	_, err := c.exec(ctx, `SET LOCAL lock_timeout TO DEFAULT`)
	return err
}

// durableCommit sets synchronous_commit on for the transaction: a 202
// promises durability whatever the server's default.
func (postgresDriver) durableCommit(ctx context.Context, c *Conn) error {
	_, err := c.exec(ctx, `SET LOCAL synchronous_commit TO on`)
	return err
}

// lazyTx runs the transaction with synchronous_commit off.
func (postgresDriver) lazyTx(ctx context.Context, db *DB, asked time.Time, fn func(c *Conn) error) error {
	return db.runTx(ctx, asked, db.write.BeginTx, func(c *Conn) error {
		if _, err := c.exec(ctx, `SET LOCAL synchronous_commit TO off`); err != nil {
			return fmt.Errorf("store: lazy commit: %w", err)
		}
		return fn(c)
	})
}

func (postgresDriver) contains(col string) string { return "strpos(" + col + ", ?) > 0" }

// foldContains is ILIKE: PostgreSQL lower-cases by the database's locale.
func (postgresDriver) foldContains(col, w string) (string, any) {
	return col + " ILIKE ?", contains(w)
}

// number reads a number as written into numeric, whose range takes any
// exponent of four digits (double precision would fail the query on
// 1e999); CASE decides before the cast is tried. The pattern has no
// question mark, which the statement's placeholders would take.
func (postgresDriver) number(expr string, args []any) (string, []any, string) {
	return "(CASE WHEN " + expr + ` ~ '^[-+]{0,1}([0-9]+([.][0-9]*){0,1}|[.][0-9]+)([eE][-+]{0,1}[0-9]{1,4}){0,1}$' THEN CAST(` + expr + " AS numeric) END)",
		append(append([]any{}, args...), args...), "CAST(? AS numeric)"
}

// jsonText reads col as json, not jsonb, which would rewrite a number
// (1e3 as 1000) where SQLite and the value counts keep it as written.
func (postgresDriver) jsonText(col string, path []string) (string, []any) {
	return "(CAST(" + col + " AS json) #>> CAST(? AS text[]))", []any{`{"` + strings.Join(path, `","`) + `"}`}
}

// insertProjectQuery takes the number from the column's sequence.
func (postgresDriver) insertProjectQuery() string {
	return `INSERT INTO projects (id, organization_id, name, slug, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING number`
}

// insertBatches makes the transaction durable, then writes one batch with
// two statements (reserving its id would be a third round trip) and more
// with insertBatchesPostgres's three.
func (d postgresDriver) insertBatches(ctx context.Context, c *Conn, batches []Batch) error {
	if err := d.durableCommit(ctx, c); err != nil {
		return fmt.Errorf("store: durable commit: %w", err)
	}
	switch len(batches) {
	case 0:
		return nil
	case 1:
		return c.insertBatch(ctx, &batches[0])
	}
	return c.insertBatchesPostgres(ctx, batches)
}

// lockMigrations has nothing to do: goose holds a session advisory lock
// while it migrates (gooseOptions).
func (postgresDriver) lockMigrations(context.Context, *DB) (func(), error) { return func() {}, nil }

// gooseOptions make goose hold the session advisory lock migrationLockID,
// trying once a second: a process that waited starts soon after the
// migrator finished.
func (postgresDriver) gooseOptions() ([]goose.ProviderOption, error) {
	l, err := lock.NewPostgresSessionLocker(lock.WithLockID(migrationLockID),
		lock.WithLockTimeout(1, uint64(migrationLockWait/time.Second)))
	if err != nil {
		return nil, err
	}
	return []goose.ProviderOption{goose.WithSessionLocker(l)}, nil
}

func (postgresDriver) openSchema(opts Options, _ string) (*sql.DB, error) {
	conn, err := sql.Open("pgx", opts.URL)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	return conn, nil
}

func (postgresDriver) versionTableExists() string {
	return `SELECT COUNT(*) FROM (SELECT to_regclass('goose_db_version') AS t) r WHERE t IS NOT NULL`
}

// pgSessionDefaults bound how long a transaction waits for a lock and how
// long a session may sit idle inside a transaction: a process stopped in
// the middle of one (SIGSTOP, a long GC pause, a network partition) loses
// its session and its locks instead of stalling every other process. A
// setting given in the database URL wins.
var pgSessionDefaults = map[string]string{
	"lock_timeout":                        "10s",
	"idle_in_transaction_session_timeout": "15s",
}

// PGConnectTimeout bounds making a PostgreSQL connection (TCP, TLS and
// start-up) unless the database URL sets connect_timeout.
const PGConnectTimeout = 5 * time.Second

func openPostgres(ctx context.Context, dsn string) (*DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	for k, v := range pgSessionDefaults {
		if _, set := cfg.RuntimeParams[k]; !set {
			cfg.RuntimeParams[k] = v
		}
	}
	if cfg.ConnectTimeout == 0 { // connect_timeout in the URL wins
		// A server that accepts the connection and never answers (paused,
		// partitioned) is unavailable after this, not a request that
		// waits for ever (CONTRACT 7: 503 unavailable).
		cfg.ConnectTimeout = PGConnectTimeout
	}
	p := stdlib.OpenDB(*cfg)
	p.SetMaxOpenConns(16)
	p.SetMaxIdleConns(16)
	p.SetConnMaxIdleTime(5 * time.Minute)
	if err := p.PingContext(ctx); err != nil {
		_ = p.Close()
		return nil, fmt.Errorf("store: connect to postgres: %w", err)
	}
	return &DB{dialect: Postgres, drv: postgresDriver{}, write: p, read: p}, nil
}

func (postgresDriver) rowAddress() string { return "ctid" }

// groupWord matches w against the pg_trgm index of the three columns joined
// by U+001F (no query holds a control character, so no word spans two
// columns), rechecked by ILIKE. A recheck appends an empty string to the
// expression, which then no longer matches the index's: the planner counts
// two words as independent and intersected two large GIN scans for words
// that come together ("payment timeout": 143 / 224 ms p50 / p95 against 21 /
// 45 ms for the words checked on the rows, docs/performance.md).
func (postgresDriver) groupWord(g, w string, recheck bool) (string, any, bool) {
	expr := g + "title || E'\\x1f' || " + g + "culprit || E'\\x1f' || " + g + "search_message"
	if recheck {
		expr += " || ''"
	}
	return "(" + expr + ") ILIKE ?", contains(w), true
}

func (postgresDriver) wordLookupDrivesList() bool { return false }
