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
	if !b.holdConn() || !b.holdConn() {
		t.Fatal("connections refused a charge with room under half the budget")
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
