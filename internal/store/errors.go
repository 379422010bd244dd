package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// codedError is a sentinel that names the problem code it answers with
// (package problem reads it through ProblemCode), so that errors become
// answers in one place without that place knowing the store; detail, when
// set, is the answer's detail.
type codedError struct{ msg, code, detail string }

func (e *codedError) Error() string { return e.msg }

// ProblemCode names the RFC 9457 problem this error answers with.
func (e *codedError) ProblemCode() string { return e.code }

// ProblemDetail is the answer's detail, "" for the code's own.
func (e *codedError) ProblemDetail() string { return e.detail }

// Sentinel errors. Callers test them with errors.Is.
var (
	// ErrNotFound means the row asked for does not exist.
	ErrNotFound error = &codedError{"not found", "not-found", ""}
	// ErrConflict means a uniqueness rule would be broken, or a concurrent
	// transaction won a race (serialization failure, deadlock): the
	// operation can be run again.
	ErrConflict error = &codedError{"conflict", "conflict", ""}
	// ErrUnavailable means the database cannot be reached, is read-only or
	// out of space: a transient condition the client should retry after a
	// while (503), never a reason to drop data.
	ErrUnavailable error = &codedError{"database unavailable", "unavailable", ""}
	// ErrCommitUnknown wraps an ErrUnavailable met by a commit (so it is
	// also that): the connection was lost after the commit was sent, and
	// the database may have committed. The answer says so rather than
	// "nothing was changed": a client that retries may make the change
	// twice (ingestion is at least once then, docs/decisions.md).
	ErrCommitUnknown error = &codedError{"database unavailable while committing", "unavailable",
		"the database became unavailable while committing the change, which may or may not have been made: retry after Retry-After seconds"}
	// ErrLocation means the database's file cannot be where its settings
	// put it (ERRATA_DATA_DIR, ERRATA_DATABASE_URL): a bad setting, which
	// stops the process at start like any other (exit 2).
	ErrLocation = errors.New("bad database location")
)

// locationError is an ErrLocation that reads as its own message.
type locationError struct{ error }

func (e locationError) Is(target error) bool { return target == ErrLocation }
func (e locationError) Unwrap() error        { return e.error }

// translate maps driver errors onto the store's sentinels so that callers
// never need to know which database they talk to. It is idempotent, and
// it tells the dialects apart by their error types, so that helpers that
// do not know the dialect (collect) can use it too.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) || errors.Is(err, ErrUnavailable) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %v", ErrConflict, err)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return fmt.Errorf("%w: %v", ErrNotFound, err)
		}
		switch se.Code() & 0xff { // the primary result code
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%w: %v%w", ErrUnavailable, err, downMark{})
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		return err
	}
	// A connection that could not be made is the database unreachable,
	// whatever the server said while refusing it (a FATAL at start-up:
	// not accepting connections, database gone, too many clients).
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return fmt.Errorf("%w: %v%w", ErrUnavailable, err, downMark{})
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23505": // unique_violation
			return fmt.Errorf("%w: %s", ErrConflict, pe.ConstraintName)
		case "23503": // foreign_key_violation
			return fmt.Errorf("%w: %s", ErrNotFound, pe.ConstraintName)
		case "40001", "40P01": // serialization failure, deadlock: run the transaction again
			return fmt.Errorf("%w: %s%w", ErrConflict, pe.Message, raceMark{})
		}
		if pgUnavailable(pe.Code) {
			if pgDown(pe.Code) {
				return fmt.Errorf("%w: %s%w", ErrUnavailable, pe.Code, downMark{})
			}
			return fmt.Errorf("%w: %s", ErrUnavailable, pe.Code)
		}
		return err
	}
	if connectionLost(err) {
		return fmt.Errorf("%w: %v%w", ErrUnavailable, err, downMark{})
	}
	return err
}

// raceMark marks a conflict that is a lost race between transactions
// (PostgreSQL's serialization failure or deadlock), not a broken rule:
// running the transaction again succeeds.
type raceMark struct{}

func (raceMark) Error() string { return "" }

// LostRace reports whether err is a transaction that lost a race with
// another (a deadlock, a serialization failure) and may simply be run
// again; a uniqueness conflict is not one.
func LostRace(err error) bool { return errors.Is(err, raceMark{}) }

// downMark marks an unavailable error whose cause is the database itself:
// unreachable, read-only, out of space, failing to read or write its
// files; not a wait that ran out (busy, a lock or statement timeout). It
// adds nothing to the message.
type downMark struct{}

func (downMark) Error() string { return "" }

// isDown reports whether err is an unavailable error of a database that
// cannot serve (downMark).
func isDown(err error) bool { return errors.Is(err, downMark{}) }

// pgDown reports the SQLSTATEs of pgUnavailable that say the server
// cannot serve at all, as opposed to a wait that ran out.
func pgDown(code string) bool {
	switch code {
	case "55P03", "57014", "25P03":
		return false
	}
	return true
}

// pgUnavailable reports the SQLSTATEs of a server that cannot serve now:
// connection exceptions (08), insufficient resources (53: disk full, out of
// memory, too many connections), operator intervention (57P01–57P05:
// shutdown, crash, cannot connect now), a read-only transaction (25006, a
// standby or default_transaction_read_only) and lock or idle timeouts
// (55P03, 57014 statement/lock timeout, 25P03 idle in transaction).
func pgUnavailable(code string) bool {
	switch {
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"):
		return true
	}
	switch code {
	case "57P01", "57P02", "57P03", "57P04", "57P05", "25006", "55P03", "57014", "25P03":
		return true
	}
	return false
}

// connectionLost reports errors of a connection that could not be made or
// broke: the network, the driver's own connect errors, a closed pool.
func connectionLost(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, sql.ErrConnDone), pgconn.Timeout(err):
		return true
	}
	// pgx reports a connection it closed after a failure this way.
	return strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "failed to connect")
}

// IsUnavailable reports whether err means the database could not serve
// the request for now (see ErrUnavailable). Deadlines and cancellations
// are not: they are the caller's own.
func IsUnavailable(err error) bool {
	return errors.Is(err, ErrUnavailable) && !errors.Is(err, context.Canceled)
}
