package store

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// translate maps driver errors onto the store's sentinels so that callers
// never need to know which database they talk to.
func translate(d Dialect, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	switch d {
	case SQLite:
		var se *sqlite.Error
		if errors.As(err, &se) {
			switch se.Code() {
			case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
				return fmt.Errorf("%w: %v", ErrConflict, err)
			case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
				return fmt.Errorf("%w: %v", ErrNotFound, err)
			}
		}
	case Postgres:
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			switch pe.Code {
			case "23505": // unique_violation
				return fmt.Errorf("%w: %s", ErrConflict, pe.ConstraintName)
			case "23503": // foreign_key_violation
				return fmt.Errorf("%w: %s", ErrNotFound, pe.ConstraintName)
			case "40001", "40P01": // serialization failure, deadlock: run the transaction again
				return fmt.Errorf("%w: %s", ErrConflict, pe.Message)
			}
		}
	}
	return err
}
