package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
)

// queueAt queues a batch as if it had been received at: INFO windows go by
// receipt time (CONTRACT 6), which a test cannot wait for.
func queueAt(t *testing.T, s *apitest.Server, projectID string, at time.Time, events ...ingest.Event) {
	t.Helper()
	for i := range events {
		if events[i].Timestamp == 0 {
			events[i].Timestamp = at.UnixMilli()
		}
	}
	payload, err := ingest.EncodePayload(events)
	if err != nil {
		t.Fatal(err)
	}
	b := store.Batch{ProjectID: projectID, ReceivedAt: at.UTC().Truncate(time.Millisecond), EventCount: len(events), Payload: payload}
	if err := s.App.DB.Tx(context.Background(), func(c *store.Conn) error { return c.InsertBatches(context.Background(), []store.Batch{b}) }); err != nil {
		t.Fatalf("queue batch: %v", err)
	}
}

func infoEv(service, message string, level ingest.Level) ingest.Event {
	return ingest.Event{Service: service, Message: message, Level: level}
}

func TestInfoSummaries(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		s.Clock.Set(time.Now().UTC()) // no hour ends while the test ingests
		hour := s.Clock.Now().Truncate(time.Hour)
		// The current window, through the API: 3 + 25 info events, 2 debug,
		// one error that is not counted.
		events := []map[string]any{
			ev("user 1 signed in", "info"), ev("user 2 signed in", "notice", "service", "web"), ev("user 3 signed in", "info"),
			ev("cache warmed in 12ms", "debug"), ev("cache warmed in 15ms", "trace"),
			ev("payment failed", "error"),
		}
		for i := 0; i < 25; i++ {
			events = append(events, ev("job "+strings.Repeat("x", i+1)+" finished", "info"))
		}
		feed(t, s, w.Key, batchOf("api", events...))
		feed(t, s, w.Key, batchOf("worker", ev("job x finished", "info")))
		// Two earlier windows.
		queueAt(t, s, w.ProjectID, hour.Add(-2*time.Hour+time.Minute), infoEv("api", "old news", ingest.Info))
		queueAt(t, s, w.ProjectID, hour.Add(-time.Hour+time.Minute), infoEv("api", "older 1", ingest.Info), infoEv("api", "older 2", ingest.Debug))
		drain(t, s)

		base := "/v1/projects/" + w.ProjectID + "/info-summaries"
		list := items(t, s, w.Viewer.Token, base)
		if len(list) != 3 {
			t.Fatalf("summaries = %d, want 3: %v", len(list), list)
		}
		var starts []string
		for _, v := range list {
			win := v["window"].(map[string]any)
			starts = append(starts, win["start"].(string))
			start, _ := time.Parse(time.RFC3339, win["start"].(string))
			end, _ := time.Parse(time.RFC3339, win["end"].(string))
			if end.Sub(start) != time.Hour || !apiTimeRe.MatchString(win["start"].(string)) || !strings.HasPrefix(v["id"].(string), "ism_") ||
				v["project_id"] != w.ProjectID {
				t.Errorf("summary = %v, want a one-hour window", v)
			}
		}
		if want := []string{hour.Format(tsFormat), hour.Add(-time.Hour).Format(tsFormat), hour.Add(-2 * time.Hour).Format(tsFormat)}; !slices.Equal(starts, want) {
			t.Errorf("window starts = %v, want newest first %v", starts, want)
		}

		cur := list[0]
		// event_count counts info events, debug_count debug ones: 31 events
		// in all, each counted once (CONTRACT 7).
		if cur["event_count"] != float64(29) || cur["debug_count"] != float64(2) {
			t.Errorf("current window counts %v/%v, want 29 info and 2 debug events", cur["event_count"], cur["debug_count"])
		}
		if svc := cur["services"].(map[string]any); len(svc) != 3 || svc["api"] != float64(29) || svc["web"] != float64(1) || svc["worker"] != float64(1) {
			t.Errorf("services = %v, want api 29, web 1, worker 1", svc)
		}
		top := cur["top_messages"].([]any)
		if len(top) != 20 {
			t.Fatalf("top_messages = %d, want 20 of 27 templates", len(top))
		}
		var prev float64 = 1 << 30
		found := false
		for _, m := range top {
			m := m.(map[string]any)
			if m["count"].(float64) > prev {
				t.Errorf("top_messages not most frequent first: %v", top)
			}
			prev = m["count"].(float64)
			switch {
			case strings.HasPrefix(m["sample"].(string), "user "):
				found = true
				if m["count"] != float64(3) || m["template"] == m["sample"] || strings.Contains(m["template"].(string), "1") {
					t.Errorf("user template = %v, want 3 events under one template", m)
				}
			case m["sample"] == "job x finished" && m["count"] != float64(2):
				t.Errorf("a template counted across batches = %v, want 2", m)
			}
		}
		if !found || top[0].(map[string]any)["count"] != float64(3) {
			t.Errorf("top_messages = %v, want the user template first with 3", top)
		}
		if old := list[1]; old["event_count"] != float64(1) || old["debug_count"] != float64(1) {
			t.Errorf("earlier window = %v, want 1 info and 1 debug event", old)
		}

		got := getJSON(t, s, w.Viewer.Token, "/v1/info-summaries/"+cur["id"].(string))
		if fmt.Sprint(got) != fmt.Sprint(cur) {
			t.Errorf("get = %v, want the list item %v", got, cur)
		}

		// from is inclusive, to exclusive; both filter on the window start.
		for _, tc := range []struct {
			query string
			want  []string
		}{
			{"?from=" + url.QueryEscape(hour.Add(-time.Hour).Format(tsFormat)), starts[:2]},
			{"?to=" + url.QueryEscape(hour.Add(-time.Hour).Format(tsFormat)), starts[2:]},
			{"?from=" + url.QueryEscape(hour.Add(-2*time.Hour).Format(time.RFC3339)) + "&to=" + url.QueryEscape(hour.Format(time.RFC3339)), starts[1:]},
			{"?from=" + url.QueryEscape(hour.Add(time.Hour).Format(tsFormat)), nil},
		} {
			var got []string
			for _, v := range items(t, s, w.Viewer.Token, base+tc.query) {
				got = append(got, v["window"].(map[string]any)["start"].(string))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s = %v, want %v", tc.query, got, tc.want)
			}
		}
		r := s.Do(apitest.Request{Method: "GET", Path: base + "?from=yesterday", Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if d := r.Str(t, "detail"); !strings.Contains(d, "from") || !strings.Contains(d, "RFC 3339") || strings.Contains(d, "2006") {
			t.Errorf("detail %q: want it to name from and RFC 3339, not Go's layout", d)
		}

		pages := pageAll(t, s, w.Viewer.Token, base+"?limit=1", "")
		if len(pages) != 3 || !slices.Equal(slices.Concat(pages...), ids(list)) {
			t.Errorf("pages of 1 = %v, want %v", pages, ids(list))
		}
		filtered := getJSON(t, s, w.Viewer.Token, base+"?limit=1&to="+url.QueryEscape(hour.Format(tsFormat)))["next_cursor"].(string)
		s.Do(apitest.Request{Method: "GET", Path: base + "?limit=1&cursor=" + url.QueryEscape(filtered), Token: w.Viewer.Token}).
			Expect(t, http.StatusUnprocessableEntity, "validation-failed")

		// Another project's summaries stay apart.
		if other := items(t, s, w.Outsider.Token, "/v1/projects/"+w.OtherProjectID+"/info-summaries"); len(other) != 0 {
			t.Errorf("other project's summaries = %v, want none", other)
		}
	})
}

const tsFormat = "2006-01-02T15:04:05.000Z"
