package httpapi_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the expected schedules are computed in named zones

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
)

func settingsPath(projectID string) string {
	return "/v1/projects/" + projectID + "/notification-settings"
}

// nextLocal is the first instant after now at hour:00 local time in loc on
// weekday (any day when weekday is -1), stepping whole local days. Test
// schedules avoid daylight-saving gaps, where CONTRACT 6 has its own rule.
func nextLocal(now time.Time, loc *time.Location, hour int, weekday time.Weekday) time.Time {
	l := now.In(loc)
	for d := 0; d <= 8; d++ {
		c := time.Date(l.Year(), l.Month(), l.Day()+d, hour, 0, 0, 0, loc)
		if c.After(now) && (weekday < 0 || c.Weekday() == weekday) {
			return c.UTC()
		}
	}
	panic("no next run within 8 days")
}

func TestNotificationSettings(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		prj := getJSON(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID)
		before := time.Now()
		st := getJSON(t, s, w.Viewer.Token, settingsPath(w.ProjectID))
		after := time.Now()
		want := map[string]any{"enabled": true, "frequency": "daily", "hour": float64(9), "weekday": "monday", "timezone": "UTC"}
		if !reflect.DeepEqual(st["digest"], want) {
			t.Errorf("default digest = %v, want %v", st["digest"], want)
		}
		daily9 := func(now time.Time) time.Time { return nextLocal(now, time.UTC, 9, -1) }
		if next := apiTime(t, st["next_digest_at"]); !next.Equal(daily9(before)) && !next.Equal(daily9(after)) {
			t.Errorf("default next_digest_at = %v, want the next 09:00 UTC, %v", next, daily9(before))
		}
		if st["period_start"] != prj["created_at"] {
			t.Errorf("period_start = %v, want the project's creation %v", st["period_start"], prj["created_at"])
		}

		berlin, _ := time.LoadLocation("Europe/Berlin")
		kolkata, _ := time.LoadLocation("Asia/Kolkata")
		for _, c := range []struct {
			name   string
			digest map[string]any
			next   func(now time.Time) time.Time // nil: null
		}{
			{"weekly Berlin", map[string]any{"enabled": true, "frequency": "weekly", "hour": 7, "weekday": "sunday", "timezone": "Europe/Berlin"},
				func(now time.Time) time.Time { return nextLocal(now, berlin, 7, time.Sunday) }},
			{"daily Kolkata", map[string]any{"enabled": true, "frequency": "daily", "hour": 0, "weekday": "monday", "timezone": "Asia/Kolkata"},
				func(now time.Time) time.Time { return nextLocal(now, kolkata, 0, -1) }},
			{"hourly", map[string]any{"enabled": true, "frequency": "hourly", "hour": 0, "weekday": "monday", "timezone": "UTC"},
				func(now time.Time) time.Time { return now.UTC().Truncate(time.Hour).Add(time.Hour) }},
			{"off", map[string]any{"enabled": false, "frequency": "daily", "hour": 9, "weekday": "monday", "timezone": "UTC"}, nil},
		} {
			before := time.Now()
			r := s.Do(apitest.Request{Method: "PUT", Path: settingsPath(w.ProjectID), Token: w.Admin.Token, Body: map[string]any{"digest": c.digest}}).
				Expect(t, http.StatusOK, "").JSON(t)
			after := time.Now()
			read := getJSON(t, s, w.Viewer.Token, settingsPath(w.ProjectID))
			if !reflect.DeepEqual(r, read) {
				t.Errorf("%s: GET = %v, want the PUT answer %v", c.name, read, r)
			}
			var digest map[string]any
			b, _ := json.Marshal(c.digest)
			_ = json.Unmarshal(b, &digest)
			if !reflect.DeepEqual(r["digest"], digest) || r["period_start"] != prj["created_at"] {
				t.Errorf("%s: settings = %v, want digest %v and the same period_start", c.name, r, digest)
			}
			if c.next == nil {
				if v, present := r["next_digest_at"]; !present || v != nil {
					t.Errorf("%s: next_digest_at = %v (present %v), want null", c.name, v, present)
				}
				continue
			}
			if got := apiTime(t, r["next_digest_at"]); !got.Equal(c.next(before)) && !got.Equal(c.next(after)) {
				t.Errorf("%s: next_digest_at = %v, want %v", c.name, got, c.next(before))
			}
		}

		base := func(k string, v any) map[string]any {
			d := map[string]any{"enabled": true, "frequency": "weekly", "hour": 7, "weekday": "sunday", "timezone": "Europe/Berlin"}
			if v == nil {
				delete(d, k)
			} else {
				d[k] = v
			}
			return map[string]any{"digest": d}
		}
		for _, c := range []struct {
			name  string
			body  any
			field string
		}{
			{"unknown zone", base("timezone", "Mars/Olympus"), "digest.timezone"},
			{"Local zone", base("timezone", "Local"), "digest.timezone"},
			{"empty zone", base("timezone", ""), "digest.timezone"},
			{"hour 24", base("hour", 24), "digest.hour"},
			{"hour -1", base("hour", -1), "digest.hour"},
			{"monthly", base("frequency", "monthly"), "digest.frequency"},
			{"capitalised weekday", base("weekday", "Sunday"), "digest.weekday"},
			{"weekly without weekday", base("weekday", nil), "digest.weekday"},
			{"no digest", map[string]any{}, "digest"},
		} {
			r := s.Do(apitest.Request{Method: "PUT", Path: settingsPath(w.ProjectID), Token: w.Admin.Token, Body: c.body})
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s: status = %d, want 422; body: %s", c.name, r.Status, r.Body)
				continue
			}
			r.Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !namesField(d, c.field) {
				t.Errorf("%s: detail = %q, want it to name %s", c.name, d, c.field)
			}
		}
		for _, who := range []apitest.Actor{w.Viewer, w.Member} {
			s.Do(apitest.Request{Method: "PUT", Path: settingsPath(w.ProjectID), Token: who.Token, Body: base("hour", 8)}).Expect(t, http.StatusForbidden, "forbidden")
		}
		if d := getJSON(t, s, w.Viewer.Token, settingsPath(w.ProjectID))["digest"].(map[string]any); d["enabled"] != false {
			t.Errorf("settings after refused changes = %v, want the last accepted (off)", d)
		}
	})
}

// TestDigests: a digest sent on demand covers the period since the last
// one, is listed, and goes to the webhook channels inside a digest body.
func TestDigests(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		rc := newReceiver(t, http.StatusOK)
		hookID, secret := newHook(t, s, w.World, w.ProjectID, "hook", rc.URL)

		// The project's first period starts an hour ago. A digest reports
		// the INFO windows that closed in its period: the last hour's, not
		// the one still open (the next digest reports it, complete). The
		// server's clock stands still, so no hour ends during the test.
		s.Clock.Set(time.Now().UTC())
		hour := s.Clock.Now().Truncate(time.Hour)
		start := rewindPeriod(t, s, w.ProjectID, hour.Add(-time.Hour))
		queueAt(t, s, w.ProjectID, hour.Add(-50*time.Minute), infoEv("api", "user 1 signed in", ingest.Info),
			infoEv("api", "user 2 signed in", ingest.Info), infoEv("api", "user 4 signed in", ingest.Info))
		feed(t, s, w.Key, batchOf("api", ev("checkout failed", "error"), ev("disk low", "warn"), ev("user 3 signed in", "info"), ev("cache hit", "debug")))
		s.Clock.Advance(time.Second) // the tickets were opened before the period's end
		full := sendDigest(t, s, w.Admin.Token, w.ProjectID)
		if id, _ := full["id"].(string); !strings.HasPrefix(id, "dig_") {
			t.Errorf("digest id = %v, want dig_…", full["id"])
		}
		period, _ := full["period"].(map[string]any)
		if apiTime(t, period["start"]) != start || period["timezone"] != "UTC" || !apiTime(t, period["end"]).Equal(s.Clock.Now().Truncate(time.Millisecond)) {
			t.Errorf("period = %v, want from %v to now, in UTC", period, start)
		}
		apiTime(t, full["created_at"])
		tickets, _ := full["tickets"].([]any)
		if full["ticket_count"] != float64(2) || len(tickets) != 2 {
			t.Fatalf("digest = %v, want 2 tickets", full)
		}
		for i, sev := range []string{"high", "medium"} { // by severity
			tk := tickets[i].(map[string]any)
			if tk["severity"] != sev || tk["url"] != testAppURL+"/tickets/"+tk["id"].(string) || tk["title"] == "" {
				t.Errorf("tickets[%d] = %v, want a %s ticket with its url", i, tk, sev)
			}
		}
		// Each like an item of the ticket list (interface 6.2).
		listed := map[string]map[string]any{}
		for _, it := range items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/tickets") {
			listed[it["id"].(string)] = it
		}
		for _, tk := range tickets {
			tk := tk.(map[string]any)
			it := listed[tk["id"].(string)]
			if it == nil || !reflect.DeepEqual(slices.Sorted(maps.Keys(tk)), slices.Sorted(maps.Keys(it))) || tk["user_count"] != it["user_count"] {
				t.Errorf("digest ticket %v, want the fields of its ticket list item %v", tk, it)
			}
		}
		sums := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/info-summaries")
		info, _ := full["info"].(map[string]any)
		if len(sums) != 2 || info == nil {
			t.Fatalf("summaries %v, info %v: want two windows, the closed one reported", ids(sums), info)
		}
		busiest, _ := info["busiest_window"].(map[string]any)
		latest, _ := info["latest_summary"].(map[string]any)
		if info["event_count"] != float64(3) || info["window_count"] != float64(1) || !reflect.DeepEqual(info["summary_ids"], []any{sums[1]["id"]}) ||
			busiest["total_count"] != float64(3) || apiTime(t, busiest["start"]) != hour.Add(-time.Hour) || latest["id"] != sums[1]["id"] {
			t.Errorf("info = %v, want 3 events in the one closed window %v", info, sums[1]["id"])
		}
		if u, _ := info["url"].(string); !strings.HasPrefix(u, testAppURL+"/projects/"+w.ProjectID+"/summaries?from=") {
			t.Errorf("info url = %q", u)
		}
		if st := getJSON(t, s, w.Viewer.Token, settingsPath(w.ProjectID)); st["period_start"] != period["end"] {
			t.Errorf("period_start after a digest = %v, want its end %v", st["period_start"], period["end"])
		}

		// An empty period: still sent on demand.
		empty := sendDigestAgain(t, s, w.Admin.Token, w.ProjectID)
		if p := empty["period"].(map[string]any); p["start"] != period["end"] {
			t.Errorf("second period starts %v, want the first's end %v", p["start"], period["end"])
		}
		if empty["ticket_count"] != float64(0) || !reflect.DeepEqual(empty["tickets"], []any{}) {
			t.Errorf("empty digest = %v, want no tickets", empty)
		}
		if v, present := empty["info"]; !present || v != nil {
			t.Errorf("info = %v (present %v), want null", v, present)
		}

		// Listed newest first; viewers read, admins send.
		list := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/digests")
		if len(list) != 2 || !reflect.DeepEqual(list[0], empty) || !reflect.DeepEqual(list[1], full) {
			t.Errorf("digests = %v, want the two sent, newest first", ids(list))
		}
		if got, pages := pageIDs(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/digests", "1"); len(got) != 2 || pages != 2 {
			t.Errorf("digests paged by 1: %v in %d pages", got, pages)
		}
		for _, who := range []apitest.Actor{w.Viewer, w.Member} {
			s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/digests", Token: who.Token}).Expect(t, http.StatusForbidden, "forbidden")
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.OtherProjectID + "/digests", Token: w.Admin.Token}).Expect(t, http.StatusNotFound, "not-found")

		// Each digest went to the webhook channel, the digest object inside.
		deliverDue(t, s)
		log := deliveries(t, s, w.Viewer.Token, hookID)
		byID := map[string]map[string]any{}
		for _, d := range log {
			byID[d["id"].(string)] = d
		}
		sent := map[any]map[string]any{empty["id"]: empty, full["id"]: full}
		for _, h := range rc.got() {
			if h.Header.Get("Service-Event") != "digest" {
				continue
			}
			b := verified(t, h, "digest", secret)
			inner, _ := b["digest"].(map[string]any)
			want := sent[inner["id"]]
			delete(sent, inner["id"])
			d := byID[b["delivery_id"].(string)]
			if !strings.HasPrefix(b["delivery_id"].(string), "dlv_") || d == nil || d["event"] != "digest" || d["subject_id"] != inner["id"] || d["status"] != "delivered" {
				t.Errorf("digest body of %v: delivery %v is not a logged delivered digest: %v", inner["id"], b["delivery_id"], d)
			}
			if !reflect.DeepEqual(inner, want) || b["organization_id"] != w.OrgID || !reflect.DeepEqual(b["project"], map[string]any{"id": w.ProjectID, "name": "web"}) {
				t.Errorf("digest body = %v, want digest %v of project web", b, want)
			}
		}
		if len(sent) != 0 {
			t.Errorf("digests not delivered to the webhook channel: %v", sent)
		}
	}, allowPrivate, withAppURL)
}

// rewindPeriod moves the start of a project's next digest period back to
// at, as if the project had been created then, and returns it.
func rewindPeriod(t *testing.T, s *apitest.Server, projectID string, at time.Time) time.Time {
	t.Helper()
	ctx := context.Background()
	err := s.App.DB.Tx(ctx, func(c *store.Conn) error {
		st, err := c.NotificationSettingsOf(ctx, projectID)
		if err != nil {
			return err
		}
		st.PeriodStart = at
		return c.PutNotificationSettings(ctx, st)
	})
	if err != nil {
		t.Fatalf("rewind the digest period: %v", err)
	}
	return at
}
