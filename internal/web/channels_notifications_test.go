package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/notify/schedule"
)

// chanSettings reads the digest schedule through the API.
func chanSettings(t *testing.T, s *apitest.Server, token, projectID string) map[string]any {
	t.Helper()
	r := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + projectID + "/notification-settings", Token: token}).Expect(t, http.StatusOK, "")
	return r.JSON(t)["digest"].(map[string]any)
}

// chanUTC is how the utc template function writes t.
func chanUTC(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") + " UTC</time>" }

func TestNotificationSettingsPage(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		path := "/projects/" + w.ProjectID + "/notifications"
		viewer := newBrowser(t, s)
		viewer.signIn(w.Viewer.Email)
		vp := viewer.get(path).expect(t, http.StatusOK, "Now: daily at 09:00, UTC", `<label for="n-timezone">`, `list="zones"`,
			`<option value="Europe/Berlin">`, `<option value="America/New_York">`, "Next sends:", "No digest sent yet.", `value="UTC"`)
		if strings.Contains(vp.Body, ">Save</button>") || strings.Contains(vp.Body, "Send digest now") {
			t.Errorf("a viewer is offered Save or Send digest now")
		}
		viewer.post(path, url.Values{"enabled": {"1"}, "frequency": {"hourly"}, "timezone": {"UTC"}}).expect(t, http.StatusForbidden, "forbidden")
		viewer.post("/projects/"+w.ProjectID+"/digests", nil).expect(t, http.StatusForbidden, "forbidden")

		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		admin.get(path).expect(t, http.StatusOK, ">Save</button>", "Send digest now")
		form := url.Values{"enabled": {"1"}, "frequency": {"weekly"}, "hour": {"7"}, "weekday": {"friday"}, "timezone": {"America/New_York"}}
		res := admin.post(path, form).expect(t, http.StatusSeeOther)
		if loc := res.Header.Get("Location"); loc != path+"?saved=1" {
			t.Errorf("save goes to %q", loc)
		}
		got := chanSettings(t, s, w.Admin.Token, w.ProjectID)
		if got["frequency"] != "weekly" || got["hour"] != float64(7) || got["weekday"] != "friday" || got["timezone"] != "America/New_York" || got["enabled"] != true {
			t.Fatalf("API settings after saving = %v", got)
		}
		saved := schedule.Digest{Enabled: true, Frequency: "weekly", Hour: 7, Weekday: "friday", Timezone: "America/New_York"}
		next, err := saved.Next(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		ny, _ := time.LoadLocation("America/New_York")
		admin.get(path+"?saved=1").expect(t, http.StatusOK, "Schedule saved.", "Now: weekly at 07:00 on friday, America/New_York",
			`<option value="weekly" selected>`, `<option value="friday" selected>`, `<option value="7" selected>`,
			next.In(ny).Format("Monday 2 January 2006, 15:04 MST"), chanUTC(next))

		bad := admin.post(path, url.Values{"enabled": {"1"}, "frequency": {"daily"}, "hour": {"8"}, "weekday": {"monday"}, "timezone": {"Mars/Olympus"}}).
			expect(t, http.StatusUnprocessableEntity, `id="n-timezone-err" role="alert">digest.timezone: unknown time zone`, `value="Mars/Olympus"`,
				`<option value="daily" selected>`)
		if strings.Contains(bad.Body, `id="n-hour-err"`) {
			t.Errorf("a bad zone is reported against the hour")
		}
		admin.post(path, url.Values{"frequency": {"daily"}, "hour": {"noon"}, "timezone": {"UTC"}}).
			expect(t, http.StatusUnprocessableEntity, `id="n-hour-err" role="alert">digest.hour`)
		if got := chanSettings(t, s, w.Admin.Token, w.ProjectID); got["timezone"] != "America/New_York" {
			t.Errorf("a refused save changed the settings: %v", got)
		}
	})
}

func TestNotificationPreviewAndSendDigest(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		path := "/projects/" + w.ProjectID + "/notifications"
		viewer := newBrowser(t, s)
		viewer.signIn(w.Viewer.Email)
		q := url.Values{"preview": {"1"}, "enabled": {"1"}, "frequency": {"daily"}, "hour": {"6"}, "weekday": {"monday"}, "timezone": {"Asia/Tokyo"}}
		d := schedule.Digest{Enabled: true, Frequency: "daily", Hour: 6, Weekday: "monday", Timezone: "Asia/Tokyo"}
		first, err := d.Next(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		second, _ := d.Next(first)
		tokyo, _ := time.LoadLocation("Asia/Tokyo")
		viewer.get(path+"?"+q.Encode()).expect(t, http.StatusOK, "Preview (not saved)", first.In(tokyo).Format("Monday 2 January 2006, 15:04 MST"),
			chanUTC(first), chanUTC(second), "06:00 JST", `value="Asia/Tokyo"`, `<option value="6" selected>`)
		if got := chanSettings(t, s, w.Admin.Token, w.ProjectID); got["timezone"] != "UTC" || got["hour"] != float64(9) {
			t.Errorf("a preview changed the settings: %v", got)
		}
		q.Set("timezone", "Nowhere/Atlantis")
		viewer.get(path+"?"+q.Encode()).expect(t, http.StatusUnprocessableEntity, `id="n-timezone-err" role="alert">digest.timezone`)

		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		res := admin.post("/projects/"+w.ProjectID+"/digests", nil).expect(t, http.StatusSeeOther)
		loc := res.Header.Get("Location")
		if !strings.HasPrefix(loc, path+"?sent=dig_") {
			t.Fatalf("send digest goes to %q", loc)
		}
		digID := strings.TrimPrefix(loc, path+"?sent=")
		admin.get(loc).expect(t, http.StatusOK, "Digest "+digID+" sent", "<code>"+digID+"</code>", "(UTC)")
		r := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/digests", Token: w.Admin.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if ds := r["data"].([]any); len(ds) != 1 || ds[0].(map[string]any)["id"] != digID {
			t.Errorf("API digests = %v, want %s", ds, digID)
		}
		viewer.get(path).expect(t, http.StatusOK, "<code>"+digID+"</code>")
	})
}
