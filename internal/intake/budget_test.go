package intake

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// TestConnectionsAreCharged: every connection accepted through the
// budget's listener holds ConnCost of it until closed, so bodies find less
// room while many connections are open; connections take at most three
// quarters of the budget, the rest go uncharged.
func TestConnectionsAreCharged(t *testing.T) {
	b := NewBudget(10*ConnCost, 20*time.Millisecond)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cln := b.Listener(ln)
	defer cln.Close()
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := cln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	var server []net.Conn
	for range 9 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		server = append(server, <-accepted)
	}
	if got := b.Connections(); got != 7 {
		t.Fatalf("charged connections = %d, want 7 (three quarters of the budget); 2 uncharged", got)
	}
	if got := inUse(b); got != 7*ConnCost {
		t.Fatalf("budget in use = %d, want %d", got, 7*ConnCost)
	}
	r := b.Reserve()
	if err := r.Grow(context.Background(), 4*ConnCost); !errors.Is(err, ErrMemoryBusy) {
		t.Fatalf("Grow past what connections left = %v, want ErrMemoryBusy", err)
	}
	for _, c := range server {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		_ = c.Close() // a second Close gives nothing back twice
	}
	if got := b.Connections(); got != 0 {
		t.Fatalf("charged connections after closing = %d", got)
	}
	if got := inUse(b); got != 0 {
		t.Fatalf("budget in use after closing = %d", got)
	}
	r2 := b.Reserve()
	if err := r2.Grow(context.Background(), 10*ConnCost); err != nil {
		t.Fatalf("Grow of the whole budget after closing = %v", err)
	}
	r2.Release()
}

// TestConnectionDebt: a connection accepted while bodies hold the whole
// budget owes its charge, and the bodies pay it when they give room back;
// a connection closed while still owing cancels its debt.
func TestConnectionDebt(t *testing.T) {
	b := NewBudget(10*ConnCost, 20*time.Millisecond)
	body := b.Reserve()
	if err := body.Grow(context.Background(), 10*ConnCost); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if !b.holdConn() {
			t.Fatalf("connection %d refused a charge with room under half the budget", i+1)
		}
	}
	body.Shrink(ConnCost) // pays one connection's debt: nothing freed
	if got := inUse(b); got != 10*ConnCost {
		t.Fatalf("in use = %d after paying one debt, want the whole budget", got)
	}
	body.Release() // pays the other, frees the rest
	if got := inUse(b); got != 2*ConnCost {
		t.Fatalf("in use = %d after the body's release, want the 2 connections' %d", got, 2*ConnCost)
	}
	b.releaseConn()
	b.releaseConn()
	if got := inUse(b); got != 0 {
		t.Fatalf("in use = %d after the connections closed", got)
	}

	// Closed while owing: the debt goes, nothing is released twice.
	if err := body.Grow(context.Background(), 10*ConnCost); err != nil {
		t.Fatal(err)
	}
	b.holdConn()
	b.releaseConn()
	body.Release()
	if got := inUse(b); got != 0 {
		t.Fatalf("in use = %d after a connection closed owing its charge", got)
	}
}

// TestOrganizationShare: one organization's reservations together hold at
// most half the budget (a request past it waits, then is refused), so
// another organization always finds the other half, however many projects
// the first spreads its requests over (CONTRACT 8); reservations of no
// account are not limited that way.
func TestOrganizationShare(t *testing.T) {
	ctx := context.Background()
	b := NewBudget(100, 30*time.Millisecond)
	a1, a2 := b.ReserveFor("org_a"), b.ReserveFor("org_a")
	if err := a1.Grow(ctx, 40); err != nil {
		t.Fatal(err)
	}
	if err := a2.Grow(ctx, 20); !errors.Is(err, ErrMemoryBusy) {
		t.Fatalf("a project's second reservation past half the budget = %v, want ErrMemoryBusy", err)
	}
	if a2.waited < b.wait {
		t.Errorf("the refused reservation waited %s, want the budget's %s", a2.waited, b.wait)
	}
	if err := a2.Grow(ctx, 0); err != nil || a2.Held() != 0 {
		t.Fatalf("refused reservation holds %d", a2.Held())
	}
	other := b.ReserveFor("org_b")
	if err := other.Grow(ctx, 50); err != nil {
		t.Fatalf("another project's half: %v", err)
	}
	// One reservation asking for more than the share takes the share.
	a3 := b.ReserveFor("org_c")
	if err := a3.Grow(ctx, 500); err == nil {
		t.Fatalf("a third project got %d with the budget spent", a3.Held())
	}
	a1.Release()
	other.Release()
	if err := a3.Grow(ctx, 500); err != nil || a3.Held() != 50 {
		t.Fatalf("a reservation asking for more than the share = %v, held %d; want the share, 50", err, a3.Held())
	}
	unknown := b.Reserve()
	if err := unknown.Grow(ctx, 50); err != nil {
		t.Fatalf("a reservation of no project yet: %v", err)
	}
	a3.Release()
	unknown.Release()
	if got := inUse(b); got != 0 {
		t.Fatalf("in use after every release = %d", got)
	}
	if len(b.accounts) != 0 {
		t.Fatalf("accounts still counted: %v", b.accounts)
	}
}

// TestUnauthenticatedShare: requests whose key is not known yet hold at most
// a sixteenth of the budget together (CONTRACT 8), while an organization
// still finds its half; once a request's key is known, Claim moves what it
// holds to its organization, and the sixteenth is free again.
func TestUnauthenticatedShare(t *testing.T) {
	ctx := context.Background()
	b := NewBudget(160, 30*time.Millisecond)
	first, second := b.ReserveUnauthenticated(""), b.ReserveFor("")
	if err := first.Grow(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if err := second.Grow(ctx, 1); !errors.Is(err, ErrMemoryBusy) {
		t.Fatalf("an unauthenticated reservation past a sixteenth = %v, want ErrMemoryBusy", err)
	}
	tenant := b.ReserveFor("org_a")
	if err := tenant.Grow(ctx, 60); err != nil {
		t.Fatalf("an organization's half beside the unauthenticated sixteenth: %v", err)
	}
	if err := first.Claim(ctx, "org_b"); err != nil {
		t.Fatal(err)
	}
	if got := b.Unauthenticated(); got != 0 {
		t.Fatalf("unauthenticated bytes after Claim = %d, want 0", got)
	}
	if err := second.Grow(ctx, 10); err != nil {
		t.Fatalf("the sixteenth after the first request was claimed: %v", err)
	}
	if err := tenant.Claim(ctx, "org_b"); err != nil || b.accounts["org_a"] != 60 {
		t.Fatalf("Claim of an authenticated reservation moved it: %v, %v", err, b.accounts)
	}
	// A claim that would take the organization past its share waits, then fails.
	other := b.ReserveFor("org_b")
	if err := other.Grow(ctx, 70); err != nil {
		t.Fatal(err)
	}
	if err := second.Claim(ctx, "org_b"); !errors.Is(err, ErrMemoryBusy) {
		t.Fatalf("a claim past the organization's share = %v, want ErrMemoryBusy", err)
	}
	for _, r := range []*Reservation{first, second, tenant, other} {
		r.Release()
	}
	if got := inUse(b); got != 0 || len(b.accounts) != 0 {
		t.Fatalf("after every release: in use %d, accounts %v", got, b.accounts)
	}
}

// TestAddressShare: one client address's unauthenticated reservations
// hold at most an eighth of the unauthenticated share together, so that
// its stalled requests leave the rest to other addresses; once claimed
// by an organization, they no longer count to the address.
func TestAddressShare(t *testing.T) {
	ctx := context.Background()
	b := NewBudget(1024, 30*time.Millisecond) // unauthenticated 64, an address 8
	if b.AddrShare() != 8 {
		t.Fatalf("AddrShare = %d, want 8", b.AddrShare())
	}
	a1, a2 := b.ReserveUnauthenticated("10.0.0.1"), b.ReserveUnauthenticated("10.0.0.1")
	if err := a1.Grow(ctx, 6); err != nil {
		t.Fatal(err)
	}
	if err := a2.Grow(ctx, 3); !errors.Is(err, ErrMemoryBusy) {
		t.Fatalf("an address's reservations past its eighth = %v, want ErrMemoryBusy", err)
	}
	other := b.ReserveUnauthenticated("10.0.0.2")
	if err := other.Grow(ctx, 8); err != nil {
		t.Fatalf("another address beside the first's eighth: %v", err)
	}
	if err := a1.Grow(ctx, 100); err != nil || a1.Held() != 8 {
		t.Fatalf("a growth past the address's share took %d, %v; want it capped at 8", a1.Held(), err)
	}
	if err := a1.Claim(ctx, "org_a"); err != nil {
		t.Fatal(err)
	}
	if err := a2.Grow(ctx, 8); err != nil {
		t.Fatalf("the address's share after its first request was claimed: %v", err)
	}
	for _, r := range []*Reservation{a1, a2, other} {
		r.Release()
	}
	if got := inUse(b); got != 0 || len(b.accounts) != 0 {
		t.Fatalf("after every release: in use %d, accounts %v", got, b.accounts)
	}
}
