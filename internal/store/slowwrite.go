package store

import (
	"context"
	"log/slog"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultSlowWrite is the writer hold past which a write is reported
// (ERRATA_SLOW_TX_WARN): on SQLite every other write, ingestion's queue
// commits included, waits for the one writer meanwhile; on PostgreSQL
// the row locks the write took do the same to the writes that need them.
const DefaultSlowWrite = 100 * time.Millisecond

// SlowWrites configures the writer-hold warning: a write transaction
// (Tx), or a statement run on the writer outside one (Write), that held
// the writer longer than Threshold is logged at WARN with its caller, and
// OnSlow is told. A zero Threshold turns it off.
type SlowWrites struct {
	Threshold time.Duration
	Logger    *slog.Logger // default slog.Default()
	// OnSlow, if set, is called for each slow write (a metric counter).
	OnSlow func()
}

// slowWatch holds a DB's SlowWrites; the zero value reports at
// DefaultSlowWrite to slog.Default().
type slowWatch struct {
	p atomic.Pointer[SlowWrites]
	// released is when the latest write gave SQLite's writer back (Unix
	// nanoseconds): a statement outside a transaction waits for the one
	// writer connection inside database/sql, so it took the writer when
	// the write before it gave it back, if that was after it asked.
	released atomic.Int64
}

// apartFromIngestKey marks a context whose writes lock nothing ingestion
// takes (ApartFromIngest).
type apartFromIngestKey struct{}

// ApartFromIngest marks ctx's writes as locking nothing ingestion's
// commits take: on a database with concurrent writers (PostgreSQL) they
// are not reported however long they hold their locks, since no ingest
// request waits for them (processing's apply and fold transactions lock
// groups, counts and summaries; ingestion inserts queue rows). On SQLite
// every write holds the one writer, and is reported as any other.
func ApartFromIngest(ctx context.Context) context.Context {
	return context.WithValue(ctx, apartFromIngestKey{}, true)
}

// WarnSlowWrites sets how db reports writes that hold its writer long.
// Until it is called, db warns past DefaultSlowWrite on slog.Default().
func (db *DB) WarnSlowWrites(w SlowWrites) { db.slow.p.Store(&w) }

// threshold is the hold past which a write is reported, 0 for never.
func (s *slowWatch) threshold() time.Duration {
	if w := s.p.Load(); w != nil {
		return w.Threshold
	}
	return DefaultSlowWrite
}

// committing notes, on SQLite, that the writer's holder is about to end
// its hold with a COMMIT (or ROLLBACK): a statement that waited for it
// runs as soon as that ends, and may report its own end before the holder
// reports its own; it must still see that it waited.
func (s *slowWatch) committing(d Dialect) {
	if driverOf(d).oneWriter() {
		s.released.Store(time.Now().UnixNano())
	}
}

// done reports the write of kind ("transaction" or "statement") that took
// the writer at start, after waiting for it waited, when it held the
// writer too long; commit is what its COMMIT took of that (on SQLite,
// mostly the WAL's fsync). A transaction's start is when its BEGIN returned; a
// statement's is when it was asked for, and on SQLite it may have waited
// for the writer after that, until the write before it ended. It names the caller from the stack, so it must be
// called from the store's own function that the caller called.
func (s *slowWatch) done(ctx context.Context, d Dialect, kind string, start time.Time, waited, commit time.Duration) {
	end := time.Now()
	oneWriter := driverOf(d).oneWriter()
	if !oneWriter && ctx.Value(apartFromIngestKey{}) != nil {
		return
	}
	if oneWriter {
		if prev := time.Unix(0, s.released.Swap(end.UnixNano())); kind == "statement" && prev.After(start) {
			waited, start = prev.Sub(start), prev
		}
	}
	held := end.Sub(start)
	limit := s.threshold()
	if limit <= 0 || held <= limit {
		return
	}
	w := s.p.Load()
	log := slog.Default()
	if w != nil && w.Logger != nil {
		log = w.Logger
	}
	fn, at := caller()
	log.LogAttrs(ctx, slog.LevelWarn, "a write held the database writer longer than ERRATA_SLOW_TX_WARN; other writes, ingestion's among them, waited",
		slog.String("kind", kind), slog.String("caller", fn), slog.String("at", at),
		slog.Float64("held_ms", float64(held.Microseconds())/1000), slog.Float64("waited_ms", float64(waited.Microseconds())/1000),
		slog.Float64("commit_ms", float64(commit.Microseconds())/1000),
		slog.Duration("threshold", limit), slog.String("dialect", string(d)))
	if w != nil && w.OnSlow != nil {
		w.OnSlow()
	}
}

// caller names the first function on the stack outside this file, db.go,
// redone.go and the drivers' files: the store method or the service that began the write.
func caller() (fn, at string) {
	var pcs [16]uintptr
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		base := filepath.Base(f.File)
		if (base != "db.go" && base != "slowwrite.go" && base != "redone.go" && !strings.HasSuffix(base, "_driver.go")) || !strings.Contains(f.Function, "/internal/store.") {
			name := f.Function
			if i := strings.LastIndex(name, "/"); i >= 0 {
				name = name[i+1:]
			}
			return name, base + ":" + strconv.Itoa(f.Line)
		}
		if !more {
			return "unknown", ""
		}
	}
}
