package sso

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDiscoveryOfASilentProvider: a provider that accepts connections and
// never answers fails the sign-ins' discovery after the timeout rather
// than holding them for ever, and the sign-ins that waited behind that
// discovery are told its failure without asking again.
func TestDiscoveryOfASilentProvider(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	var held []net.Conn
	var mu sync.Mutex
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			held = append(held, c) // read nothing, answer nothing
			mu.Unlock()
		}
	}()
	c := New(Options{Issuer: "http://" + ln.Addr().String(), ClientID: "errata", AppURL: "http://127.0.0.1:1", Timeout: 300 * time.Millisecond})
	const n = 3
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.AuthURL(context.Background(), NewFlow("/", time.Now()))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil {
			t.Fatalf("sign-in %d: an authorization URL from a provider that never answered", i+1)
		}
	}
	if got := accepted.Load(); got != 1 {
		t.Fatalf("the provider was asked %d times by %d sign-ins at once, want once", got, n)
	}
}

func TestFlowExpired(t *testing.T) {
	began := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	f := NewFlow("/", began)
	if f.Expired(began.Add(FlowTTL)) || !f.Expired(began.Add(FlowTTL+time.Second)) {
		t.Fatalf("a flow begun at %v: expired at its TTL %v, after it %v", began, f.Expired(began.Add(FlowTTL)), f.Expired(began.Add(FlowTTL+time.Second)))
	}
	if !(Flow{State: "s"}).Expired(began) {
		t.Fatal("a flow without its time (a cookie of an older release) is not expired")
	}
}
