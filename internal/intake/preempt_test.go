package intake

import (
	"context"
	"errors"
	"testing"
	"time"
)

// hold reserves n bytes for org and marks them preemptible after grace,
// releasing them as an owner does once preempted. It returns the
// preemption channel and settle.
func hold(t *testing.T, b *Budget, org string, n int64, grace time.Duration) (<-chan struct{}, func() bool) {
	t.Helper()
	r := b.ReserveFor(org)
	if err := r.Grow(context.Background(), n); err != nil {
		t.Fatalf("Grow(%d) for %s: %v", n, org, err)
	}
	preempted, settle := r.Preemptible(grace)
	t.Cleanup(r.Release)
	go func() {
		<-preempted
		r.Release()
	}()
	return preempted, settle
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestWaiterPreemptsAReservationAwaitingItsBytes: a request waiting for
// room in the whole budget takes it back from a reservation that has held
// it for its grace without its bytes arriving, whichever organization's it
// is; one within its grace, or settled, keeps it.
func TestWaiterPreemptsAReservationAwaitingItsBytes(t *testing.T) {
	b := NewBudget(100, time.Second)
	idle, _ := hold(t, b, "org-a", 50, 0)
	if b.Awaiting() != 1 {
		t.Fatalf("Awaiting = %d, want 1", b.Awaiting())
	}
	busy := b.ReserveFor("org-b")
	if err := busy.Grow(context.Background(), 40); err != nil {
		t.Fatal(err)
	}
	defer busy.Release()

	r := b.ReserveFor("org-c")
	if err := r.Grow(context.Background(), 30); err != nil {
		t.Fatalf("Grow with an idle reservation to take back: %v", err)
	}
	defer r.Release()
	if !closed(idle) {
		t.Error("the idle reservation was not preempted")
	}
	if b.Awaiting() != 0 || b.Preempted() != 1 {
		t.Errorf("Awaiting = %d, Preempted = %d; want 0 and 1", b.Awaiting(), b.Preempted())
	}
}

func TestReservationWithinItsGraceOrSettledIsKept(t *testing.T) {
	b := NewBudget(100, 50*time.Millisecond)
	young, _ := hold(t, b, "org-a", 50, time.Hour)
	done, settle := hold(t, b, "org-b", 50, 0)
	if !settle() {
		t.Fatal("settle of a reservation nobody preempted = false")
	}
	r := b.ReserveFor("org-c")
	if err := r.Grow(context.Background(), 30); !errors.Is(err, ErrMemoryBusy) {
		t.Fatalf("Grow with no reservation to take back = %v, want ErrMemoryBusy", err)
	}
	if closed(young) || closed(done) {
		t.Errorf("preempted: within its grace %v, settled %v; want neither", closed(young), closed(done))
	}
	if b.Preempted() != 0 {
		t.Errorf("Preempted = %d, want 0", b.Preempted())
	}
}

// TestShareWaiterPreemptsOnlyItsOrganization: a request waiting for its
// organization's share takes room back from that organization's idle
// reservations only: another's would not make the share any larger.
func TestShareWaiterPreemptsOnlyItsOrganization(t *testing.T) {
	b := NewBudget(1000, time.Second)
	other, _ := hold(t, b, "org-b", 400, 0)
	own, _ := hold(t, b, "org-a", 400, 0)
	r := b.ReserveFor("org-a")
	if err := r.Grow(context.Background(), 200); err != nil {
		t.Fatalf("Grow past the share with an own idle reservation: %v", err)
	}
	defer r.Release()
	if !closed(own) || closed(other) {
		t.Errorf("preempted: own %v, other organization's %v; want only own", closed(own), closed(other))
	}
}

// TestPreemptedSettleReportsIt: settle after a preemption reports that the
// room was taken back.
func TestPreemptedSettleReportsIt(t *testing.T) {
	b := NewBudget(100, time.Second)
	first, settleFirst := hold(t, b, "org-a", 40, 0)
	second, settleSecond := hold(t, b, "org-b", 40, time.Hour)
	r := b.ReserveFor("org-c")
	if err := r.Grow(context.Background(), 30); err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !closed(first) || closed(second) {
		t.Fatalf("preempted: first %v, second %v; want the first only", closed(first), closed(second))
	}
	if settleFirst() {
		t.Error("settle of a preempted reservation = true")
	}
	if !settleSecond() {
		t.Error("settle of a kept reservation = false")
	}
}
