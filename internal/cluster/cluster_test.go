package cluster_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/cluster"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// TestSchedulerLeaseMovesWhenItsHolderDies: of two schedulers one holds the
// lease; the other takes it when the holder stops (at once) or dies (after
// LeaseFor); peers are counted by role.
func TestSchedulerLeaseMovesWhenItsHolderDies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		c := &clock{t: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)}
		var mu sync.Mutex
		seen := map[string]int{}
		member := func(roles ...string) *cluster.Member {
			return cluster.New(db, cluster.Options{Roles: roles, Lead: []string{cluster.SchedulerLease}, Now: c.Now,
				OnPeers: func(p map[string]int) { mu.Lock(); seen = p; mu.Unlock() }})
		}
		newMember := func(roles ...string) *cluster.Member {
			m := member(roles...)
			if err := m.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			return m
		}
		a := newMember("scheduler")
		// b beats only when the test says, so that it can die without a
		// word (no Stop, no more beats).
		b := member("scheduler", "api")
		_ = beat(b)
		if !a.Leads(cluster.SchedulerLease) || b.Leads(cluster.SchedulerLease) {
			t.Fatalf("leads: a %v, b %v; want a only", a.Leads(cluster.SchedulerLease), b.Leads(cluster.SchedulerLease))
		}
		mu.Lock()
		if seen["scheduler"] != 2 || seen["api"] != 1 {
			t.Errorf("peers = %v, want 2 schedulers and 1 api", seen)
		}
		mu.Unlock()
		if b.Peers("scheduler") != 2 || b.Peers("worker") != 0 {
			t.Errorf("b counts %d schedulers and %d workers, want 2 and 0", b.Peers("scheduler"), b.Peers("worker"))
		}

		// a stops cleanly: b takes the lease at its next beat.
		a.Stop()
		if err := beat(b); err != nil {
			t.Fatal(err)
		}
		if !b.Leads(cluster.SchedulerLease) {
			t.Fatal("b did not take the lease a gave up")
		}

		// b dies (no Stop): c cannot take the lease until it has lapsed.
		d := newMember("scheduler")
		defer d.Stop()
		if d.Leads(cluster.SchedulerLease) {
			t.Fatal("d took a lease b still holds")
		}
		c.Add(cluster.LeaseFor + time.Second)
		if err := beat(d); err != nil {
			t.Fatal(err)
		}
		if !d.Leads(cluster.SchedulerLease) {
			t.Fatal("d did not take the lease after b's lapsed")
		}
		mu.Lock()
		if seen["api"] != 0 {
			t.Errorf("peers after b died = %v, want no api process", seen)
		}
		mu.Unlock()
	})
}

// beat makes m beat now instead of at its next tick.
func beat(m *cluster.Member) error {
	m.Beat(context.Background())
	return nil
}
