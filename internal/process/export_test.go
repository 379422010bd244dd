package process

import "context"

// Backlogged reports whether the helper workers are at work: the
// latest claim was full (it took as many batches as it asked for).
func (p *Processor) Backlogged() bool { return p.backlog.Load() }

// FoldBudget is how many counts and ids the next fold transaction takes.
func (p *Processor) FoldBudget() int64 { return int64(p.fold.budget.size()) }

// RefreshSearches is the workers' look for stale search messages.
func (p *Processor) RefreshSearches(ctx context.Context) { p.refreshSearches(ctx) }
