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

	"github.com/errata-dev/errata/internal/store"
)

// ErrClosed is returned by Enqueue after Stop: the process is shutting down.
var ErrClosed = errors.New("queue: closed")

// Options tune a Committer.
type Options struct {
	// Workers commit in parallel (default: 1 on SQLite, which has one writer;
	// 4 on PostgreSQL, which flushes concurrent commits together).
	Workers int
	// MaxGroupBytes caps the payload bytes of one commit (default 64 MiB).
	MaxGroupBytes int
	// Observe, if set, is told the duration and size of every commit.
	Observe func(d time.Duration, batches, events int, err error)
}

// Committer is the group-commit writer of the ingest queue.
type Committer struct {
	db   *store.DB
	opts Options
	reqs chan *pending

	mu     sync.RWMutex
	closed bool
	wg     sync.WaitGroup
}

type pending struct {
	batch store.Batch
	done  chan error
}

// NewCommitter returns a Committer; call Start before Enqueue.
func NewCommitter(db *store.DB, opts Options) *Committer {
	if opts.Workers <= 0 {
		opts.Workers = 1
		if db.Dialect() == store.Postgres {
			opts.Workers = 4
		}
	}
	if opts.MaxGroupBytes <= 0 {
		opts.MaxGroupBytes = 64 << 20
	}
	return &Committer{db: db, opts: opts, reqs: make(chan *pending, 1024)}
}

// Start launches the commit workers.
func (c *Committer) Start() {
	for i := 0; i < c.opts.Workers; i++ {
		c.wg.Add(1)
		go c.work()
	}
}

// Enqueue makes b durable: it returns nil only once b's transaction has
// committed (and so reached the disk). It does not give up when ctx ends
// after the batch was handed over, because the batch may commit anyway: the
// caller would then report a failure for an accepted batch.
func (c *Committer) Enqueue(ctx context.Context, b store.Batch) (int64, error) {
	p := &pending{batch: b, done: make(chan error, 1)}
	c.mu.RLock()
	if c.closed {
		c.mu.RUnlock()
		return 0, ErrClosed
	}
	select {
	case c.reqs <- p:
	case <-ctx.Done():
		c.mu.RUnlock()
		return 0, ctx.Err()
	}
	c.mu.RUnlock()
	err := <-p.done
	return p.batch.ID, err
}

// Stop refuses new batches, commits those already handed over, and waits.
func (c *Committer) Stop() {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.reqs)
	}
	c.mu.Unlock()
	c.wg.Wait()
}

func (c *Committer) work() {
	defer c.wg.Done()
	group := make([]*pending, 0, 64)
	batches := make([]store.Batch, 0, 64)
	for first := range c.reqs {
		group = append(group[:0], first)
		size := len(first.batch.Payload)
	fill:
		for size < c.opts.MaxGroupBytes {
			select {
			case p, ok := <-c.reqs:
				if !ok {
					break fill
				}
				group = append(group, p)
				size += len(p.batch.Payload)
			default:
				break fill
			}
		}
		batches = batches[:0]
		events := 0
		for _, p := range group {
			batches = append(batches, p.batch)
			events += p.batch.EventCount
		}
		start := time.Now()
		err := c.db.Tx(context.Background(), func(tx *store.Conn) error {
			return tx.InsertBatches(context.Background(), batches)
		})
		if c.opts.Observe != nil {
			c.opts.Observe(time.Since(start), len(batches), events, err)
		}
		for i, p := range group {
			p.batch.ID = batches[i].ID
			p.done <- err
		}
	}
}
