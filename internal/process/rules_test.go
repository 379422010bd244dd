package process_test

import (
	"context"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestRulesSavedBeforeACheckStillApply: processing applies the rules a
// project saved before a check was added at saving (grouping.CheckRules
// refuses level:info, which never matches): the project's other rules
// still group its events.
func TestRulesSavedBeforeACheckStillApply(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		fp := "level:info -> never\nmessage:\"ledger *\" -> ledger title=\"Ledger\""
		if _, err := grouping.CheckRules(fp, ""); err == nil {
			t.Fatal("CheckRules took level:info; this test wants rules saving refuses")
		}
		r := store.GroupingRules{ProjectID: e.prj, Fingerprint: fp, UpdatedAt: time.Now().UTC(), UpdatedBy: "usr_1"}
		if err := db.Write().PutGroupingRules(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		e.send(ingest.Event{Level: ingest.Error, Message: "ledger 7 does not balance"})
		gs := e.groups()
		if len(gs) != 1 || gs[0].FingerprintRule != string(grouping.RuleCustom) || gs[0].Title != "Ledger" {
			t.Fatalf("groups = %+v, want one made by the ledger rule", gs)
		}
	})
}
