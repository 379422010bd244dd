package process

import (
	"sync/atomic"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

// DefaultApplyTarget is how long one apply transaction should hold the
// writer (Options.ApplyTarget): half of ERRATA_SLOW_TX_WARN's default, so
// that a queue commit of ingestion waits at most about that long for it.
const DefaultApplyTarget = 50 * time.Millisecond

// DefaultApplyEvents is the most events one apply transaction takes
// (Options.ApplyEvents), however fast the machine applies them.
const DefaultApplyEvents = 16384

// FirstApplyEvents is how many events the first apply transaction of a
// process takes on SQLite: its budget then grows towards the target from
// what it measured. Started at DefaultApplyEvents, the first parts of a
// load of new groups held the writer 160–250 ms before the pace was known
// (docs/decisions.md, "Stalls under mixed load").
const FirstApplyEvents = 2048

// ConcurrentApplyTarget and ConcurrentApplyEvents size apply transactions
// on a database with concurrent writers (PostgreSQL): there, applying
// holds row locks of groups, summaries and counts that ingestion never
// takes (its commits insert queue rows), so the writer-hold bound of
// SQLite does not apply, and every statement is a round trip: a part pays
// each group's read, update and spike check again. Parts of about 50 ms cut
// end-to-end throughput on PostgreSQL to about a quarter (docs/decisions.md,
// "Apply parts on PostgreSQL"); these take a claim of 32 batches of 1,000
// events whole, while a group's row stays locked for well under a second.
const (
	ConcurrentApplyTarget = 500 * time.Millisecond
	ConcurrentApplyEvents = 65536
)

// applyBudget sizes apply transactions (and, counting value counts and
// ids rather than events, fold transactions: folder.budget): a claim of
// many batches is applied in parts, each in its own transaction of at most
// events events (and at least one batch, which is never split: its
// deletion commits with all its results). After each part it moves towards
// the number of events the latest part would have applied in the target
// time, so that the writer is held about target whatever the machine's
// speed or load (issue 30: on a busy 2-core machine a claim of 32 batches
// of 1,000 events held SQLite's writer up to 1.7 s, and every ingest
// request waited for it).
type applyBudget struct {
	target time.Duration
	max    int64
	events atomic.Int64
}

// newApplyBudget returns a budget of first events (at most max) that moves
// towards target.
func newApplyBudget(target time.Duration, max, first int) *applyBudget {
	b := &applyBudget{target: target, max: int64(max)}
	b.events.Store(int64(min(max, first)))
	return b
}

// size is how many events (for a fold, counts and ids) the next
// transaction takes.
func (b *applyBudget) size() int { return int(b.events.Load()) }

// take returns how many of batches, from the first, the next part applies:
// as many as fit the budget, at least one.
func (b *applyBudget) take(batches []store.Batch) int {
	budget, sum := b.events.Load(), int64(0)
	for i, bt := range batches {
		sum += int64(bt.EventCount)
		if sum > budget && i > 0 {
			return i
		}
	}
	return len(batches)
}

// observe moves the budget halfway towards the events that held the
// writer for target at the pace of a part of events that held it held.
func (b *applyBudget) observe(events int, held time.Duration) {
	if events <= 0 || held <= 0 {
		return
	}
	want := int64(float64(events) * float64(b.target) / float64(held))
	next := (b.events.Load() + want) / 2
	b.events.Store(min(max(next, 1), b.max))
}
