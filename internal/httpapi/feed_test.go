package httpapi_test

// Helpers of the ticket, error group and INFO summary tests: ingest, process
// and read back.

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
)

const testAppURL = "https://app.example.com"

func withAppURL(c *config.Serve) { c.AppURL = testAppURL }

// procWorld is a World with an API key for its project.
type procWorld struct {
	apitest.World
	Key string
}

func newProcWorld(t *testing.T, s *apitest.Server) procWorld {
	t.Helper()
	w := s.NewWorld(t)
	_, key := s.CreateKey(t, w.Owner.Token, w.ProjectID)
	return procWorld{World: w, Key: key}
}

// drain processes everything queued: API test servers run no workers.
func drain(t *testing.T, s *apitest.Server) {
	t.Helper()
	if err := s.App.Processor.Drain(context.Background()); err != nil {
		t.Fatalf("drain: %v", err)
	}
}

// feed ingests one batch with key and processes it.
func feed(t *testing.T, s *apitest.Server, key string, batch map[string]any) {
	t.Helper()
	s.Do(ingestReq(key, batch, nil)).Expect(t, http.StatusAccepted, "")
	drain(t, s)
}

// batchOf is an ingest body of service with events.
func batchOf(service string, events ...map[string]any) map[string]any {
	evs := make([]any, len(events))
	for i, e := range events {
		evs[i] = e
	}
	return map[string]any{"service": service, "events": evs}
}

// ev is an event; kv adds fields in pairs.
func ev(message, level string, kv ...any) map[string]any {
	e := map[string]any{"message": message, "level": level}
	for i := 0; i+1 < len(kv); i += 2 {
		e[kv[i].(string)] = kv[i+1]
	}
	return e
}

// fpEv is an error event with its own custom fingerprint: a group of its own.
func fpEv(fp, level string) map[string]any {
	return ev("failure "+fp, level, "attributes", map[string]any{"fingerprint": fp})
}

func getJSON(t *testing.T, s *apitest.Server, token, path string) map[string]any {
	t.Helper()
	return s.Do(apitest.Request{Method: "GET", Path: path, Token: token}).Expect(t, http.StatusOK, "").JSON(t)
}

// items returns the data of one list page.
func items(t *testing.T, s *apitest.Server, token, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, d := range getJSON(t, s, token, path)["data"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

func ids(list []map[string]any) []string {
	out := make([]string, len(list))
	for i, m := range list {
		out[i] = m["id"].(string)
	}
	return out
}

func patchJSON(s *apitest.Server, token, path string, body any) *apitest.Response {
	return s.Do(apitest.Request{Method: "PATCH", Path: path, Token: token, Body: body})
}

// groupByTitle finds a project's group whose title contains sub.
func groupByTitle(t *testing.T, s *apitest.Server, token, projectID, sub string) map[string]any {
	t.Helper()
	for _, g := range items(t, s, token, "/v1/projects/"+projectID+"/groups?limit=100") {
		if strings.Contains(g["title"].(string), sub) {
			return g
		}
	}
	t.Fatalf("no group titled like %q", sub)
	return nil
}

// ticketOf returns the current ticket of a group, read again.
func ticketOf(t *testing.T, s *apitest.Server, token, groupID string) map[string]any {
	t.Helper()
	g := getJSON(t, s, token, "/v1/groups/"+groupID)
	tid, ok := g["ticket_id"].(string)
	if !ok {
		t.Fatalf("group %s has no ticket: %v", groupID, g)
	}
	return getJSON(t, s, token, "/v1/tickets/"+tid)
}

// pageAll follows next_cursor from path (which ends in a query) and returns
// every page's ids.
func pageAll(t *testing.T, s *apitest.Server, token, path, cursor string) [][]string {
	t.Helper()
	var pages [][]string
	for {
		p := path
		if cursor != "" {
			p += "&cursor=" + url.QueryEscape(cursor)
		}
		body := getJSON(t, s, token, p)
		var page []string
		for _, d := range body["data"].([]any) {
			page = append(page, d.(map[string]any)["id"].(string))
		}
		pages = append(pages, page)
		next, present := body["next_cursor"]
		if !present {
			t.Fatalf("%s: no next_cursor field", p)
		}
		if next == nil {
			return pages
		}
		cursor = next.(string)
		if len(pages) > 100 {
			t.Fatal("paging does not end")
		}
	}
}

// TestOpenTicketUpdatedByEvents: later events of an open ticket's group
// update it (CONTRACT 4): its facts count them and its updated_at moves.
func TestOpenTicketUpdatedByEvents(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		feed(t, s, w.Key, batchOf("api", fpEv("upd", "error")))
		gid := groupByTitle(t, s, w.Member.Token, w.ProjectID, "upd")["id"].(string)
		first := groupTickets(t, s, w.Member.Token, w.ProjectID, gid)[0]
		s.Clock.Advance(time.Minute)
		feed(t, s, w.Key, batchOf("api", fpEv("upd", "error")))
		later := groupTickets(t, s, w.Member.Token, w.ProjectID, gid)[0]
		if later["facts"].(map[string]any)["event_count"] != float64(2) || later["updated_at"] == first["updated_at"] || later["updated_at"] == later["created_at"] {
			t.Errorf("open ticket after a later event: facts %v, created %v, updated %v (was %v); want 2 events and updated_at moved",
				later["facts"], later["created_at"], later["updated_at"], first["updated_at"])
		}
	})
}
