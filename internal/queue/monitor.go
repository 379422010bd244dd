package queue

import (
	"context"
	"log/slog"
	"sync"
	"syscall"
	"time"

	"github.com/errata-dev/errata/internal/lifecycle"
	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/store"
)

// Monitor watches the unprocessed backlog, in total and per project, and
// the free disk so that ingestion can refuse work it could not process
// (back-pressure) before reading a request body. It polls the store every
// interval; Added makes a fresh commit count at once, between polls.
// Batches set aside after failing are not backlog: nothing will process
// them until an operator puts them back.
type Monitor struct {
	db       *store.DB
	dir      string // SQLite data directory; "" on PostgreSQL
	maxBytes int64
	minFree  int64
	log      *slog.Logger
	lifecycle.Base

	mu        sync.Mutex
	batches   int64
	events    int64
	bytes     int64
	byProject map[string]int64 // unprocessed bytes per project
	failed    int64            // batches set aside
	free      int64            // -1: unknown
	oldest    time.Time
}

// NewMonitor returns a Monitor refusing work past maxBacklogBytes of
// unprocessed batches or under minFreeDisk bytes free in dir.
func NewMonitor(db *store.DB, dir string, maxBacklogBytes, minFreeDisk int64, log *slog.Logger) *Monitor {
	return &Monitor{db: db, dir: dir, maxBytes: maxBacklogBytes, minFree: minFreeDisk, log: log, free: -1, byProject: map[string]int64{}}
}

// Start polls every second until Stop.
func (m *Monitor) Start(ctx context.Context) error {
	ctx, ok, stopped := m.StartInit(ctx)
	if !ok {
		return nil
	}
	go func() { defer stopped(); m.Run(ctx, time.Second) }()
	return nil
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

// Poll reads the backlog and the free disk once. Its reads are bounded
// as a request's (store.AsRequest): one waiting on a connection gone
// silent would freeze the backlog and processing lag it reports.
func (m *Monitor) Poll(ctx context.Context) {
	ctx = store.AsRequest(ctx)
	rows, err := m.db.Read().BacklogByProject(ctx)
	if err != nil {
		if ctx.Err() == nil {
			m.log.Warn("reading the ingest backlog", "err", err)
		}
		return
	}
	failed, _ := m.db.Read().CountFailedBatches(ctx)
	oldest, _ := m.db.Read().OldestBatch(ctx)
	byProject := make(map[string]int64, len(rows))
	var b, e, n int64
	for _, r := range rows {
		byProject[r.ProjectID] = r.Bytes
		b, e, n = b+r.Batches, e+r.Events, n+r.Bytes
	}
	free := m.freeDisk()
	m.mu.Lock()
	m.batches, m.events, m.bytes, m.byProject, m.failed, m.free, m.oldest = b, e, n, byProject, failed, free, oldest
	m.mu.Unlock()
}

// freeDisk is the free space of the data directory, -1 when unknown or on
// PostgreSQL.
func (m *Monitor) freeDisk() int64 {
	if m.dir == "" {
		return -1
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(m.dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// Added counts a batch of projectID committed since the last poll.
func (m *Monitor) Added(projectID string, events, bytes int) {
	m.mu.Lock()
	m.batches++
	m.events += int64(events)
	m.bytes += int64(bytes)
	m.byProject[projectID] += int64(bytes)
	m.mu.Unlock()
}

// Overloaded reports whether new work of projectID must be refused, and
// why (a metrics reason). The backlog limit holds per project and in
// total, so that one project cannot make the others wait:
//   - a project whose own backlog reaches the limit is refused;
//   - while the total is over the limit, a project is refused once it
//     holds its fair share of it (the limit divided by the number of
//     projects with a backlog, this one included);
//   - past twice the limit everything is refused;
//   - and so is everything while the data directory's free space is
//     under its threshold.
func (m *Monitor) Overloaded(projectID string) (bool, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lowDisk() {
		return true, metrics.RefusedDisk
	}
	if m.maxBytes <= 0 {
		return false, ""
	}
	own := m.byProject[projectID]
	if own >= m.maxBytes {
		return true, metrics.RefusedProjectBacklog
	}
	if m.bytes >= m.maxBytes {
		active := int64(len(m.byProject))
		if _, ok := m.byProject[projectID]; !ok {
			active++
		}
		if m.bytes >= 2*m.maxBytes || own >= m.maxBytes/active {
			return true, metrics.RefusedBacklog
		}
	}
	return false, ""
}

// LowDisk reports whether the data directory's free space, as last read,
// is under its threshold: ingestion is refused then, and the process is
// not ready (/readyz), though its small writes may still fit.
func (m *Monitor) LowDisk() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lowDisk()
}

// lowDisk is LowDisk with m.mu held.
func (m *Monitor) lowDisk() bool { return m.minFree > 0 && m.free >= 0 && m.free < m.minFree }

// DiskAllows reports whether a commit of n more bytes keeps the data
// directory's free space over its threshold. It reads the free space
// afresh: the committer asks before every commit, so a burst cannot
// overshoot the threshold between two polls. Always true on PostgreSQL,
// whose disk is not Errata's to see.
func (m *Monitor) DiskAllows(n int64) bool {
	if m.dir == "" || m.minFree <= 0 {
		return true
	}
	free := m.freeDisk()
	m.mu.Lock()
	m.free = free
	m.mu.Unlock()
	// The WAL gets the pages of the rows and their index entries: count
	// the payload twice.
	return free < 0 || free-2*n >= m.minFree
}

// Stats are the monitor's last readings.
type Stats struct {
	Batches, Events, Bytes, FreeDisk int64
	// Failed counts the batches set aside.
	Failed int64
	// Lag is the age of the oldest unprocessed batch (0 when none).
	Lag time.Duration
}

// Stats returns the last readings.
func (m *Monitor) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Stats{Batches: m.batches, Events: m.events, Bytes: m.bytes, FreeDisk: m.free, Failed: m.failed}
	if !m.oldest.IsZero() && m.batches > 0 {
		s.Lag = time.Since(m.oldest)
	}
	return s
}

// WatchesDisk reports whether the monitor reads free disk space: on SQLite
// it watches the data directory; PostgreSQL's disk is not ours to see.
func (m *Monitor) WatchesDisk() bool { return m.dir != "" }
