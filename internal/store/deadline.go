package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// BoundRequests bounds each statement and transaction of a request
// (AsRequest) to d on PostgreSQL (ERRATA_DB_TIMEOUT, 20 s by default:
// longer than the lock_timeout of pgSessionDefaults, so that a statement
// waiting for a lock fails as a lock timeout first); 0 leaves them
// unbounded. SQLite, a file of this process, does not go silent. Call it
// before the DB is used.
func (db *DB) BoundRequests(d time.Duration) {
	if db.dialect == Postgres {
		db.timeout = d
	}
}

// requestKey marks a context as a request's (AsRequest).
type requestKey struct{}

// AsRequest marks ctx's database work as a request's, which a client waits
// for: on PostgreSQL each of its statements, and each of its
// transactions, gets no more than the database's request timeout
// (BoundRequests) to answer. One that does not is ErrUnavailable
// (503 with Retry-After), as a connection that broke is: a connection that
// went silent (a network partition, a stopped proxy) would otherwise hold
// the request for as long as the kernel keeps the connection. Work of the
// process's own (processing, maintenance, which may run long) is not
// marked.
func AsRequest(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestKey{}, true)
}

// Unbounded unmarks ctx (AsRequest) for work a client waits for that may
// rightly take longer than the request timeout: deleting a project or an
// organization deletes all it holds in one transaction.
func Unbounded(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestKey{}, nil)
}

// workMark marks a context as the process's own work (AsWork).
type workMark struct{}

// WorkTimeouts is how many request timeouts (BoundRequests) a statement
// or transaction of the process's own work (AsWork) gets: processing's
// claims and parts, folds and the queue monitor's reads take milliseconds
// to seconds, but one that waits on a connection gone silent would wait
// for as long as the kernel keeps it (a worker stopped for good while
// ingestion goes on answering 202). 200 s by default.
const WorkTimeouts = 10

// AsWork marks ctx's database work as the process's own (processing, the
// delivery engine, the queue monitor): on PostgreSQL each statement and
// transaction gets WorkTimeouts request timeouts, after which it is
// ErrUnavailable and the work is tried again; a long one is not cut as a
// request's would be. Maintenance that may rightly run longer (retention,
// migrations, backups) is not marked.
func AsWork(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestKey{}, workMark{})
}

// bounded returns ctx with the request timeout's deadline when ctx is a
// request's (or WorkTimeouts of them for work, AsWork) and c has a
// timeout, and reports whether it did. The caller calls cancel once the
// statement's results are read.
func (c *Conn) bounded(ctx context.Context) (context.Context, context.CancelFunc, bool) {
	return bound(ctx, c.timeout)
}

// limit is the bound of ctx's database work given the request timeout d:
// d for a request, WorkTimeouts × d for work, 0 (none) otherwise.
func limit(ctx context.Context, d time.Duration) time.Duration {
	switch ctx.Value(requestKey{}).(type) {
	case bool:
		return d
	case workMark:
		return WorkTimeouts * d
	}
	return 0
}

func bound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc, bool) {
	if d = limit(ctx, d); d <= 0 {
		return ctx, func() {}, false
	}
	bctx, cancel := context.WithTimeout(ctx, d)
	return bctx, cancel, true
}

// silent turns the error of a statement or transaction whose bounded
// context (bctx) ran out while its caller's (ctx) had not into
// ErrUnavailable: the database did not answer within d.
func silent(ctx, bctx context.Context, d time.Duration, err error) error {
	if err == nil || ctx.Err() != nil || !errors.Is(bctx.Err(), context.DeadlineExceeded) || errors.Is(err, ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: no answer from the database within %s: %v%w", ErrUnavailable, limit(ctx, d), err, downMark{})
}
