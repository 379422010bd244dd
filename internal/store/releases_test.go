package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestReleaseRetention: a release past retention goes with its files and
// deploys; one with a recent event stays, and so do its files.
func TestReleaseRetention(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := db.Write()
		p := seedProject(t, w)
		old := now.Add(-100 * 24 * time.Hour)
		gone, err := w.EnsureRelease(ctx, p.ID, "1.0", id.New(id.Release), old)
		if err != nil {
			t.Fatal(err)
		}
		kept, err := w.EnsureRelease(ctx, p.ID, "1.1", id.New(id.Release), old)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.CountReleaseEvents(ctx, p.ID, "1.1", id.New(id.Release), now, now, 3, 1); err != nil {
			t.Fatal(err)
		}
		for _, r := range []store.Release{gone, kept} {
			if err := w.CreateArtifact(ctx, store.Artifact{ID: id.New(id.Artifact), ProjectID: p.ID, ReleaseID: r.ID, URL: "~/main.js.map",
				Kind: "source_map", Data: []byte("{}"), CreatedAt: old}); err != nil {
				t.Fatal(err)
			}
			if err := w.CreateDeploy(ctx, store.Deploy{ID: id.New(id.Deploy), ReleaseID: r.ID, Environment: "production", FinishedAt: old}); err != nil {
				t.Fatal(err)
			}
		}
		// An old release given a map today, and one deployed to today (a
		// rollback): their last change is recent, they stay with their files.
		uploaded, err := w.EnsureRelease(ctx, p.ID, "0.9", id.New(id.Release), old)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.CreateArtifact(ctx, store.Artifact{ID: id.New(id.Artifact), ProjectID: p.ID, ReleaseID: uploaded.ID, URL: "~/main.js.map",
			Kind: "source_map", Data: []byte("{}"), CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
		deployed, err := w.EnsureRelease(ctx, p.ID, "0.8", id.New(id.Release), old)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.CreateDeploy(ctx, store.Deploy{ID: id.New(id.Deploy), ReleaseID: deployed.ID, Environment: "production", FinishedAt: now}); err != nil {
			t.Fatal(err)
		}
		if err := w.PutChunk(ctx, p.OrgID, "da39a3ee5e6b4b0d3255bfef95601890afd80709", nil, old); err != nil {
			t.Fatal(err)
		}
		pr, err := w.Prune(ctx, store.DefaultRetention, now)
		if err != nil {
			t.Fatal(err)
		}
		if pr.Releases != 1 || pr.Artifacts != 1 {
			t.Errorf("pruned %d releases and %d files, want 1 and 1", pr.Releases, pr.Artifacts)
		}
		if r, err := w.ReleaseByID(ctx, uploaded.ID); err != nil || r.ArtifactCount != 1 {
			t.Errorf("old release given a map today = %+v, %v; want it kept with its map", r, err)
		}
		if _, err := w.ReleaseByID(ctx, deployed.ID); err != nil {
			t.Errorf("old release deployed today: %v, want it kept", err)
		}
		if _, err := w.ReleaseByID(ctx, gone.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("old release: %v, want it deleted", err)
		}
		r, err := w.ReleaseByID(ctx, kept.ID)
		if err != nil || r.ArtifactCount != 1 || r.EventCount != 3 || r.NewGroups != 1 {
			t.Errorf("kept release = %+v, %v; want its artifact and counts", r, err)
		}
		if ok, _ := w.HasChunk(ctx, p.OrgID, "da39a3ee5e6b4b0d3255bfef95601890afd80709"); ok {
			t.Error("an old chunk was kept")
		}
	})
}

// TestReleaseOrderIsFirstSeen: the order "resolved in a release" uses is
// the releases table's first_seen: a release sentry-cli made is unseen
// until an event names it; the first event's time stays; retention keeps
// the row (not the files) of a release a group was resolved in.
func TestReleaseOrderIsFirstSeen(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := db.Write()
		p := seedProject(t, w)
		newID := func() string { return id.New(id.Release) }
		made, err := w.EnsureRelease(ctx, p.ID, "1.0", newID(), now)
		if err != nil {
			t.Fatal(err)
		}
		if seen, err := w.ReleaseFirstSeen(ctx, p.ID, []string{"1.0"}); err != nil || len(seen) != 0 {
			t.Errorf("a release no event named is seen: %v, %v", seen, err)
		}
		t1, t2 := now.Add(time.Minute), now.Add(time.Hour)
		if err := w.NoteReleases(ctx, p.ID, []string{"1.0", "blue"}, newID, t1); err != nil {
			t.Fatal(err)
		}
		if err := w.NoteReleases(ctx, p.ID, []string{"1.0", "green"}, newID, t2); err != nil {
			t.Fatal(err)
		}
		seen, err := w.ReleaseFirstSeen(ctx, p.ID, []string{"1.0", "blue", "green", "red"})
		if err != nil || len(seen) != 3 || !seen["1.0"].Equal(t1) || !seen["blue"].Equal(t1) || !seen["green"].Equal(t2) {
			t.Errorf("ReleaseFirstSeen = %v, %v", seen, err)
		}
		recent, err := w.RecentReleases(ctx, p.ID, 10)
		if err != nil || strings.Join(recent, ",") != "green,blue,1.0" {
			t.Errorf("RecentReleases = %v, %v", recent, err)
		}
		if r, err := w.ReleaseByVersion(ctx, p.ID, "1.0"); err != nil || r.ID != made.ID {
			t.Errorf("1.0 = %+v, %v; want the release sentry-cli made", r, err)
		}
		g, err := w.GroupByID(ctx, seedGroupFor(t, w, p.ID, "fp"))
		if err != nil {
			t.Fatal(err)
		}
		g.Status, g.ResolvedIn = store.GroupResolved, "blue"
		if err := w.UpdateGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		blue, _ := w.ReleaseByVersion(ctx, p.ID, "blue")
		if err := w.CreateArtifact(ctx, store.Artifact{ID: id.New(id.Artifact), ProjectID: p.ID, ReleaseID: blue.ID, URL: "~/a.js", Kind: "source", Data: []byte("x"), CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Prune(ctx, store.DefaultRetention, now.AddDate(1, 0, 0)); err != nil {
			t.Fatal(err)
		}
		recent, err = w.RecentReleases(ctx, p.ID, 10)
		if err != nil || strings.Join(recent, ",") != "blue" {
			t.Errorf("after retention RecentReleases = %v, %v; want the resolved-in release only", recent, err)
		}
		if r, err := w.ReleaseByVersion(ctx, p.ID, "blue"); err != nil || r.ArtifactCount != 0 {
			t.Errorf("blue after retention = %+v, %v; want its row without its files", r, err)
		}
	})
}
