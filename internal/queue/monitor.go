package queue

import (
	"context"
	"log/slog"
	"sync"
	"syscall"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

// Monitor watches the unprocessed backlog and the free disk so that
// ingestion can refuse work it could not process (back-pressure) before
// reading a request body. It polls the store every interval; Added makes a
// fresh commit count at once, between polls.
type Monitor struct {
	db       *store.DB
	dir      string // SQLite data directory; "" on PostgreSQL
	maxBytes int64
	minFree  int64
	log      *slog.Logger

	mu      sync.Mutex
	batches int64
	events  int64
	bytes   int64
	free    int64 // -1: unknown
	oldest  time.Time
}

// NewMonitor returns a Monitor refusing work past maxBacklogBytes of
// unprocessed batches or under minFreeDisk bytes free in dir.
func NewMonitor(db *store.DB, dir string, maxBacklogBytes, minFreeDisk int64, log *slog.Logger) *Monitor {
	return &Monitor{db: db, dir: dir, maxBytes: maxBacklogBytes, minFree: minFreeDisk, log: log, free: -1}
}

// Run polls until ctx ends.
func (m *Monitor) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		m.Poll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Poll reads the backlog and the free disk once.
func (m *Monitor) Poll(ctx context.Context) {
	b, e, n, err := m.db.Read().Backlog(ctx)
	if err != nil {
		if ctx.Err() == nil {
			m.log.Warn("reading the ingest backlog", "err", err)
		}
		return
	}
	oldest, _ := m.db.Read().OldestBatch(ctx)
	free := int64(-1)
	if m.dir != "" {
		var st syscall.Statfs_t
		if err := syscall.Statfs(m.dir, &st); err == nil {
			free = int64(st.Bavail) * int64(st.Bsize)
		}
	}
	m.mu.Lock()
	m.batches, m.events, m.bytes, m.free, m.oldest = b, e, n, free, oldest
	m.mu.Unlock()
}

// Added counts a batch committed since the last poll.
func (m *Monitor) Added(events, bytes int) {
	m.mu.Lock()
	m.batches++
	m.events += int64(events)
	m.bytes += int64(bytes)
	m.mu.Unlock()
}

// Overloaded reports whether new work must be refused, and why: "backlog"
// or "disk".
func (m *Monitor) Overloaded() (bool, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.maxBytes > 0 && m.bytes >= m.maxBytes:
		return true, "backlog"
	case m.minFree > 0 && m.free >= 0 && m.free < m.minFree:
		return true, "disk"
	}
	return false, ""
}

// Stats are the monitor's last readings.
type Stats struct {
	Batches, Events, Bytes, FreeDisk int64
	// Lag is the age of the oldest unprocessed batch (0 when none).
	Lag time.Duration
}

// Stats returns the last readings.
func (m *Monitor) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Stats{Batches: m.batches, Events: m.events, Bytes: m.bytes, FreeDisk: m.free}
	if !m.oldest.IsZero() && m.batches > 0 {
		s.Lag = time.Since(m.oldest)
	}
	return s
}
