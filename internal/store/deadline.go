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

// bounded returns ctx with the request timeout's deadline when ctx is a
// request's and c has a timeout, and reports whether it did. The caller
// calls cancel once the statement's results are read.
func (c *Conn) bounded(ctx context.Context) (context.Context, context.CancelFunc, bool) {
	return bound(ctx, c.timeout)
}

func bound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc, bool) {
	if d <= 0 || ctx.Value(requestKey{}) == nil {
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
	return fmt.Errorf("%w: no answer from the database within %s: %v%w", ErrUnavailable, d, err, downMark{})
}
