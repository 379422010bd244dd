// Package cluster is what the errata processes sharing one database know of
// each other: who is alive with which roles (so that limits meant for the
// whole installation are shared out between the api processes), and which
// process runs the periodic jobs (a lease that moves to another scheduler
// when its holder dies).
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/errata-dev/errata/internal/lifecycle"
	"github.com/errata-dev/errata/internal/store"
)

// Intervals of the heartbeat: a process is seen every Beat; one not seen for
// Stale is taken for dead; a lease lasts LeaseFor and is renewed every
// Beat, so another process takes it over at most LeaseFor after its holder
// died.
const (
	Beat     = 5 * time.Second
	Stale    = 20 * time.Second
	LeaseFor = 30 * time.Second
)

// SchedulerLease is the lease of the scheduler role's periodic jobs: digests
// and retention.
const SchedulerLease = "scheduler"

// Options configure a Member.
type Options struct {
	Roles []string
	// Lead names the leases this process competes for (e.g. SchedulerLease).
	Lead []string
	// OnPeers is told how many live processes have each role, after every
	// beat.
	OnPeers func(byRole map[string]int)
	Now     func() time.Time
	Logger  *slog.Logger
}

// Member is this process in the cluster: it records itself every Beat,
// counts its peers, and holds the leases it competes for while alive.
type Member struct {
	db   *store.DB
	opts Options
	self store.Process

	mu     sync.Mutex
	peers  map[string]int
	leases map[string]*atomic.Bool

	lifecycle.Base
}

// New returns a Member; Start runs it.
func New(db *store.DB, opts Options) *Member {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	host, _ := os.Hostname()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	m := &Member{db: db, opts: opts, leases: map[string]*atomic.Bool{}, peers: map[string]int{},
		self: store.Process{ID: "proc_" + hex.EncodeToString(b), Roles: opts.Roles, Host: host, PID: os.Getpid(), StartedAt: opts.Now().UTC()}}
	for _, name := range opts.Lead {
		m.leases[name] = &atomic.Bool{}
	}
	return m
}

// ID is this process's identifier in the processes table.
func (m *Member) ID() string { return m.self.ID }

// Leads reports whether this process holds the lease name now.
func (m *Member) Leads(name string) bool {
	l, ok := m.leases[name]
	return ok && l.Load()
}

// Peers is how many live processes have role (this one included), at
// least 1 when this process has it.
func (m *Member) Peers(role string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.peers[role]
	if n == 0 && slices.Contains(m.opts.Roles, role) {
		n = 1
	}
	return n
}

// Start beats once (so that leases and peer counts are known when Start
// returns) and then every Beat until Stop, which stops beating, gives up
// the leases held and forgets this process, so that another takes over at
// once rather than after LeaseFor.
func (m *Member) Start(ctx context.Context) error {
	ctx, ok, stopped := m.StartInit(ctx)
	if !ok {
		return nil
	}
	// A beat is bounded as a request (store.AsRequest): one waiting on a
	// connection gone silent would stop the beats for good, and with
	// them this process's leases and peers.
	ctx = store.AsRequest(ctx)
	m.beat(ctx)
	go func() {
		defer stopped()
		t := time.NewTicker(Beat)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				m.leave(context.WithoutCancel(ctx))
				return
			case <-t.C:
				m.beat(context.WithoutCancel(ctx)) // a beat begun ends
			}
		}
	}()
	return nil
}

// leave gives up the leases held and forgets this process.
func (m *Member) leave(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for name, held := range m.leases {
		if held.Swap(false) {
			if err := m.db.Write().ReleaseLease(ctx, name, m.self.ID); err != nil {
				m.opts.Logger.Warn("releasing a lease", "lease", name, "err", err)
			}
		}
	}
	if err := m.db.Write().ForgetProcess(ctx, m.self.ID, m.opts.Now().Add(-Stale)); err != nil {
		m.opts.Logger.Warn("leaving the cluster", "err", err)
	}
}

// Beat records this process, renews or takes its leases and counts the
// live processes by role, as Start does every Beat (tests call it to
// beat at once). A failure keeps the last counts; a lease whose renewal
// fails is given up (another process may take it when it ends).
func (m *Member) Beat(ctx context.Context) { m.beat(ctx) }

func (m *Member) beat(ctx context.Context) {
	now := m.opts.Now().UTC()
	m.self.SeenAt = now
	w := m.db.Write()
	if err := w.SeeProcess(ctx, m.self); err != nil {
		m.opts.Logger.Warn("cluster heartbeat", "err", err)
	}
	for name, held := range m.leases {
		got, err := w.AcquireLease(ctx, name, m.self.ID, now.Add(LeaseFor), now)
		if err != nil {
			m.opts.Logger.Warn("renewing a lease", "lease", name, "err", err)
			got = false
		}
		if was := held.Swap(got); was != got {
			m.opts.Logger.Info("lease changed hands", "lease", name, "held", got)
		}
	}
	live, err := m.db.Read().LiveProcesses(ctx, now.Add(-Stale))
	if err != nil {
		m.opts.Logger.Warn("counting processes", "err", err)
		return
	}
	peers := map[string]int{}
	for _, p := range live {
		for _, r := range p.Roles {
			peers[r]++
		}
	}
	m.mu.Lock()
	m.peers = peers
	m.mu.Unlock()
	if m.opts.OnPeers != nil {
		m.opts.OnPeers(peers)
	}
}
