package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS

// Migrate applies every pending migration of the database's dialect and
// reports how many ran.
func (db *DB) Migrate(ctx context.Context) (int, error) {
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

// migrations is the goose provider of the database's dialect.
func (db *DB) migrations() (*goose.Provider, error) {
	dir, gd := "migrations/sqlite", goose.DialectSQLite3
	if db.dialect == Postgres {
		dir, gd = "migrations/postgres", goose.DialectPostgres
	}
	sub, err := fs.Sub(migrations, dir)
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	p, err := goose.NewProvider(gd, db.write, sub)
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	return p, nil
}
