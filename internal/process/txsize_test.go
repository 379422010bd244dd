package process

import (
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

// TestApplyBudget: parts follow the pace measured, never split a batch,
// always take one, and never exceed the most events.
func TestApplyBudget(t *testing.T) {
	b := newApplyBudget(50*time.Millisecond, 16384)
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
