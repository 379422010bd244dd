package process

import (
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestApplyBudget: parts follow the pace measured, never split a batch,
// always take one, and never exceed the most events.
func TestApplyBudget(t *testing.T) {
	b := newApplyBudget(50*time.Millisecond, 16384, 16384)
	batches := make([]store.Batch, 32)
	for i := range batches {
		batches[i].EventCount = 1000
	}
	if n := b.take(batches); n != 16 {
		t.Fatalf("first part: %d batches, want 16 (the most events)", n)
	}
	// 16,000 events held the writer 1.6 s: 500 would take 50 ms. The
	// budget moves halfway each time, down to one batch.
	for range 10 {
		b.observe(16000, 1600*time.Millisecond)
	}
	if got := b.events.Load(); got < 500 || got > 520 {
		t.Fatalf("budget %d events after a slow pace, want about 500", got)
	}
	if n := b.take(batches); n != 1 {
		t.Fatalf("part under a budget smaller than a batch: %d batches, want 1", n)
	}
	// A fast pace raises it again, to the most events at most.
	for range 20 {
		b.observe(1000, time.Millisecond)
	}
	if got := b.events.Load(); got != 16384 {
		t.Fatalf("budget %d events after a fast pace, want the most, 16384", got)
	}
	if n := b.take(batches[:3]); n != 3 {
		t.Fatalf("the last batches of a claim: %d, want all 3", n)
	}
}

// TestApplyPartsByDatabase: on SQLite a claim is applied in parts of about
// DefaultApplyTarget, on PostgreSQL (concurrent writers, whose apply locks
// nothing ingestion waits for) a claim of 32 full batches in one part.
func TestApplyPartsByDatabase(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		p := New(db, Options{})
		want := struct {
			target time.Duration
			events int64
		}{DefaultApplyTarget, DefaultApplyEvents}
		if db.ConcurrentWrites() {
			want.target, want.events = ConcurrentApplyTarget, ConcurrentApplyEvents
		}
		if p.budget.target != want.target || p.budget.max != want.events {
			t.Fatalf("apply parts of %v and at most %d events, want %v and %d", p.budget.target, p.budget.max, want.target, want.events)
		}
		batches := make([]store.Batch, 32)
		for i := range batches {
			batches[i].EventCount = 1000
		}
		n := p.budget.take(batches)
		if db.ConcurrentWrites() && n != 32 {
			t.Fatalf("PostgreSQL: a claim of 32 batches of 1,000 events in parts of %d batches, want one part", n)
		}
		// SQLite starts small, before it knows the pace.
		if !db.ConcurrentWrites() && n != FirstApplyEvents/1000 {
			t.Fatalf("SQLite: the first part of a claim of 32 batches of 1,000 events takes %d, want %d", n, FirstApplyEvents/1000)
		}
	})
}
