package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"time"

	"github.com/pressly/goose/v3"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS

// migrationLockID is the PostgreSQL session advisory lock held while a
// process migrates (the CRC-32 of "errata migrate"; goose's default id is
// not used so that another goose-migrated application sharing the server
// never waits on Errata, nor Errata on it).
const migrationLockID int64 = 0x07aa_ed43

// migrationLockWait bounds how long a process waits for another one's
// migrations before it gives up and fails to start. Migrations that rewrite
// large tables can take minutes; a process that waits longer than this is
// more likely looking at a stuck migrator than at a slow one.
const migrationLockWait = 10 * time.Minute

// migrationLockFile is the suffix of the SQLite database's migration lock
// file. SQLite's own locks cannot serve: goose runs each migration in a
// transaction of its own, and a process must not open and close the
// database file itself beside SQLite (closing any descriptor of a file drops
// the process's POSIX locks on it, SQLite's included).
const migrationLockFile = ".lock"

// Migrate applies every pending migration of the database's dialect and
// reports how many ran. It holds a database-wide lock while it does
// (PostgreSQL: a session advisory lock; SQLite: a lock on the file
// errata.db.lock beside the database), so that several processes started
// at once on one database migrate it one after the other: the first applies
// the migrations, the others find none left. The lock dies with the process
// that held it.
func (db *DB) Migrate(ctx context.Context) (int, error) {
	unlock, err := db.drv.lockMigrations(ctx, db)
	if err != nil {
		return 0, fmt.Errorf("store: migrate: %w", err)
	}
	defer unlock()
	p, err := db.migrations()
	if err != nil {
		return 0, err
	}
	res, err := p.Up(ctx)
	if err != nil {
		return len(res), fmt.Errorf("store: migrate: %w", err)
	}
	return len(res), nil
}

// migrations is the goose provider of the database's dialect, locking the
// database on PostgreSQL.
func (db *DB) migrations() (*goose.Provider, error) {
	sub, err := migrationFiles(db.drv)
	if err != nil {
		return nil, err
	}
	opts, err := db.drv.gooseOptions()
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	p, err := goose.NewProvider(db.drv.gooseDialect(), db.write, sub, opts...)
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	return p, nil
}

// migrationFiles is the embedded migrations folder of d's database.
func migrationFiles(d dbDriver) (fs.FS, error) {
	sub, err := fs.Sub(migrations, d.migrationDir())
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	return sub, nil
}
