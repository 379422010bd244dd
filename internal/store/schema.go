package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
)

// Schema tells where a database's migrations stand.
type Schema struct {
	Dialect Dialect
	// Version is the highest migration applied to the database; 0 when none is.
	Version int64
	// Latest is the highest migration this build carries. A Version above
	// it means a newer release has migrated the database.
	Latest int64
}

// Schema reports where db's migrations stand.
func (db *DB) Schema(ctx context.Context) (Schema, error) {
	return readSchema(ctx, db.drv, db.read)
}

// ReadSchema reports where the migrations of the database opts select
// stand, without creating, migrating or changing anything: a SQLite file
// that does not exist is ErrNotFound, a server that cannot be reached is
// ErrUnavailable. Whatever the error, the Schema names the dialect and this
// build's Latest when opts is valid.
func ReadSchema(ctx context.Context, opts Options) (Schema, error) {
	d, path, err := opts.target()
	if err != nil {
		return Schema{}, err
	}
	none := Schema{Dialect: d.name(), Latest: latestMigration(d)}
	conn, err := d.openSchema(opts, path)
	if err != nil {
		return none, err
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	return readSchema(ctx, d, conn)
}

// readSchema reads goose's version table, which may not exist yet.
func readSchema(ctx context.Context, d dbDriver, q *sql.DB) (Schema, error) {
	s := Schema{Dialect: d.name(), Latest: latestMigration(d)}
	var n int
	if err := q.QueryRowContext(ctx, d.versionTableExists()).Scan(&n); err != nil {
		return s, fmt.Errorf("store: schema version: %w", translate(err))
	}
	if n == 0 {
		return s, nil
	}
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version`).Scan(&s.Version); err != nil {
		return s, fmt.Errorf("store: schema version: %w", translate(err))
	}
	return s, nil
}

// latestMigration is the highest version among d's embedded migrations
// (their names start with it).
func latestMigration(d dbDriver) int64 {
	sub, err := migrationFiles(d)
	if err != nil {
		return 0
	}
	des, _ := fs.ReadDir(sub, ".")
	var latest int64
	for _, de := range des {
		if v, err := goose.NumericComponent(de.Name()); err == nil && v > latest {
			latest = v
		}
	}
	return latest
}

// missingDB is ErrNotFound for a SQLite file that does not exist, saying
// which file.
type missingDB string

func (m missingDB) Error() string { return "no SQLite database at " + string(m) }
func (m missingDB) Unwrap() error { return ErrNotFound }
