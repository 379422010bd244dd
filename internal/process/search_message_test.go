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

// TestSearchMessageHoldsTheSamples: free words find a group by the
// messages of its stored samples (CONTRACT 8), its first and the later
// ones alike. A quiet group refreshes its row of the search index with
// every sample it stores; a busy one (a hundred events or more) at most
// once a minute, so that the index is not rewritten with nearly every
// event, and then with every sample it keeps.
func TestSearchMessageHoldsTheSamples(t *testing.T) {
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
		e.clock.Add(10 * time.Second)
		e.send(errEvent("card declined for order 3003", ingest.Error))
		gs := e.groups()
		if len(gs) != 1 {
			t.Fatalf("%d groups, want 1", len(gs))
		}
		if strings.Contains(gs[0].Title, "1001") {
			t.Fatalf("title %q holds the number: this test needs a title without it", gs[0].Title)
		}
		for _, n := range []string{"1001", "2002", "3003"} {
			if !finds(n) {
				t.Errorf("a quiet group: %s not found; search message %q", n, e.groups()[0].SearchMessage)
			}
		}

		// A busy group: the same, once a minute.
		busy := make([]ingest.Event, 100)
		for i := range busy {
			busy[i] = errEvent("payment gateway timeout for shop 1", ingest.Error)
		}
		e.clock.Add(10 * time.Second)
		e.send(busy...)
		e.clock.Add(10 * time.Second)
		e.send(errEvent("payment gateway timeout for shop 7007", ingest.Error))
		if finds("7007") {
			t.Errorf("a busy group's sample found within the minute: its index row was rewritten")
		}
		e.clock.Add(time.Minute)
		e.send(errEvent("payment gateway timeout for shop 8008", ingest.Error))
		if !finds("7007") || !finds("8008") {
			t.Errorf("a minute later: 7007 found %v, 8008 found %v; want both (stored samples)", finds("7007"), finds("8008"))
		}

		// The busy group's last sample before its events stop: the workers'
		// look finds it once the group took no sample for a few seconds,
		// not with the group's next event (which may never come).
		e.clock.Add(10 * time.Second)
		e.send(errEvent("payment gateway timeout for shop 9009", ingest.Error))
		e.clock.Add(2 * time.Second)
		e.proc.RefreshSearches(context.Background())
		if finds("9009") {
			t.Errorf("a busy group's sample found 2 s after it, while its events may go on")
		}
		e.clock.Add(5 * time.Second)
		e.proc.RefreshSearches(context.Background())
		if !finds("9009") {
			t.Errorf("a busy group's last sample not found 7 s after it; search message %q", e.groups()[0].SearchMessage)
		}
	})
}
