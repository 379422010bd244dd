package web

//go:generate go run ./internal/zonegen -o notifications_zones.go

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify/digest"
	"github.com/errata-dev/errata/internal/notify/schedule"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// previewRuns is how many send times a preview lists.
const previewRuns = 3

// digestListSize is how many past digests the page lists.
const digestListSize = 10

// sendTime is one digest send time, in the schedule's zone and in UTC.
type sendTime struct {
	Local string
	UTC   time.Time
}

// digestRow is one past digest.
type digestRow struct {
	Digest              digest.Digest
	Created, Start, End time.Time
	// SummariesURL is the dashboard's INFO summaries of its period.
	SummariesURL string
}

// notificationsData fills notifications.html.
type notificationsData struct {
	Project store.Project
	// Form holds the values shown in the form: the saved schedule, or what
	// was submitted for a preview or a failed save.
	Form schedule.Digest
	// Errors are by field: enabled, frequency, hour, weekday, timezone;
	// "" for the form as a whole.
	Errors map[string]string
	// Next are the next send times of the saved schedule; PeriodStart is
	// where the next digest's period starts.
	Next        []sendTime
	PeriodStart time.Time
	Saved       schedule.Digest
	// Preview, when set, lists the send times of unsaved form values.
	Preview []sendTime
	Zones   []string
	Freqs   []string
	Days    []string
	Hours   []int
	Digests []digestRow
	CanEdit bool
	Notice  string
}

var (
	digestFreqs = []string{schedule.Hourly, schedule.Daily, schedule.Weekly}
	digestDays  = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
	digestHours = func() []int {
		h := make([]int, 24)
		for i := range h {
			h[i] = i
		}
		return h
	}()
)

// notificationsShow shows the digest schedule with its next send times, a
// preview of unsaved values (?preview=1&…, nothing saved) and the recent
// digests (GET notification-settings and digests, viewer).
func (d *Dashboard) notificationsShow(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Viewer); err != nil {
		return err
	}
	q := r.URL.Query()
	data := notificationsData{}
	switch {
	case q.Get("saved") == "1":
		data.Notice = "Schedule saved."
	case id.Valid(id.Digest, q.Get("sent")):
		data.Notice = "Digest " + q.Get("sent") + " sent to the project's channels."
	}
	if q.Get("preview") == "" {
		return d.renderNotifications(w, r, p, http.StatusOK, data, nil)
	}
	form, errs := digestFromForm(q)
	if errs == nil {
		errs = fieldErrors(form.Validate())
	}
	if errs != nil {
		data.Errors = errs
		return d.renderNotifications(w, r, p, http.StatusUnprocessableEntity, data, &form)
	}
	if data.Preview, errs = sendTimes(form, d.now()); errs != nil {
		data.Errors = errs
		return d.renderNotifications(w, r, p, http.StatusUnprocessableEntity, data, &form)
	}
	return d.renderNotifications(w, r, p, http.StatusOK, data, &form)
}

// notificationsSave stores the schedule through PutNotificationSettings
// (admin, as PUT notification-settings); a 422 shows the form again with
// each problem next to its field.
func (d *Dashboard) notificationsSave(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Admin); err != nil {
		return err
	}
	if err := readForm(r); err != nil {
		return err
	}
	form, errs := digestFromForm(r.PostForm)
	if errs != nil {
		return d.renderNotifications(w, r, p, http.StatusUnprocessableEntity, notificationsData{Errors: errs}, &form)
	}
	projectID := r.PathValue("project_id")
	_, err := d.digests.PutNotificationSettings(r.Context(), projectID, form)
	var pr *problem.Problem
	if errors.As(err, &pr) && pr.Status == http.StatusUnprocessableEntity {
		return d.renderNotifications(w, r, p, pr.Status, notificationsData{Errors: fieldErrors(errors.New(pr.Detail))}, &form)
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/projects/"+projectID+"/notifications?saved=1", http.StatusSeeOther)
	return nil
}

// digestSend sends the digest of the period since the last one now (admin,
// as POST /v1/projects/{id}/digests).
func (d *Dashboard) digestSend(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Admin); err != nil {
		return err
	}
	projectID := r.PathValue("project_id")
	dg, err := d.digests.SendDigest(r.Context(), projectID)
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/projects/"+projectID+"/notifications?sent="+url.QueryEscape(dg.ID), http.StatusSeeOther)
	return nil
}

// digestFromForm reads a schedule from form values; errs names a field
// that is not even of the right kind (hour not a number).
func digestFromForm(v url.Values) (schedule.Digest, map[string]string) {
	d := schedule.Digest{Enabled: v.Get("enabled") != "", Frequency: v.Get("frequency"), Weekday: v.Get("weekday"),
		Timezone: strings.TrimSpace(v.Get("timezone"))}
	if h := v.Get("hour"); h != "" {
		n, err := strconv.Atoi(h)
		if err != nil {
			return d, map[string]string{"hour": "digest.hour: must be a whole number from 0 to 23"}
		}
		d.Hour = n
	}
	return d, nil
}

// fieldErrors sorts schedule.Validate's errors (or a problem detail made
// of them, one per line) by field: "digest.timezone: …" goes to timezone.
func fieldErrors(err error) map[string]string {
	if err == nil {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(err.Error(), "\n") {
		field := ""
		if rest, ok := strings.CutPrefix(line, "digest."); ok {
			if f, _, ok := strings.Cut(rest, ":"); ok {
				field = f
			}
		}
		if out[field] != "" {
			line = out[field] + "; " + line
		}
		out[field] = line
	}
	return out
}

// sendTimes lists the next send times of s after now with the schedule
// code the notifier uses (schedule.Digest.Next).
func sendTimes(s schedule.Digest, now time.Time) ([]sendTime, map[string]string) {
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		return nil, map[string]string{"timezone": fmt.Sprintf("digest.timezone: unknown time zone %q", s.Timezone)}
	}
	var out []sendTime
	at := now
	for range previewRuns {
		next, err := s.Next(at)
		if err != nil {
			return nil, fieldErrors(err)
		}
		out = append(out, sendTime{Local: next.In(loc).Format("Monday 2 January 2006, 15:04 MST"), UTC: next})
		at = next
	}
	return out, nil
}

// renderNotifications reads the saved settings and recent digests into
// data and renders the page; form, when set, replaces the saved values in
// the form.
func (d *Dashboard) renderNotifications(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, status int, data notificationsData, form *schedule.Digest) error {
	ctx := r.Context()
	prj, crumbs, err := d.projectCrumbs(ctx, r.PathValue("project_id"))
	if err != nil {
		return err
	}
	st, err := d.digests.NotificationSettings(ctx, prj.ID)
	if err != nil {
		return err
	}
	data.Project, data.Saved, data.PeriodStart, data.Form = prj, st.Digest, st.PeriodStart, st.Digest
	if form != nil {
		data.Form = *form
	}
	if st.Digest.Enabled && !st.NextDigestAt.IsZero() {
		// The stored next run first, as the scheduler will use it, then the
		// ones after it.
		// An overdue one (no scheduler running yet) is replaced by the next
		// from now.
		from := st.NextDigestAt.Add(-time.Nanosecond)
		if now := d.now(); from.Before(now) {
			from = now
		}
		next, err := sendTimes(st.Digest, from)
		if err != nil { // a saved zone this build no longer knows
			d.log.Warn("dashboard: next digest times", "request_id", httpserver.RequestID(ctx), "project_id", prj.ID, "err", err)
		}
		data.Next = next
	}
	rows, err := d.db.Read().ListDigests(ctx, prj.ID, "", digestListSize)
	if err != nil {
		return err
	}
	for _, dg := range rows {
		var v digest.Digest
		if err := json.Unmarshal(dg.Body, &v); err != nil {
			return fmt.Errorf("web: stored digest %s: %w", dg.ID, err)
		}
		data.Digests = append(data.Digests, digestRow{Digest: v, Created: dg.CreatedAt, Start: dg.PeriodStart, End: dg.PeriodEnd,
			SummariesURL: digest.SummariesURL("", prj.ID, dg.PeriodStart, dg.PeriodEnd)})
	}
	role, _ := org.ParseRole(p.Member.Role)
	data.CanEdit = role.AtLeast(org.Admin)
	data.Zones, data.Freqs, data.Days, data.Hours = zoneNames, digestFreqs, digestDays, digestHours
	crumbs = append(crumbs, crumb{"Notifications", "/projects/" + prj.ID + "/notifications"})
	d.render(w, r, status, "notifications", p, frame{Title: "Notifications · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "notifications", Data: data})
	return nil
}
