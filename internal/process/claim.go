package process

import (
	"context"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

// DefaultClaimEvents is about how many events a claim of small batches
// takes (Options.ClaimEvents): 32 batches of 1,000 events, the load
// generator's and the SDK exporters' usual size, or as many smaller ones.
// A Sentry envelope is queued as a batch of one event: 32 of them made a
// claim, its transaction, its payload read and every group's update for
// 32 events, and one worker took 3,600–4,200 such events a second on
// SQLite and 930 on PostgreSQL (BenchmarkProcessSingle; 6,500–9,900 and
// 2,800 with claims of 1,024 batches).
const DefaultClaimEvents = 32_000

// MaxClaimBatches bounds a claim sized from small batches: the payloads a
// claim reads are held in memory until its last part is applied, and a
// claim sized from one-event batches may meet large ones.
const MaxClaimBatches = 1024

// claimSize is how many batches the next claim takes: ClaimBatches, or
// with ClaimEvents set as many as hold about ClaimEvents events at the
// latest claim's average, between ClaimBatches and MaxClaimBatches.
func (p *Processor) claimSize() int {
	n := p.opts.ClaimBatches
	avg := p.claimAvg.Load()
	if p.opts.ClaimEvents <= 0 || avg <= 0 {
		return n
	}
	return min(max(n, int(int64(p.opts.ClaimEvents)/avg)), max(n, MaxClaimBatches))
}

// claimKeep is how many of a claim's batches to keep: with ClaimEvents
// set, those that hold about ClaimEvents events (at least ClaimBatches),
// so that a claim sized from small batches that meets large ones does not
// read MaxClaimBatches large payloads at once. ProcessOne releases the
// rest.
func (p *Processor) claimKeep(batches []store.Batch) int {
	if p.opts.ClaimEvents <= 0 {
		return len(batches)
	}
	events := 0
	for i, b := range batches {
		if i >= p.opts.ClaimBatches && events >= p.opts.ClaimEvents {
			return i
		}
		events += b.EventCount
	}
	return len(batches)
}

// sawClaim records the average events a batch of a claim held.
func (p *Processor) sawClaim(batches []store.Batch) {
	if len(batches) == 0 {
		return
	}
	events := 0
	for _, b := range batches {
		events += b.EventCount
	}
	p.claimAvg.Store(int64(max(1, events/len(batches))))
}

// DefaultLinger is Options.Linger's default. Under a steady stream of
// small commits (Sentry envelopes, one event a batch, a commit group every
// few milliseconds) a worker that claimed again at once took one commit
// group a claim; waiting 25 ms lets a claim take dozens, each group's
// update and the claim's transaction shared by them. 32 senders of
// envelopes: 2,800–3,000 against 2,560–2,620 accepted a second on a busy
// machine (docs/decisions.md, "Claims sized from the batches' events").
// It adds at most that to the time a group takes to appear.
const DefaultLinger = 25 * time.Millisecond

// linger waits Linger after a claim that left no backlog (with a backlog
// the next claim is full at once), or until ctx ends.
func (p *Processor) linger(ctx context.Context) {
	if p.opts.Linger <= 0 || p.backlog.Load() {
		return
	}
	t := time.NewTimer(p.opts.Linger)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
