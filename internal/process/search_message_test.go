package process_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/search"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestSearchMessageRefreshedOnceAMinute: a group's sample message is its
// latest event's, while the messages free words find it by (its row of the
// search index: the first sample's and a recent one) are refreshed at most
// once a minute, so that the index is not rewritten with nearly every
// event.
func TestSearchMessageRefreshedOnceAMinute(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		finds := func(words string) bool {
			t.Helper()
			q, err := search.Parse(words, search.Groups, e.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			gs, err := db.Read().ListGroupsBy(context.Background(), e.prj, store.GroupFilter{Query: q}, store.OrderNewest, store.Keyset{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			return len(gs) == 1
		}
		e.send(errEvent("card declined for order 1001", ingest.Error))
		e.clock.Add(10 * time.Second)
		e.send(errEvent("card declined for order 2002", ingest.Error))
		gs := e.groups()
		if len(gs) != 1 {
			t.Fatalf("%d groups, want 1", len(gs))
		}
		if strings.Contains(gs[0].Title, "1001") {
			t.Fatalf("title %q holds the number: this test needs a title without it", gs[0].Title)
		}
		if g := gs[0]; g.SampleMessage != "card declined for order 2002" || g.SearchMessage != "card declined for order 1001" {
			t.Fatalf("sample %q, search %q after 10 s; want the latest and the first", g.SampleMessage, g.SearchMessage)
		}
		if !finds("1001") || finds("2002") {
			t.Errorf("within the minute: 1001 found %v, 2002 found %v; want only 1001", finds("1001"), finds("2002"))
		}
		e.clock.Add(time.Minute)
		e.send(errEvent("card declined for order 3003", ingest.Error))
		if g := e.groups()[0]; g.SampleMessage != "card declined for order 3003" || g.SearchMessage != "card declined for order 1001\x1fcard declined for order 3003" {
			t.Fatalf("sample %q, search %q a minute later; want the latest, and the first with the latest", g.SampleMessage, g.SearchMessage)
		}
		if !finds("3003") || !finds("1001") || finds("2002") {
			t.Errorf("a minute later: 3003 found %v, 1001 found %v, 2002 found %v; want the first and the latest", finds("3003"), finds("1001"), finds("2002"))
		}
	})
}
