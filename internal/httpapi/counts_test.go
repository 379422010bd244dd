package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestEveryAcceptedEventCountedOnce: groups' event_count + INFO summaries'
// event_count + debug_count is exactly the events accepted; event_count
// of a summary counts info events only (CONTRACT 7).
func TestEveryAcceptedEventCountedOnce(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		accepted := 0
		levels := []string{"debug", "trace", "info", "notice", "warn", "error", "fatal", "info", "debug", "log"}
		for b := 0; b < 7; b++ {
			var events []map[string]any
			for i := 0; i < 37+b; i++ {
				lvl := levels[(i*7+b)%len(levels)]
				events = append(events, ev(fmt.Sprintf("%s event %d of batch %d", lvl, i%5, b), lvl))
			}
			r := s.Do(ingestReq(w.Key, batchOf(fmt.Sprintf("svc%d", b%3), events...), nil)).Expect(t, http.StatusAccepted, "")
			accepted += int(r.JSON(t)["accepted"].(float64))
		}
		drain(t, s)
		var groups, info, debug float64
		for _, g := range items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/groups?limit=100") {
			groups += g["event_count"].(float64)
		}
		for _, sum := range items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/info-summaries?limit=100") {
			info += sum["event_count"].(float64)
			debug += sum["debug_count"].(float64)
		}
		if got := int(groups + info + debug); got != accepted {
			t.Fatalf("groups %v + info %v + debug %v = %d, want the %d accepted", groups, info, debug, got, accepted)
		}
		// Of 10 levels cycled through, 2 are debug/trace and 4 info
		// synonyms: about a fifth debug, two fifths info.
		if debug == 0 || info == 0 || debug >= info {
			t.Fatalf("info %v, debug %v: want both counted apart", info, debug)
		}
	})
}

// TestFutureTimestampsAreClamped: an event stamped more than five minutes
// ahead of its receipt is stored at the receipt time, the sent value kept
// in the attribute original_timestamp (CONTRACT 7); a little ahead is kept.
func TestFutureTimestampsAreClamped(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		sent := time.Now().UTC().Add(20 * time.Minute).Truncate(time.Millisecond)
		soon := time.Now().UTC().Add(2 * time.Minute).Truncate(time.Millisecond)
		before := time.Now().UTC()
		sentText := sent.In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05.000000-07:00") // kept as written
		feed(t, s, w.Key, batchOf("api",
			ev("from the future", "error", "timestamp", sentText, "attributes", map[string]any{"order": 7}),
			ev("a little ahead", "error", "timestamp", soon.Format(time.RFC3339Nano))))
		after := time.Now().UTC()
		g := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "from the future")
		e := items(t, s, w.Owner.Token, "/v1/groups/"+g["id"].(string)+"/events")[0]
		stored := apiTime(t, e["timestamp"])
		if stored.Before(before.Truncate(time.Millisecond)) || stored.After(after) {
			t.Errorf("stored timestamp %s, want the receipt time (between %s and %s)", stored, before, after)
		}
		attrs := e["attributes"].(map[string]any)
		if attrs["original_timestamp"] != sentText || attrs["order"] != float64(7) {
			t.Errorf("attributes = %v, want original_timestamp %s (as sent) and the others kept", attrs, sentText)
		}
		if ls := apiTime(t, g["last_seen"]); ls.After(after) {
			t.Errorf("last_seen %s is in the future", ls)
		}
		near := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "a little ahead")
		ne := items(t, s, w.Owner.Token, "/v1/groups/"+near["id"].(string)+"/events")[0]
		if !apiTime(t, ne["timestamp"]).Equal(soon) || ne["attributes"].(map[string]any)["original_timestamp"] != nil {
			t.Errorf("an event 2 minutes ahead = %v, want it kept as sent", ne)
		}
	})
}
