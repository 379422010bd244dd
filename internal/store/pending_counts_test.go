package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// foldAll folds every bucket until nothing is pending.
func foldAll(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	for b := 0; b < store.PendingBuckets; b++ {
		for {
			var n int
			if err := db.Tx(ctx, func(c *store.Conn) (err error) { n, err = c.FoldPendingCounts(ctx, b); return err }); err != nil {
				t.Fatalf("FoldPendingCounts(%d): %v", b, err)
			}
			if n == 0 {
				break
			}
		}
	}
}

// addPending records counts and ids as pending in a transaction of their own.
func addPending(t *testing.T, db *store.DB, counts []store.FacetCount, refs []store.EventRef) {
	t.Helper()
	ctx := context.Background()
	if err := db.Tx(ctx, func(c *store.Conn) error { return c.AddPendingCounts(ctx, counts, refs) }); err != nil {
		t.Fatalf("AddPendingCounts: %v", err)
	}
}

// TestPendingCountsFoldAsAdded: counts and ids recorded as pending are
// invisible until folded, then exactly what AddFacets and AddEventRefs
// would have made of them, however many rows they were recorded in; a
// folded bucket is empty.
func TestPendingCountsFoldAsAdded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		var groups []string
		for i := range 40 {
			groups = append(groups, seedGroupFor(t, db.Write(), p.ID, fmt.Sprint("fp", i)))
		}
		// 5 transactions of counts: each group gets environment
		// production once a transaction, user.id u<i%3>, and a trace id.
		for tx := range 5 {
			var counts []store.FacetCount
			var refs []store.EventRef
			for i, g := range groups {
				counts = append(counts, store.FacetCount{GroupID: g, Key: "environment", Value: "production", N: 1},
					store.FacetCount{GroupID: g, Key: "user.id", Value: fmt.Sprint("u", (i+tx)%3), N: 2})
				refs = append(refs, store.EventRef{Kind: "trace", Ref: fmt.Sprintf("trace-%d", i), ProjectID: p.ID, GroupID: g,
					LastSeen: now.Add(time.Duration(tx) * time.Second)})
			}
			addPending(t, db, counts, refs)
		}
		if has, err := db.Read().HasPendingCounts(ctx); err != nil || !has {
			t.Fatalf("HasPendingCounts = %v, %v; want true", has, err)
		}
		fs, err := db.Read().GroupFacets(ctx, groups[0], []string{"environment"}, 10)
		if err != nil || fs[0].Total != 0 {
			t.Fatalf("before the fold: %+v, %v; want nothing counted yet", fs, err)
		}
		foldAll(t, db)
		if has, err := db.Read().HasPendingCounts(ctx); err != nil || has {
			t.Fatalf("after the fold HasPendingCounts = %v, %v; want false", has, err)
		}
		for _, g := range groups {
			fs, err := db.Read().GroupFacets(ctx, g, []string{"environment", "user.id"}, 10)
			if err != nil {
				t.Fatal(err)
			}
			if fs[0].Total != 5 || fs[1].Total != 10 || len(fs[1].Values) != 3 {
				t.Fatalf("group %s: facets %+v; want environment 5, user.id 10 over 3 values", g, fs)
			}
			gr, err := db.Read().GroupByID(ctx, g)
			if err != nil || gr.UserCount != 3 {
				t.Fatalf("user_count = %d, %v; want 3", gr.UserCount, err)
			}
		}
		ids, err := db.Read().LookupRefs(ctx, p.OrgID, "trace", "trace-7", 10)
		if err != nil || len(ids) != 1 || ids[0] != groups[7] {
			t.Fatalf("LookupRefs = %v, %v; want [%s]", ids, err, groups[7])
		}
	})
}

// TestPendingCountsOfMergedAndDeletedGroups: a merge folds the merged
// group's pending counts first, so that they follow it into the target;
// the pending counts of a group deleted since are dropped by the fold.
func TestPendingCountsOfMergedAndDeletedGroups(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		from, to := seedGroupFor(t, db.Write(), p.ID, "from"), seedGroupFor(t, db.Write(), p.ID, "to")
		gone := seedProject(t, db.Write())
		goneGroup := seedGroupFor(t, db.Write(), gone.ID, "gone")
		counts := []store.FacetCount{{GroupID: from, Key: "region", Value: "eu", N: 3}, {GroupID: to, Key: "region", Value: "eu", N: 1},
			{GroupID: goneGroup, Key: "region", Value: "us", N: 9}}
		addPending(t, db, counts, nil)
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.MoveGroupData(ctx, from, to) }); err != nil {
			t.Fatalf("MoveGroupData: %v", err)
		}
		if err := db.Write().DeleteProject(ctx, gone.ID); err != nil {
			t.Fatal(err)
		}
		foldAll(t, db)
		fs, err := db.Read().GroupFacets(ctx, to, []string{"region"}, 10)
		if err != nil || fs[0].Total != 4 {
			t.Fatalf("target facets = %+v, %v; want region eu 4", fs, err)
		}
		if fs, err := db.Read().GroupFacets(ctx, from, []string{"region"}, 10); err != nil || fs[0].Total != 0 {
			t.Fatalf("merged group's facets = %+v, %v; want none left", fs, err)
		}
		if has, err := db.Read().HasPendingCounts(ctx); err != nil || has {
			t.Fatalf("HasPendingCounts = %v, %v; want false (the deleted group's counts dropped)", has, err)
		}
	})
}

// TestPendingCountsFoldedOnceByRacingFolders: folders of one bucket fired
// together (several processes on PostgreSQL) add each pending row once.
func TestPendingCountsFoldedOnceByRacingFolders(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		g := seedGroupFor(t, db.Write(), p.ID, "hot")
		const rows = 30
		for range rows {
			counts := []store.FacetCount{{GroupID: g, Key: "region", Value: "eu", N: 1}}
			addPending(t, db, counts, nil)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for b := 0; b < store.PendingBuckets; b++ {
					err := db.Tx(ctx, func(c *store.Conn) error { _, err := c.FoldPendingCounts(ctx, b); return err })
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("fold: %v", err)
		}
		fs, err := db.Read().GroupFacets(ctx, g, []string{"region"}, 10)
		if err != nil || fs[0].Total != rows {
			t.Fatalf("facets = %+v, %v; want region eu %d exactly", fs, err, rows)
		}
	})
}

// TestPendingCountsUnreadableRowDropped: a pending row that cannot be read
// is dropped by the fold, and the bucket's other rows are folded, rather
// than the bucket stopping for good.
func TestPendingCountsUnreadableRowDropped(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		g := seedGroupFor(t, db.Write(), p.ID, "g")
		first := []store.FacetCount{{GroupID: g, Key: "region", Value: "eu", N: 1}}
		addPending(t, db, first, nil)
		bucket := -1
		for b := 0; b < store.PendingBuckets; b++ { // the group's bucket: the one whose fold takes its row
			var n int
			if err := db.Tx(ctx, func(c *store.Conn) (err error) { n, err = c.FoldPendingCounts(ctx, b); return err }); err != nil {
				t.Fatal(err)
			}
			if n == 1 {
				bucket = b
				break
			}
		}
		if bucket < 0 {
			t.Fatal("no bucket folded the group's row")
		}
		for _, data := range [][]byte{{9, 9, 9}, {1, 200}} { // an unknown version; a truncated set
			if err := db.ExecForTest(ctx, `INSERT INTO pending_counts (bucket, data) VALUES (?, ?)`, bucket, data); err != nil {
				t.Fatal(err)
			}
		}
		counts := []store.FacetCount{{GroupID: g, Key: "region", Value: "eu", N: 2}}
		addPending(t, db, counts, nil)
		foldAll(t, db)
		if fs, err := db.Read().GroupFacets(ctx, g, []string{"region"}, 10); err != nil || fs[0].Total != 3 {
			t.Fatalf("facets = %+v, %v; want region eu 3 (the readable rows folded)", fs, err)
		}
		if has, err := db.Read().HasPendingCounts(ctx); err != nil || has {
			t.Fatalf("HasPendingCounts = %v, %v; want false (the unreadable rows dropped)", has, err)
		}
	})
}

// TestPendingCountsFoldBounded: one fold transaction takes no further
// pending row once the rows it took hold store.FoldCounts counts,
// so that it holds the writer briefly whatever the rows hold; the next
// transactions take the rest and the counts come out whole.
func TestPendingCountsFoldBounded(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		g := seedGroupFor(t, db.Write(), p.ID, "fp-bounded")
		per := store.FoldCounts * 3 / 4 // two rows pass the bound
		for row := range 3 {
			counts := make([]store.FacetCount, per)
			for i := range counts {
				counts[i] = store.FacetCount{GroupID: g, Key: "request_id", Value: fmt.Sprintf("r%d-%d", row, i), N: 1}
			}
			addPending(t, db, counts, nil)
		}
		b := store.PendingBucketForTest(g)
		var folded []int
		for {
			var n int
			if err := db.Tx(ctx, func(c *store.Conn) (err error) { n, err = c.FoldPendingCounts(ctx, b); return err }); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			folded = append(folded, n)
		}
		if fmt.Sprint(folded) != "[2 1]" {
			t.Errorf("rows folded a transaction: %v, want [2 1]", folded)
		}
		fs, err := db.Read().GroupFacets(ctx, g, []string{"request_id"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(3 * per); fs[0].Total != want {
			t.Errorf("request_id counted %d times, want %d", fs[0].Total, want)
		}
		// A larger limit takes the three rows at once, and says how many
		// counts they held.
		for range 3 {
			counts := []store.FacetCount{{GroupID: g, Key: "region", Value: "eu", N: 1}, {GroupID: g, Key: "region", Value: "us", N: 1}}
			addPending(t, db, counts, nil)
		}
		var rows, n int
		if err := db.Tx(ctx, func(c *store.Conn) (err error) { rows, n, err = c.FoldPendingCountsUpTo(ctx, b, 1_000_000); return err }); err != nil {
			t.Fatal(err)
		}
		if rows != 3 || n != 6 {
			t.Errorf("FoldPendingCountsUpTo = %d rows, %d counts; want 3 and 6", rows, n)
		}
	})
}

// TestPendingFoldReadBeforeItsTransaction: a fold read outside its
// transaction adds what FoldPendingCountsUpTo would; when another fold took
// its rows meanwhile, applying it answers ErrPendingMoved and adds nothing,
// so that every count is added once.
func TestPendingFoldReadBeforeItsTransaction(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		g := seedGroupFor(t, db.Write(), p.ID, "fp")
		for range 3 {
			addPending(t, db, []store.FacetCount{{GroupID: g, Key: "region", Value: "eu", N: 2}}, nil)
		}
		var f *store.PendingFold
		bucket := -1
		for b := 0; b < store.PendingBuckets; b++ {
			got, err := db.Read().ReadPendingFold(ctx, b, 1_000_000)
			if err != nil {
				t.Fatal(err)
			}
			if got.Rows > 0 {
				f, bucket = got, b
			}
		}
		if f == nil || f.Rows != 3 || f.Counts != 3 {
			t.Fatalf("ReadPendingFold = %+v; want 3 rows of 1 count", f)
		}
		// Another fold takes the rows first.
		if err := db.Tx(ctx, func(c *store.Conn) error { _, err := c.FoldPendingCounts(ctx, bucket); return err }); err != nil {
			t.Fatal(err)
		}
		err := db.Tx(ctx, func(c *store.Conn) error { return c.ApplyPendingFold(ctx, f) })
		if !errors.Is(err, store.ErrPendingMoved) {
			t.Fatalf("ApplyPendingFold after another fold = %v, want ErrPendingMoved", err)
		}
		if n := regionCount(t, db, g); n != 6 {
			t.Fatalf("region counted %d, want 6: each pending count added once", n)
		}
		// Read and applied with nothing in between: added once.
		addPending(t, db, []store.FacetCount{{GroupID: g, Key: "region", Value: "eu", N: 5}}, nil)
		if f, err = db.Read().ReadPendingFold(ctx, bucket, 1_000_000); err != nil || f.Rows != 1 {
			t.Fatalf("ReadPendingFold = %+v, %v; want 1 row", f, err)
		}
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.ApplyPendingFold(ctx, f) }); err != nil {
			t.Fatal(err)
		}
		if n := regionCount(t, db, g); n != 11 {
			t.Fatalf("region counted %d, want 11", n)
		}
		if has, err := db.Read().HasPendingCounts(ctx); err != nil || has {
			t.Fatalf("HasPendingCounts = %v, %v; want false", has, err)
		}
	})
}

// regionCount is the group's count of region values.
func regionCount(t *testing.T, db *store.DB, groupID string) int64 {
	t.Helper()
	fs, err := db.Read().GroupFacets(context.Background(), groupID, []string{"region"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	return fs[0].Total
}
