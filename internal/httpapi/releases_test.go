package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

func TestReleases(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		_, key := s.CreateKey(t, w.Owner.Token, w.ProjectID)
		_, tok := createToken(t, s, w.Member.Token, "project:releases")
		s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/releases/", Token: tok,
			Body: map[string]any{"version": "1.2.0", "projects": []string{"web"}}}).Expect(t, http.StatusCreated, "")
		s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/releases/1.2.0/deploys/", Token: tok,
			Body: map[string]any{"environment": "production", "name": "blue", "dateStarted": "2026-11-28T10:00:00Z", "dateFinished": "2026-11-28T10:05:00Z"}}).
			Expect(t, http.StatusCreated, "")
		s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/releases/1.2.0/deploys/", Token: tok,
			Body: map[string]any{"environment": "staging", "dateFinished": "2026-11-28T11:00:00Z"}}).Expect(t, http.StatusCreated, "")
		// Events of the release: two groups, three events; one of another release.
		batch := map[string]any{"service": "web", "events": []any{
			map[string]any{"message": "boom", "level": "error", "release": "1.2.0"},
			map[string]any{"message": "boom", "level": "error", "release": "1.2.0"},
			map[string]any{"message": "bang", "level": "error", "release": "1.2.0"},
			map[string]any{"message": "bang", "level": "error", "release": "1.3.0"},
			map[string]any{"message": "fine", "level": "info", "release": "1.2.0"},
			map[string]any{"message": "quiet", "level": "info", "release": "0.9.0"},
		}}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: batch}).Expect(t, http.StatusAccepted, "")
		if err := s.App.Processor.Drain(context.Background()); err != nil {
			t.Fatal(err)
		}
		list := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/releases", Token: w.Viewer.Token}).Expect(t, http.StatusOK, "").JSON(t)
		data, _ := list["data"].([]any)
		if len(data) != 3 {
			t.Fatalf("releases = %v, want 1.2.0, and 1.3.0 and 0.9.0 (made by their events)", list)
		}
		var rel map[string]any
		for _, d := range data {
			switch d := d.(map[string]any); d["version"] {
			case "1.2.0":
				rel = d
			case "0.9.0": // named only by an info event: seen, no error event
				if d["first_seen"] == nil || d["last_seen"] != d["first_seen"] || d["event_count"] != float64(0) {
					t.Errorf("release named only by an info event = %v, want first and last seen at its event, no error events", d)
				}
			}
		}
		if rel == nil || rel["event_count"] != float64(3) || rel["new_groups"] != float64(2) || rel["artifact_count"] != float64(0) ||
			rel["first_seen"] == nil || rel["last_seen"] == nil {
			t.Errorf("release 1.2.0 = %v, want 3 events, 2 new groups, no artifacts, first and last seen", rel)
		}
		got := s.Do(apitest.Request{Method: "GET", Path: "/v1/releases/" + rel["id"].(string), Token: tok}).Expect(t, http.StatusOK, "").JSON(t)
		deploys, _ := got["deploys"].([]any)
		if len(deploys) != 2 {
			t.Fatalf("deploys = %v, want two", got["deploys"])
		}
		// A deploy given no name has a null one, as the Sentry API answers.
		if d := deploys[1].(map[string]any); d["environment"] != "staging" || d["name"] != nil {
			t.Errorf("unnamed deploy = %v", d)
		}
		d := deploys[0].(map[string]any)
		if d["environment"] != "production" || d["name"] != "blue" || d["started_at"] != "2026-11-28T10:00:00.000Z" || d["finished_at"] != "2026-11-28T10:05:00.000Z" {
			t.Errorf("deploy = %v", d)
		}
		// Another organization's release is 404; a token without a project scope is 403.
		s.Do(apitest.Request{Method: "GET", Path: "/v1/releases/" + rel["id"].(string), Token: w.Outsider.Token}).Expect(t, http.StatusNotFound, "not-found")
		_, events := createToken(t, s, w.Member.Token, "event:read")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/releases/" + rel["id"].(string), Token: events}).Expect(t, http.StatusForbidden, "insufficient-scope")
	})
}
