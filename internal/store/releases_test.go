package store_test

import (
	"context"
	"errors"
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
		if err := w.PutChunk(ctx, p.OrgID, "da39a3ee5e6b4b0d3255bfef95601890afd80709", nil, old); err != nil {
			t.Fatal(err)
		}
		pr, err := w.Prune(ctx, store.DefaultRetention, now)
		if err != nil {
			t.Fatal(err)
		}
		if pr.Releases != 1 {
			t.Errorf("pruned %d releases, want 1", pr.Releases)
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
