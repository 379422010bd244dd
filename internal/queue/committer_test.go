package queue_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/queue"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func seedProject(t testing.TB, db *store.DB) string {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	o := store.Org{ID: id.New(id.Org), Name: "o", Plan: "team", CreatedAt: now, UpdatedAt: now}
	p := store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "p", CreatedAt: now, UpdatedAt: now}
	if err := db.Write().CreateOrg(ctx, o); err != nil {
		t.Fatal(err)
	}
	if err := db.Write().CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func TestConcurrentBatchesShareCommitsAndAllLand(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		prj := seedProject(t, db)
		var commits, maxGroup atomic.Int64
		c := queue.NewCommitter(db, queue.Options{Observe: func(_ time.Duration, batches, _ int, err error) {
			if err != nil {
				t.Errorf("commit: %v", err)
			}
			commits.Add(1)
			for {
				m := maxGroup.Load()
				if int64(batches) <= m || maxGroup.CompareAndSwap(m, int64(batches)) {
					break
				}
			}
		}})
		if err := c.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		const n = 200
		var wg sync.WaitGroup
		ids := make([]int64, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				b := []store.Batch{{ProjectID: prj, ReceivedAt: time.Now(), EventCount: 3, Payload: []byte(fmt.Sprintf(`[%d]`, i))}}
				if err := c.Enqueue(context.Background(), b...); err != nil {
					t.Errorf("Enqueue: %v", err)
				}
				ids[i] = b[0].ID
			}(i)
		}
		wg.Wait()
		c.Stop()
		got, err := db.Read().ListBatches(context.Background(), prj)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("queued batches = %d, want %d", len(got), n)
		}
		seen := map[int64]bool{}
		for _, id := range ids {
			if id == 0 || seen[id] {
				t.Fatalf("Enqueue returned id %d twice or zero", id)
			}
			seen[id] = true
		}
		if commits.Load() >= n || maxGroup.Load() < 2 {
			t.Fatalf("%d commits for %d batches (largest group %d): want group commit", commits.Load(), n, maxGroup.Load())
		}
		_, events, _, err := db.Read().Backlog(context.Background())
		if err != nil || events != 3*n {
			t.Fatalf("Backlog events = %d, %v; want %d", events, err, 3*n)
		}
		if err := c.Enqueue(context.Background(), store.Batch{ProjectID: prj}); !errors.Is(err, queue.ErrClosed) {
			t.Fatalf("Enqueue after Stop = %v, want ErrClosed", err)
		}
	})
}

func TestCommitsWaitForTheDisk(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		got, err := db.DurabilitySetting(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := map[store.Dialect]string{store.SQLite: "2", store.Postgres: "on"}[db.Dialect()]
		if got != want {
			t.Fatalf("durability setting = %q, want %q (SQLite synchronous=FULL, PostgreSQL synchronous_commit=on)", got, want)
		}
	})
}
