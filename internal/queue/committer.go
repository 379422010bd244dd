// Package queue makes accepted ingest batches durable. Committer writes them
// into the store's queue table with group commit: requests that arrive while
// a commit is running share the next one, so one fsync covers many batches
// and durability does not cost throughput.
package queue

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/errata-dev/errata/internal/lifecycle"
	"github.com/errata-dev/errata/internal/store"
)

// ErrClosed is returned by Enqueue after Stop: the process is shutting down.
var ErrClosed = errors.New("queue: closed")

// ErrDiskLow is returned by Enqueue when the commit would take the data
// directory's free space under its threshold: nothing was written.
var ErrDiskLow = errors.New("queue: free disk under the threshold")

// Options tune a Committer.
type Options struct {
	// Workers commit in parallel (default: 1 on SQLite, which has one writer;
	// 4 on PostgreSQL, which flushes concurrent commits together).
	Workers int
	// MaxGroupBytes caps the payload bytes of one commit (default 64 MiB).
	MaxGroupBytes int
	// Observe, if set, is told the duration and size of every commit.
	Observe func(d time.Duration, batches, events int, err error)
	// DiskAllows, if set, is asked before every commit whether n more
	// bytes may be written (Monitor.DiskAllows); when not, the commit's
	// batches fail with ErrDiskLow.
	DiskAllows func(n int64) bool
}

// Committer is the group-commit writer of the ingest queue.
type Committer struct {
	db   *store.DB
	opts Options
	reqs chan *pending

	mu     sync.RWMutex
	closed bool
	wg     sync.WaitGroup

	lifecycle.Base
}

// pending is one request's batches: committed together, all or none.
type pending struct {
	batches []store.Batch
	size    int
	done    chan error
}

// NewCommitter returns a Committer; call Start before Enqueue.
func NewCommitter(db *store.DB, opts Options) *Committer {
	if opts.Workers <= 0 {
		opts.Workers = 1
		if db.ConcurrentWrites() {
			opts.Workers = 4
		}
	}
	if opts.MaxGroupBytes <= 0 {
		opts.MaxGroupBytes = 64 << 20
	}
	return &Committer{db: db, opts: opts, reqs: make(chan *pending, 1024)}
}

// Start launches the commit workers. Stop refuses new batches, commits
// those already handed over, and waits; a stopped Committer stays closed.
func (c *Committer) Start(ctx context.Context) error {
	ctx, ok, stopped := c.StartInit(ctx)
	if !ok {
		return nil
	}
	for i := 0; i < c.opts.Workers; i++ {
		c.wg.Add(1)
		go c.work()
	}
	go func() {
		defer stopped()
		<-ctx.Done()
		c.close()
		c.wg.Wait()
	}()
	return nil
}

// Enqueue makes batches durable in one transaction, all or none: it
// returns nil only once that transaction has committed (and so reached the
// disk), with the batches' ids set. It does not give up when ctx ends
// after the batches were handed over, because they may commit anyway: the
// caller would then report a failure for accepted batches.
func (c *Committer) Enqueue(ctx context.Context, batches ...store.Batch) error {
	p := &pending{batches: batches, done: make(chan error, 1)}
	for _, b := range batches {
		p.size += len(b.Payload)
	}
	c.mu.RLock()
	if c.closed {
		c.mu.RUnlock()
		return ErrClosed
	}
	select {
	case c.reqs <- p:
	case <-ctx.Done():
		c.mu.RUnlock()
		return ctx.Err()
	}
	c.mu.RUnlock()
	return <-p.done
}

// close refuses new batches; the workers commit those handed over and end.
func (c *Committer) close() {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.reqs)
	}
	c.mu.Unlock()
}

func (c *Committer) work() {
	defer c.wg.Done()
	group := make([]*pending, 0, 64)
	batches := make([]store.Batch, 0, 64)
	for first := range c.reqs {
		group = append(group[:0], first)
		size := first.size
	fill:
		for size < c.opts.MaxGroupBytes {
			select {
			case p, ok := <-c.reqs:
				if !ok {
					break fill
				}
				group = append(group, p)
				size += p.size
			default:
				break fill
			}
		}
		batches = batches[:0]
		events := 0
		for _, p := range group {
			for _, b := range p.batches {
				batches = append(batches, b)
				events += b.EventCount
			}
		}
		err := ErrDiskLow
		start := time.Now()
		if c.opts.DiskAllows == nil || c.opts.DiskAllows(int64(size)) {
			// Requests wait for this commit: on PostgreSQL it is bounded
			// by ERRATA_DB_TIMEOUT (store.AsRequest), and a commit that
			// gets no answer is 503, retried by the client. It may have
			// committed all the same (the answer was what went missing):
			// the retry then queues the batches twice, where waiting for
			// ever would have lost the client.
			ctx := store.AsRequest(context.Background())
			err = c.db.Tx(ctx, func(tx *store.Conn) error {
				return tx.InsertBatches(ctx, batches)
			})
		}
		if c.opts.Observe != nil {
			c.opts.Observe(time.Since(start), len(batches), events, err)
		}
		i := 0
		for _, p := range group {
			for j := range p.batches {
				p.batches[j].ID = batches[i].ID
				i++
			}
			p.done <- err
		}
	}
}
