package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

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
