package store

import (
	"context"
	"fmt"
	"sync/atomic"
)

// writeHealth remembers a write that failed because the database cannot
// serve (isDown: read-only, out of space, failing I/O, unreachable) until
// a write succeeds: a ping writes nothing, so it succeeds on a read-only
// database, and /readyz must not (CONTRACT 7). A wait that ran out (busy,
// a lock timeout) is not the database failing and changes nothing.
type writeHealth struct{ down atomic.Pointer[error] }

// note records how a write went: nil clears, a down error sets, any
// other error (the caller's own, a conflict, a timeout) changes nothing.
func (h *writeHealth) note(err error) {
	switch {
	case err == nil:
		if h.down.Load() != nil {
			h.down.Store(nil)
		}
	case isDown(err):
		h.down.Store(&err)
	}
}

// Ready reports whether the database can take traffic: it answers a ping,
// and the last write to reach it did not fail for want of it. Writes go
// on all the time in a serving process (each process records itself every
// few seconds), so a database that turned read-only is seen within
// seconds, and one that recovered as soon as a write succeeds.
func (db *DB) Ready(ctx context.Context) error {
	if err := db.Ping(ctx); err != nil {
		return err
	}
	if p := db.health.down.Load(); p != nil {
		return fmt.Errorf("store: the last write failed: %w", *p)
	}
	return nil
}
