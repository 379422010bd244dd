package process_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/process"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestUpgradeToTemplates: version 3 groups a message on its template; a
// group version 2 made from the formatted text keeps the events it would
// have taken (no new ticket), the others make one template group, whose
// components are stored. Versions 1 and 2 give this message the same
// fingerprint: the version 2 group must be found all the same.
func TestUpgradeToTemplates(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		shipped := func(order, carrier string) ingest.Event {
			return ingest.Event{Level: ingest.Error, Service: "api", Message: "order " + order + " could not be shipped: carrier " + carrier + " unreachable",
				Attributes: []byte(`{"message_template":"order %s could not be shipped: carrier %s unreachable"}`)}
		}
		dhl := shipped("1", "DHL")
		in := process.GroupingInput(&dhl, nil)
		v2, _ := grouping.FingerprintVersion(in, 2)
		now := e.clock.Now()
		old := store.Group{ID: id.New(id.Group), ProjectID: e.prj, Service: "api", Fingerprint: v2.Fingerprint, FingerprintVersion: 2,
			FingerprintRule: string(v2.Rule), Title: v2.Title, Status: store.GroupUnresolved, FirstSeen: now, LastSeen: now, EventCount: 3,
			Level: int(ingest.Error), UpdatedAt: now}
		if err := db.Write().InsertGroup(ctx, old); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(time.Minute)
		e.send(shipped("2", "DHL"), shipped("3", "UPS"), shipped("4", "FedEx Ground"))
		gs := e.groups()
		if len(gs) != 2 || len(e.seen) != 1 {
			t.Fatalf("%d groups, %d ticket events; want the old DHL group and one template group with one ticket", len(gs), len(e.seen))
		}
		for _, g := range gs {
			switch {
			case g.ID == old.ID:
				if g.EventCount != 4 {
					t.Errorf("version 2 group: %d events, want 4", g.EventCount)
				}
			case g.FingerprintVersion != grouping.Version || g.EventCount != 2 || !strings.HasPrefix(g.Title, "order %s"):
				t.Errorf("template group = %+v", g)
			default:
				gg, err := db.Read().GroupGroupingOf(ctx, g.ID)
				var comps []grouping.Component
				if err != nil || json.Unmarshal([]byte(gg.Components), &comps) != nil || gg.Version != grouping.Version ||
					len(comps) != 1 || comps[0].Name != "message_template" || !comps[0].Contributes {
					t.Errorf("stored grouping = %+v, %v", gg, err)
				}
			}
		}
	})
}

// TestGroupingReadsTheTemplateAsSummariesDo: grouping takes the template
// from the keys as written (not "Message_Template", which encoding/json
// would match), and a blank own template gives way to Sentry's, as the INFO
// summaries read them.
func TestGroupingReadsTheTemplateAsSummariesDo(t *testing.T) {
	for _, tc := range []struct{ attrs, want string }{
		{`{"Message_Template":"mc tpl {x}","sentry.in_app":"y"}`, ""},
		{`{"message_template":"  ","sentry.message.template":"ing {x}","sentry.in_app":"y"}`, "ing {x}"},
		{`{"message_template":"own {x}","sentry.message.template":"ing {x}"}`, "own {x}"},
	} {
		e := ingest.Event{Level: ingest.Error, Message: "m 1", Attributes: []byte(tc.attrs)}
		if got := process.GroupingInput(&e, nil).Template; got != tc.want {
			t.Errorf("%s: template %q, want %q", tc.attrs, got, tc.want)
		}
	}
}
