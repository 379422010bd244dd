package queue_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/queue"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestDiskIsCheckedBeforeEachCommit: the free-disk threshold is asked of
// the commit about to be made, not of a reading up to a second old, so a
// burst cannot fill the disk past it; a refused commit writes nothing.
func TestDiskIsCheckedBeforeEachCommit(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	prj := seedProject(t, db)
	dir := filepath.Dir(db.Path())
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	// A threshold 64 MiB under the free space: small commits fit, one of
	// 40 MiB (counted twice for the WAL) does not.
	m := queue.NewMonitor(db, dir, 1<<40, free-64<<20, quiet)
	if !m.DiskAllows(1 << 20) {
		t.Fatal("a 1 MiB commit refused with 64 MiB to spare")
	}
	c := queue.NewCommitter(db, queue.Options{DiskAllows: m.DiskAllows})
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if err := c.Enqueue(ctx, store.Batch{ProjectID: prj, ReceivedAt: time.Now(), EventCount: 1, Payload: make([]byte, 1<<10)}); err != nil {
		t.Fatalf("small commit: %v", err)
	}
	err = c.Enqueue(ctx, store.Batch{ProjectID: prj, ReceivedAt: time.Now(), EventCount: 1, Payload: make([]byte, 40<<20)})
	if !errors.Is(err, queue.ErrDiskLow) {
		t.Fatalf("a commit that would cross the threshold = %v, want ErrDiskLow", err)
	}
	if b, _, _, _ := db.Read().Backlog(ctx); b != 1 {
		t.Fatalf("batches queued = %d, want only the small one", b)
	}
}

// TestBacklogLimitPerProject: a project over the backlog limit is refused
// on its own; while the total is over, a project is refused only once it
// holds its fair share, so one project cannot make the others wait.
func TestBacklogLimitPerProject(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		hog, small, fresh := seedProject(t, db), seedProject(t, db), seedProject(t, db)
		const limit = 1 << 20
		m := queue.NewMonitor(db, "", limit, 0, quiet)
		queueBytes := func(prj string, n int) {
			t.Helper()
			b := store.Batch{ProjectID: prj, ReceivedAt: time.Now(), EventCount: 1, Payload: make([]byte, n)}
			if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertBatches(ctx, []store.Batch{b}) }); err != nil {
				t.Fatal(err)
			}
		}
		queueBytes(hog, limit)
		queueBytes(small, 100)
		m.Poll(ctx)
		if over, why := m.Overloaded(hog); !over || why != metrics.RefusedProjectBacklog {
			t.Errorf("the hog = %v %q, want refused for its own backlog", over, why)
		}
		for _, p := range []string{small, fresh} {
			if over, why := m.Overloaded(p); over {
				t.Errorf("project %s with little backlog refused (%s) because of another project", p, why)
			}
		}
		// The small project grows to half the limit: with two projects
		// holding a backlog and the total over the limit, that is its share.
		queueBytes(small, limit/2)
		m.Poll(ctx)
		if over, why := m.Overloaded(small); !over || why != metrics.RefusedBacklog {
			t.Errorf("a project at its fair share of a full backlog = %v %q, want refused", over, why)
		}
		if over, _ := m.Overloaded(fresh); over {
			t.Error("a project with no backlog refused while the total is under twice the limit")
		}
		m.Added(fresh, 1, limit/2)
		if over, why := m.Overloaded(fresh); !over || why != metrics.RefusedBacklog {
			t.Errorf("past twice the limit = %v %q, want everyone refused", over, why)
		}
	})
}
