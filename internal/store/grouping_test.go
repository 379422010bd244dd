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

func TestGroupingRulesStored(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		o := seedOrg(t, db.Write())
		p := store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "p", CreatedAt: now, UpdatedAt: now}
		other := store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "q", CreatedAt: now, UpdatedAt: now}
		for _, pr := range []store.Project{p, other} {
			if err := db.Write().CreateProject(ctx, pr); err != nil {
				t.Fatalf("CreateProject: %v", err)
			}
		}
		got, err := db.Read().GroupingRules(ctx, p.ID)
		if err != nil || got.Fingerprint != "" || got.StackTrace != "" || !got.UpdatedAt.IsZero() {
			t.Fatalf("rules of a project without any = %+v, %v", got, err)
		}
		r := store.GroupingRules{ProjectID: p.ID, Fingerprint: "error.type:A -> a", StackTrace: "", UpdatedAt: now, UpdatedBy: "usr_1"}
		if err := db.Write().PutGroupingRules(ctx, r); err != nil {
			t.Fatalf("PutGroupingRules: %v", err)
		}
		r.StackTrace, r.UpdatedAt = "stack.function:f -group", now.Add(time.Minute)
		if err := db.Write().PutGroupingRules(ctx, r); err != nil {
			t.Fatalf("PutGroupingRules again: %v", err)
		}
		got, err = db.Read().GroupingRules(ctx, p.ID)
		if err != nil || got != r {
			t.Fatalf("GroupingRules = %+v, %v; want %+v", got, err, r)
		}
		// An emptied set of rules is not applied.
		if err := db.Write().PutGroupingRules(ctx, store.GroupingRules{ProjectID: other.ID, UpdatedAt: now, UpdatedBy: "usr_1"}); err != nil {
			t.Fatal(err)
		}
		of, err := db.Read().GroupingRulesOf(ctx, []string{p.ID, other.ID, "prj_none"})
		if err != nil || len(of) != 1 || of[p.ID] != r {
			t.Fatalf("GroupingRulesOf = %+v, %v", of, err)
		}
		if err := db.Write().DeleteProject(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		if of, err := db.Read().GroupingRulesOf(ctx, []string{p.ID}); err != nil || len(of) != 0 {
			t.Fatalf("rules after the project's deletion = %+v, %v", of, err)
		}
		if _, err := db.Read().GroupGroupingOf(ctx, "grp_none"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("GroupGroupingOf(unknown) = %v, want ErrNotFound", err)
		}
	})
}
