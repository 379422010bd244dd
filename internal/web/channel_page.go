package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/view"
)

// deliveryPageSize is how many deliveries the log shows a page.
const deliveryPageSize = 20

// deliveryRow is one delivery of the log with every attempt, oldest first.
type deliveryRow struct {
	ID, Event, SubjectID, Status string
	// NextAttemptAt is zero unless the delivery is pending.
	NextAttemptAt time.Time
	CreatedAt     time.Time
	Attempts      []store.Attempt
	// Redeliverable: ended, not a test (tests are not redelivered), of a
	// channel that sends.
	Redeliverable bool
}

// testOutcome is what a channel test answered (POST /v1/channels/{id}/test).
type testOutcome struct {
	ID         string
	Delivered  bool
	HTTPStatus int
	Error      string
	DurationMS int64
}

// channelPageData fills channel.html.
type channelPageData struct {
	Channel    channelView
	Deliveries []deliveryRow
	Older      string
	// CanTest (members) and CanAdmin (admins) choose the buttons shown,
	// by the roles the API's operations demand.
	CanTest, CanAdmin bool
	// Test is the outcome of the test just run; Secret the secret a
	// rotation just made, shown this once, and SecretOverlap how long the
	// previous one keeps signing.
	Test          *testOutcome
	Secret        string
	SecretOverlap string
	// Notice reports what an action did; Alert why it did not.
	Notice, Alert string
	// NoEmail: the server sends no email (ERRATA_SMTP_URL is empty), which
	// a pending email channel's page says.
	NoEmail bool
	// Edit is the edit form (admins): the channel's settings, or what was
	// submitted with the problem found in it.
	Edit       *channelForm
	Formats    []formatChoice
	Severities []severityChoice
	// Previews are what each format would send for PreviewTicket, the
	// project's most recent ticket or, when PreviewSample, a sample one.
	Previews      []notify.Preview
	PreviewTicket view.Ticket
	PreviewSample bool
}

// channelShow is a channel's page: facts, health, and the delivery log
// (GET /v1/channels/{id} and its deliveries), paged by ?before=.
func (d *Dashboard) channelShow(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "channel_id", org.Viewer); err != nil {
		return err
	}
	q := r.URL.Query()
	before := q.Get("before")
	if before != "" && !validDeliveryID(before) {
		return problem.New("validation-failed", "before must be a delivery id from the previous page")
	}
	var data channelPageData
	if tested := q.Get("tested"); id.Valid(id.TestDelivery, tested) {
		out, err := d.testedOutcome(r.Context(), r.PathValue("channel_id"), tested)
		if err != nil {
			return err
		}
		data.Test = out
	}
	switch {
	case validDeliveryID(q.Get("redelivered")):
		data.Notice = "Delivery " + q.Get("redelivered") + " is queued again: a new series of attempts starts now under the same id."
	case q.Get("updated") == "1":
		data.Notice = "Channel updated."
	}
	return d.renderChannel(w, r, p, http.StatusOK, r.PathValue("channel_id"), before, data)
}

func validDeliveryID(v string) bool { return id.Valid(id.Delivery, v) || id.Valid(id.TestDelivery, v) }

// renderChannel reads the channel and a page of its log into data and
// renders the channel page with status. The caller has authorized p.
func (d *Dashboard) renderChannel(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, status int, channelID, before string, data channelPageData) error {
	ctx, c := r.Context(), d.db.Read()
	ch, err := c.ChannelByID(ctx, channelID)
	if err != nil {
		return err
	}
	prj, o, crumbs, err := d.projectOrg(ctx, ch.ProjectID)
	if err != nil {
		return err
	}
	ds, err := c.ListDeliveries(ctx, ch.ID, before, deliveryPageSize+1)
	if err != nil {
		return err
	}
	data.NoEmail = d.noEmail
	if len(ds) > deliveryPageSize {
		ds = ds[:deliveryPageSize]
		data.Older = "/channels/" + ch.ID + "?before=" + url.QueryEscape(ds[len(ds)-1].ID)
	}
	sends := ch.Sends() && notify.AllowedByPlan(o.Plan, ch.Type) // a redelivery would be cancelled before any attempt
	ids := make([]string, len(ds))
	for i, dl := range ds {
		ids[i] = dl.ID
	}
	attempts, err := c.AttemptsOf(ctx, ids)
	if err != nil {
		return err
	}
	for _, dl := range ds {
		row := deliveryRow{ID: dl.ID, Event: dl.Event, SubjectID: dl.SubjectID, Status: dl.Status, CreatedAt: dl.CreatedAt, Attempts: attempts[dl.ID],
			Redeliverable: dl.Status != store.DeliveryPending && dl.Event != store.EventTest && sends}
		if dl.Status == store.DeliveryPending && dl.NextAttemptAt != nil {
			row.NextAttemptAt = *dl.NextAttemptAt
		}
		data.Deliveries = append(data.Deliveries, row)
	}
	role, _ := org.ParseRole(p.Member.Role)
	data.Channel = newChannelView(ch, o.Plan, role, d.now())
	ws, err := d.notify.FilterWarnings(ctx, ch.ProjectID, []store.Filters{ch.Filters})
	if err != nil {
		return err
	}
	data.Channel.FilterWarnings = ws[0]
	data.CanTest, data.CanAdmin = role.AtLeast(org.MemberRole), role.AtLeast(org.Admin)
	if data.CanAdmin {
		if data.Edit == nil {
			f := editForm(data.Channel)
			data.Edit = &f
		}
		data.Formats, data.Severities = formatChoices, severityChoices
	}
	if data.Previews, data.PreviewTicket, data.PreviewSample, err = d.notify.TicketPreviews(ctx, ch); err != nil {
		return err
	}
	crumbs = append(crumbs, crumb{"Channels", "/projects/" + prj.ID + "/channels"}, crumb{ch.Name, "/channels/" + ch.ID})
	d.render(w, r, status, "channel", p, frame{Title: ch.Name + " · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "channels", Data: data})
	return nil
}

// channelAlert renders the channel page with a problem's status and its
// detail as the alert; other errors (not found among them) stay errors.
func (d *Dashboard) channelAlert(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, channelID string, err error, alert func(*problem.Problem) string) error {
	var pr *problem.Problem
	if !errors.As(err, &pr) || pr.Status == http.StatusNotFound {
		return err
	}
	msg := pr.Detail
	if alert != nil {
		msg = alert(pr)
	}
	return d.renderChannel(w, r, p, pr.Status, channelID, "", channelPageData{Alert: msg})
}

// channelTest sends a test delivery and shows its outcome (member, as
// POST /v1/channels/{id}/test).
func (d *Dashboard) channelTest(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "channel_id", org.MemberRole); err != nil {
		return err
	}
	channelID := r.PathValue("channel_id")
	res, err := d.notify.TestChannel(r.Context(), channelID)
	if err != nil {
		return d.channelAlert(w, r, p, channelID, err, func(pr *problem.Problem) string {
			if pr.Code() == "channel-test-rate-limited" {
				return "This channel was tested less than a minute ago; a channel can be tested once a minute. Try again in " +
					pr.GetHeaders().Get("Retry-After") + " seconds."
			}
			return pr.Detail
		})
	}
	// The outcome is in the delivery log: show it from there after a
	// redirect, so reloading the page does not send another test.
	http.Redirect(w, r, "/channels/"+channelID+"?tested="+url.QueryEscape(res.ID), http.StatusSeeOther)
	return nil
}

// testedOutcome reads the outcome of test delivery testID of channelID
// from the delivery log; nil when it is not this channel's test or is gone.
func (d *Dashboard) testedOutcome(ctx context.Context, channelID, testID string) (*testOutcome, error) {
	c := d.db.Read()
	dl, err := c.DeliveryByID(ctx, testID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (dl.ChannelID != channelID || dl.Event != store.EventTest)) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	attempts, err := c.AttemptsOf(ctx, []string{dl.ID})
	if err != nil || len(attempts[dl.ID]) == 0 {
		return nil, err
	}
	a := attempts[dl.ID][len(attempts[dl.ID])-1]
	return &testOutcome{ID: dl.ID, Delivered: a.Outcome == store.OutcomeDelivered, HTTPStatus: a.HTTPStatus, Error: a.Error,
		DurationMS: a.Duration.Milliseconds()}, nil
}

// channelRotate gives a webhook channel a new secret and shows it once
// (admin, as POST /v1/channels/{id}/rotate-secret).
func (d *Dashboard) channelRotate(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "channel_id", org.Admin); err != nil {
		return err
	}
	channelID := r.PathValue("channel_id")
	ch, err := d.notify.RotateSecret(r.Context(), channelID)
	if err != nil {
		return d.channelAlert(w, r, p, channelID, err, nil)
	}
	return d.renderChannel(w, r, p, http.StatusOK, channelID, "", channelPageData{Secret: ch.Secret, SecretOverlap: overlapText(notify.RotationOverlap)})
}

// overlapText says a duration in whole hours ("24 hours").
func overlapText(d time.Duration) string {
	return fmt.Sprintf("%d hours", int(d.Hours()))
}

// channelEnable enables or disables a channel through UpdateChannel
// (admin, as PATCH /v1/channels/{id}); disabling cancels pending deliveries.
func (d *Dashboard) channelEnable(enabled bool) pageFunc {
	return func(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
		if err := d.authorize(r, p, "channel_id", org.Admin); err != nil {
			return err
		}
		channelID := r.PathValue("channel_id")
		if _, err := d.notify.UpdateChannel(r.Context(), channelID, notify.ChannelPatch{Enabled: &enabled}); err != nil {
			return d.channelAlert(w, r, p, channelID, err, nil)
		}
		http.Redirect(w, r, "/channels/"+channelID+"?updated=1", http.StatusSeeOther)
		return nil
	}
}

// channelResend sends a pending email channel's confirmation email again
// (admin, as POST /v1/channels/{id}/confirmation).
func (d *Dashboard) channelResend(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "channel_id", org.Admin); err != nil {
		return err
	}
	channelID := r.PathValue("channel_id")
	ch, err := d.notify.ResendConfirmation(r.Context(), channelID)
	if err != nil {
		return d.channelAlert(w, r, p, channelID, err, nil)
	}
	notice := "The confirmation email is on its way to " + ch.Email + " with a new link; the previous link no longer works."
	if d.noEmail {
		notice = "A new confirmation link was made for " + ch.Email + " and the previous one no longer works, but this server sends no email " +
			"(ERRATA_SMTP_URL is not set): no email can bring it the link until an operator sets it."
	}
	return d.renderChannel(w, r, p, http.StatusOK, channelID, "", channelPageData{Notice: notice})
}

// channelDelete deletes a channel and its deliveries (admin, as
// DELETE /v1/channels/{id}), then shows the list.
func (d *Dashboard) channelDelete(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "channel_id", org.Admin); err != nil {
		return err
	}
	ctx, channelID := r.Context(), r.PathValue("channel_id")
	ch, err := d.db.Read().ChannelByID(ctx, channelID)
	if err != nil {
		return err
	}
	if err := d.notify.DeleteChannel(ctx, channelID); err != nil {
		return err
	}
	http.Redirect(w, r, "/projects/"+ch.ProjectID+"/channels?deleted=1", http.StatusSeeOther)
	return nil
}

// deliveryRedeliver starts a new series of attempts of an ended delivery
// (admin, as POST /v1/deliveries/{id}/redeliver); one still pending is
// shown as a 409 message on the channel page.
func (d *Dashboard) deliveryRedeliver(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "delivery_id", org.Admin); err != nil {
		return err
	}
	ctx, deliveryID := r.Context(), r.PathValue("delivery_id")
	dl, err := d.db.Read().DeliveryByID(ctx, deliveryID)
	if err != nil {
		return err
	}
	if err := d.notify.Redeliver(ctx, deliveryID); err != nil {
		return d.channelAlert(w, r, p, dl.ChannelID, err, nil)
	}
	http.Redirect(w, r, "/channels/"+dl.ChannelID+"?redelivered="+url.QueryEscape(deliveryID), http.StatusSeeOther)
	return nil
}
