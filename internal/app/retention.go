package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/errata-dev/errata/internal/cluster"
	"github.com/errata-dev/errata/internal/lifecycle"
	"github.com/errata-dev/errata/internal/store"
)

// retention deletes expired sessions and what retention no longer keeps,
// hourly, in the scheduler process that holds the scheduler lease: one
// process at a time.
type retention struct {
	db    *store.DB
	keep  store.Retention
	leads func() bool
	now   func() time.Time
	log   *slog.Logger
	every time.Duration
	lifecycle.Base
}

// Start runs retention until Stop, which ends it after the pass in hand.
func (r *retention) Start(ctx context.Context) error {
	ctx, ok, stopped := r.StartInit(ctx)
	if !ok {
		return nil
	}
	go func() { defer stopped(); r.loop(ctx) }()
	return nil
}

func (r *retention) loop(ctx context.Context) {
	last := time.Time{}
	for ctx.Err() == nil {
		if r.leads() && r.now().Sub(last) >= r.every {
			r.run(ctx)
			last = r.now()
		}
		t := time.NewTimer(cluster.Beat) // a new leader runs within a beat
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

func (r *retention) run(ctx context.Context) {
	now := r.now()
	if n, err := r.db.Write().DeleteExpiredSessions(ctx, now); err != nil && ctx.Err() == nil {
		r.log.Warn("deleting expired sessions", "err", err)
	} else if n > 0 {
		r.log.Info("expired sessions deleted", "count", n)
	}
	if p, err := r.db.Write().Prune(ctx, r.keep, now); err != nil && ctx.Err() == nil {
		r.log.Warn("pruning old data", "err", err)
	} else if p != (store.Pruned{}) {
		r.log.Info("old data pruned", "minute_counts", p.Minutes, "hour_counts", p.Hours, "tickets", p.Tickets, "info_summaries", p.Summaries,
			"digests", p.Digests, "deliveries", p.Deliveries, "audit_entries", p.Audit, "releases", p.Releases, "uploaded_files", p.Artifacts,
			"lookup_ids", p.Refs)
	}
}
