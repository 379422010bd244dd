package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestReleaseTablesMigration: migration 00054 moves release_order into
// releases (an earlier first_seen wins; a release only release_order knew
// gets a valid id that sorts by its age), and 00055 moves each file's
// bytes into artifact_parts; both roll back and migrate again.
func TestReleaseTablesMigration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := db.Write()
		p := seedProject(t, w)
		made, err := w.EnsureRelease(ctx, p.ID, "1.0", id.New(id.Release), now)
		if err != nil {
			t.Fatal(err)
		}
		if err := db.MigrateDownTo(ctx, 53); err != nil {
			t.Fatal(err)
		}
		early, late := now.Add(-2*time.Hour).UnixMilli(), now.Add(-time.Hour).UnixMilli()
		for _, r := range []struct {
			v  string
			at int64
		}{{"1.0", late}, {"blue", early}} {
			if err := db.ExecForTest(ctx, `INSERT INTO release_order (project_id, version, first_seen) VALUES (?, ?, ?)`, p.ID, r.v, r.at); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.ExecForTest(ctx, `INSERT INTO artifacts (id, project_id, release_id, dist, url, debug_id, kind, sourcemap, size, data, created_at)
			VALUES (?, ?, ?, '', '~/a.js', '', 'source', '', 5, ?, ?)`, id.New(id.Artifact), p.ID, made.ID, []byte("hello"), now.UnixMilli()); err != nil {
			t.Fatal(err)
		}
		check := func(when string) {
			t.Helper()
			seen, err := w.ReleaseFirstSeen(ctx, p.ID, []string{"1.0", "blue"})
			if err != nil || seen["1.0"].UnixMilli() != late || seen["blue"].UnixMilli() != early {
				t.Errorf("%s: first seen = %v, %v", when, seen, err)
			}
			blue, err := w.ReleaseByVersion(ctx, p.ID, "blue")
			if err != nil || !id.Valid(id.Release, blue.ID) || blue.ID >= made.ID {
				t.Errorf("%s: blue = %+v, %v; want a valid id older than 1.0's %s", when, blue, err, made.ID)
			}
			a, err := w.ArtifactByURL(ctx, made.ID, "", "~/a.js")
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if b, err := w.ArtifactData(ctx, a); err != nil || string(b) != "hello" {
				t.Errorf("%s: file = %q, %v", when, b, err)
			}
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		check("migrated")
		if err := db.MigrateDownTo(ctx, 53); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		check("migrated again")
		if recent, err := w.RecentReleases(ctx, p.ID, 5); err != nil || strings.Join(recent, ",") != "1.0,blue" {
			t.Errorf("RecentReleases = %v, %v", recent, err)
		}
	})
}
