package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestProjectValues: the environments and services events carried are
// recorded once each, their last sighting moved at most once an hour,
// bounded per project and kind, found by their normal form within a window,
// and pruned after 30 days unseen.
func TestProjectValues(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p, other := seedProject(t, c), seedProject(t, c)
		touch := func(projectID, kind string, at time.Time, vs ...string) {
			t.Helper()
			if err := db.Tx(ctx, func(c *store.Conn) error { return c.TouchProjectValues(ctx, projectID, kind, vs, at) }); err != nil {
				t.Fatalf("TouchProjectValues: %v", err)
			}
		}
		like := func(projectID, kind string, since time.Time, norms ...string) map[string]time.Time {
			t.Helper()
			vs, err := db.Read().ProjectValuesLike(ctx, projectID, kind, norms, since)
			if err != nil {
				t.Fatalf("ProjectValuesLike: %v", err)
			}
			out := map[string]time.Time{}
			for _, v := range vs {
				if v.Kind != kind {
					t.Errorf("value %q of kind %q, want %q", v.Value, v.Kind, kind)
				}
				out[v.Value] = v.LastSeen
			}
			return out
		}
		t0 := now.Truncate(time.Millisecond)
		touch(p.ID, store.ValueEnvironment, t0, "production", "Pro duction", "staging")
		touch(p.ID, store.ValueService, t0, "api")
		touch(other.ID, store.ValueEnvironment, t0, "production")

		got := like(p.ID, store.ValueEnvironment, t0.Add(-time.Hour), store.NormValue("PRODUCTION"), "nothing")
		if len(got) != 2 || !got["production"].Equal(t0) || !got["Pro duction"].Equal(t0) {
			t.Errorf("values like PRODUCTION = %v, want production and Pro duction at %v", got, t0)
		}
		if got := like(p.ID, store.ValueService, t0, "production"); len(got) != 0 {
			t.Errorf("services like production = %v, want none: kinds are apart", got)
		}
		// Within the hour the sighting is not written again; after it, it is.
		touch(p.ID, store.ValueEnvironment, t0.Add(30*time.Minute), "production")
		if got := like(p.ID, store.ValueEnvironment, t0, "production"); !got["production"].Equal(t0) {
			t.Errorf("last seen after 30 minutes = %v, want %v kept", got["production"], t0)
		}
		later := t0.Add(2 * time.Hour)
		touch(p.ID, store.ValueEnvironment, later, "production", "canary")
		got = like(p.ID, store.ValueEnvironment, t0, "production", "canary", "staging")
		if !got["production"].Equal(later) || !got["canary"].Equal(later) || !got["staging"].Equal(t0) {
			t.Errorf("after two hours = %v, want production and canary at %v, staging at %v", got, later, t0)
		}
		// An older batch never moves a sighting back.
		touch(p.ID, store.ValueEnvironment, t0, "canary")
		if got := like(p.ID, store.ValueEnvironment, t0, "canary"); !got["canary"].Equal(later) {
			t.Errorf("canary after an older batch = %v, want %v", got["canary"], later)
		}
		if got := like(p.ID, store.ValueEnvironment, later, "staging", "production"); len(got) != 1 || got["production"].IsZero() {
			t.Errorf("values since %v = %v, want production only", later, got)
		}

		// Made-up values stop at MaxProjectValues; known ones still move.
		many := make([]string, 0, store.MaxProjectValues+10)
		for i := range store.MaxProjectValues + 10 {
			many = append(many, fmt.Sprintf("env-%04d", i))
		}
		for start := 0; start < len(many); start += 250 {
			touch(p.ID, store.ValueEnvironment, later, many[start:min(start+250, len(many))]...)
		}
		kept := len(like(p.ID, store.ValueEnvironment, time.Time{}, append(many, "production", "pro duction", "staging", "canary")...))
		if kept != store.MaxProjectValues {
			t.Errorf("environments kept = %d, want %d", kept, store.MaxProjectValues)
		}
		latest := later.Add(3 * time.Hour)
		touch(p.ID, store.ValueEnvironment, latest, "staging")
		if got := like(p.ID, store.ValueEnvironment, latest, "staging"); !got["staging"].Equal(latest) {
			t.Errorf("a known value at the bound = %v, want moved to %v", got, latest)
		}

		// Retention forgets values unseen for 30 days.
		if _, err := c.Prune(ctx, store.DefaultRetention, later.Add(store.ValuesKept+time.Minute)); err != nil {
			t.Fatalf("Prune: %v", err)
		}
		got = like(p.ID, store.ValueEnvironment, time.Time{}, "staging", "production", "env-0001")
		if keys := slices.Sorted(mapKeys(got)); !slices.Equal(keys, []string{"staging"}) {
			t.Errorf("values after pruning = %v, want staging only", keys)
		}
		if got := like(other.ID, store.ValueEnvironment, time.Time{}, "production"); len(got) != 0 {
			t.Errorf("the other project's value outlived 30 days unseen: %v", got)
		}
	})
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
