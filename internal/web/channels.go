package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// channelRoutes registers the channel, delivery and notification pages.
// Each checks the role of the matching API operation (httpapi/routes.go):
// viewers read, members test, admins change.
func (d *Dashboard) channelRoutes(mux *http.ServeMux) {
	d.get(mux, "/projects/{project_id}/channels", d.channelList)
	d.post(mux, "/projects/{project_id}/channels", d.channelCreate)
	d.get(mux, "/channels/{channel_id}", d.channelShow)
	d.post(mux, "/channels/{channel_id}/test", d.channelTest)
	d.post(mux, "/channels/{channel_id}/edit", d.channelEdit)
	d.post(mux, "/channels/{channel_id}/rotate-secret", d.channelRotate)
	d.post(mux, "/channels/{channel_id}/enable", d.channelEnable(true))
	d.post(mux, "/channels/{channel_id}/disable", d.channelEnable(false))
	d.post(mux, "/channels/{channel_id}/delete", d.channelDelete)
	d.post(mux, "/channels/{channel_id}/resend-confirmation", d.channelResend)
	d.post(mux, "/deliveries/{delivery_id}/redeliver", d.deliveryRedeliver)
	d.get(mux, "/projects/{project_id}/notifications", d.notificationsShow)
	d.post(mux, "/projects/{project_id}/notifications", d.notificationsSave)
	d.post(mux, "/projects/{project_id}/digests", d.digestSend)
}

// channelView is a channel as pages show it. It has no field for the
// signing secrets, so no template can print them by mistake.
type channelView struct {
	ID, ProjectID, Name, Type string
	// Target is the webhook URL or the email address.
	Target              string
	Enabled             bool
	Health              string
	ConsecutiveFailures int64
	// LastDeliveryAt and PreviousSecretUntil are zero when unset.
	LastDeliveryAt      time.Time
	PreviousSecretUntil time.Time
	AllowedByPlan       bool
	CreatedAt           time.Time
	// Format is a webhook channel's; "" for an email channel.
	Format  string
	Filters store.Filters
	// FilterWarnings are the filter values no event of the project has
	// had in the last 30 days (the channel page fills them).
	FilterWarnings []notify.FilterWarning
	// Pending: an email channel waiting for its address to confirm;
	// UnsubscribedAt (zero when not) when its recipient unsubscribed.
	Pending        bool
	UnsubscribedAt time.Time
}

// newChannelView is what httpapi's channelView shows, at now, to a member
// of role: a webhook's URL whole only to admins and owners.
func newChannelView(ch store.Channel, plan string, role org.Role, now time.Time) channelView {
	v := channelView{ID: ch.ID, ProjectID: ch.ProjectID, Name: ch.Name, Type: ch.Type, Target: notify.ShownURL(ch.URL, role.AtLeast(org.Admin)), Enabled: ch.Enabled,
		Health: ch.Health, ConsecutiveFailures: ch.ConsecutiveFailures, AllowedByPlan: notify.AllowedByPlan(plan, ch.Type), CreatedAt: ch.CreatedAt,
		Format: ch.Format, Filters: ch.Filters}
	if ch.Type == store.ChannelEmail {
		v.Target, v.Format = ch.Email, ""
	}
	if ch.LastDeliveryAt != nil {
		v.LastDeliveryAt = *ch.LastDeliveryAt
	}
	v.Pending = ch.Confirmation == store.ConfirmationPending
	if ch.UnsubscribedAt != nil {
		v.UnsubscribedAt = *ch.UnsubscribedAt
	}
	if ch.OldSecretUntil != nil && ch.OldSecretUntil.After(now) {
		v.PreviousSecretUntil = *ch.OldSecretUntil
	}
	return v
}

// channelPageSize is how many channels the list shows a page.
const channelPageSize = 50

// channelForm is one of the two creation forms as submitted, or the
// channel page's edit form, with the problem the service found in it.
type channelForm struct {
	Type, Name, URL, Email string
	Format, MinSeverity    string
	// Environments and Services are as typed: comma-separated.
	Environments, Services string
	// Field names the input Error is about (name, url, email, format,
	// min_severity, environments or services); "" for the whole form
	// (plan limits).
	Field, Error string
}

// readChannelForm reads a submitted channel form.
func readChannelForm(r *http.Request) channelForm {
	f := r.PostForm
	return channelForm{Type: f.Get("type"), Name: f.Get("name"), URL: strings.TrimSpace(f.Get("url")), Email: strings.TrimSpace(f.Get("email")),
		Format: f.Get("format"), MinSeverity: f.Get("min_severity"), Environments: f.Get("environments"), Services: f.Get("services")}
}

// filters is the form's filters as a patch: every field, as typed.
func (f channelForm) filters() *notify.FiltersPatch {
	envs, svcs := splitList(f.Environments), splitList(f.Services)
	p := &notify.FiltersPatch{Environments: &envs, Services: &svcs}
	if f.MinSeverity != "" {
		p.MinSeverity = &f.MinSeverity
	}
	return p
}

// splitList reads a comma- or line-separated list, without blanks.
func splitList(v string) []string {
	out := []string{}
	for _, s := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// failed records a problem's detail in the form, naming the field it is
// about by its "field: …" prefix.
func (f *channelForm) failed(detail string) {
	f.Error = detail
	f.Field = problemField(detail, "name", "url", "email", "format", "filters.min_severity", "filters.environments", "filters.services")
	f.Field = strings.TrimPrefix(f.Field, "filters.")
	if f.Field != "" {
		f.Error = fieldMessage(detail) // shown under its field, which names it
	}
}

// channelListData fills channels.html.
type channelListData struct {
	Project  store.Project
	Channels []channelView
	Next     string
	Plan     string
	Limits   org.Limits
	// Webhooks reports whether the plan includes webhook channels.
	Webhooks bool
	// CanCreate shows the creation forms: admins.
	CanCreate bool
	// MyEmail is the default address of an email channel: the caller's.
	MyEmail string
	Form    channelForm
	Deleted bool
	// Formats and Severities are the choices the forms offer.
	Formats    []formatChoice
	Severities []severityChoice
	// NoEmail: the server sends no email, which the email form says.
	NoEmail bool
}

// channelList lists a project's channels (GET /v1/projects/{id}/channels).
func (d *Dashboard) channelList(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Viewer); err != nil {
		return err
	}
	before := r.URL.Query().Get("before")
	if before != "" && !id.Valid(id.Channel, before) {
		return problem.New("validation-failed", "before must be a channel id from the previous page")
	}
	return d.renderChannelList(w, r, p, http.StatusOK, before, channelForm{Type: store.ChannelWebhook})
}

func (d *Dashboard) renderChannelList(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, status int, before string, form channelForm) error {
	ctx, c := r.Context(), d.db.Read()
	prj, o, crumbs, err := d.projectOrg(ctx, r.PathValue("project_id"))
	if err != nil {
		return err
	}
	rows, err := c.ListChannels(ctx, prj.ID, before, channelPageSize+1)
	if err != nil {
		return err
	}
	role, _ := org.ParseRole(p.Member.Role)
	data := channelListData{Project: prj, Plan: o.Plan, Limits: org.LimitsOf(o.Plan), Webhooks: notify.AllowedByPlan(o.Plan, store.ChannelWebhook),
		CanCreate: role.AtLeast(org.Admin), MyEmail: p.Member.Email, Form: form, Deleted: r.URL.Query().Get("deleted") == "1",
		Formats: formatChoices, Severities: severityChoices, NoEmail: d.noEmail}
	if len(rows) > channelPageSize {
		rows = rows[:channelPageSize]
		data.Next = "/projects/" + prj.ID + "/channels?before=" + url.QueryEscape(rows[len(rows)-1].ID)
	}
	now := d.now()
	for _, ch := range rows {
		data.Channels = append(data.Channels, newChannelView(ch, o.Plan, role, now))
	}
	crumbs = append(crumbs, crumb{"Channels", "/projects/" + prj.ID + "/channels"})
	d.render(w, r, status, "channels", p, frame{Title: "Channels · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "channels", Data: data})
	return nil
}

// channelCreatedData fills channel-created.html.
type channelCreatedData struct {
	Channel channelView
	// Secret is the webhook signing secret, shown this once.
	Secret string
	// NoEmail: the server sends no email (ERRATA_SMTP_URL is empty).
	NoEmail bool
}

// channelCreate creates a channel belonging to the caller's membership
// through notify.Service.CreateChannel, as POST /v1/projects/{id}/channels.
// A webhook's secret is rendered in the answer (201) and never again; a
// problem shows the form again with the values entered.
func (d *Dashboard) channelCreate(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Admin); err != nil {
		return err
	}
	if err := readForm(r); err != nil {
		return err
	}
	form := readChannelForm(r)
	ctx, projectID := r.Context(), r.PathValue("project_id")
	// Everything the answer shows is read first: once the channel exists,
	// its secret must reach the page.
	prj, o, crumbs, err := d.projectOrg(ctx, projectID)
	if err != nil {
		return err
	}
	ch, err := d.notify.CreateChannel(ctx, projectID, notify.ChannelInput{MemberID: p.Member.ID, Name: form.Name, Type: form.Type, URL: form.URL, Email: form.Email,
		Format: form.Format, Filters: form.filters()})
	var pr *problem.Problem
	if errors.As(err, &pr) && pr.Status != http.StatusNotFound && (form.Type == "webhook" || form.Type == "email") {
		// Shown in the form it came from; a type neither form sends (a
		// request made by hand) gets the error page with the message.
		form.failed(pr.Detail)
		return d.renderChannelList(w, r, p, pr.Status, "", form)
	}
	if err != nil {
		return err
	}
	crumbs = append(crumbs, crumb{"Channels", "/projects/" + prj.ID + "/channels"})
	data := channelCreatedData{Channel: newChannelView(ch, o.Plan, org.Admin, d.now()), Secret: ch.Secret, NoEmail: d.noEmail}
	d.render(w, r, http.StatusCreated, "channel-created", p, frame{Title: "Channel created · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "channels", Data: data})
	return nil
}

// problemField returns which of fields a problem's detail names by its
// "field: …" prefix, or "".
func problemField(detail string, fields ...string) string {
	for _, f := range fields {
		if strings.HasPrefix(detail, f+":") || strings.HasPrefix(detail, f+"[") { // filters.environments[2]: …
			return f
		}
	}
	return ""
}

// fieldMessage is a problem detail shown under the field it names: without
// the API's field name ("url: must use https" is "Must use https."), an
// entry of a list said as such ("Entry 2: …").
func fieldMessage(detail string) string {
	_, entry, rest, _ := detailField(detail)
	if entry > 0 {
		rest = "entry " + strconv.Itoa(entry) + ": " + rest
	}
	return sentence(rest)
}
