package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/notify/chat"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// formatChoice is a webhook format as the forms offer it.
type formatChoice struct{ Value, Label string }

var formatChoices = func() []formatChoice {
	var out []formatChoice
	for _, f := range chat.Formats() {
		out = append(out, formatChoice{f, formatLabel(f)})
	}
	return out
}()

// severityChoice is a minimum severity as the forms offer it.
type severityChoice struct{ Value, Label string }

var severityChoices = func() []severityChoice {
	labels := map[tickets.Severity]string{tickets.Critical: "critical only", tickets.High: "high and critical (default)",
		tickets.Medium: "medium, high and critical"}
	var out []severityChoice
	for _, s := range tickets.Severities() {
		out = append(out, severityChoice{s.String(), labels[s]})
	}
	return out
}()

// formatLabel is a format's name for people ("" for email channels).
func formatLabel(format string) string {
	f, _ := chat.Lookup(format)
	return f.Label
}

// editForm is the channel's edit form filled with its settings.
func editForm(ch channelView) channelForm {
	f := channelForm{Type: ch.Type, Name: ch.Name, Format: ch.Format, MinSeverity: ch.Filters.MinSeverity,
		Environments: strings.Join(ch.Filters.Environments, ", "), Services: strings.Join(ch.Filters.Services, ", ")}
	if ch.Type == store.ChannelEmail {
		f.Email = ch.Target
	} else {
		f.URL = ch.Target
	}
	return f
}

// channelEdit changes a channel's name, URL or address, format and
// filters (admin, as PATCH /v1/channels/{id}); a problem shows the page
// again with the form as submitted and the field named. Deliveries
// already queued keep their format and are not filtered again.
func (d *Dashboard) channelEdit(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "channel_id", org.Admin); err != nil {
		return err
	}
	if err := readForm(r); err != nil {
		return err
	}
	ctx, channelID := r.Context(), r.PathValue("channel_id")
	ch, err := d.db.Read().ChannelByID(ctx, channelID)
	if err != nil {
		return err
	}
	form := readChannelForm(r)
	form.Type = ch.Type
	patch := notify.ChannelPatch{Name: &form.Name, Filters: form.filters()}
	// An unchanged address is not sent again: a webhook URL would be
	// looked up again for nothing.
	switch ch.Type {
	case store.ChannelWebhook:
		patch.Format = &form.Format
		if form.URL != ch.URL {
			patch.URL = &form.URL
		}
	case store.ChannelEmail:
		if form.Email != ch.Email {
			patch.Email = &form.Email
		}
	}
	_, err = d.notify.UpdateChannel(ctx, channelID, patch)
	var pr *problem.Problem
	if errors.As(err, &pr) && pr.Status != http.StatusNotFound {
		form.failed(pr.Detail)
		return d.renderChannel(w, r, p, pr.Status, channelID, "", channelPageData{Edit: &form})
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/channels/"+channelID+"?updated=1", http.StatusSeeOther)
	return nil
}

// filterInputs is what the template channel-filter-inputs takes.
type filterInputs struct {
	Prefix     string
	Form       channelForm
	Severities []severityChoice
}

func init() {
	funcs["formatLabel"] = formatLabel
	// formOf is the form as submitted when it was the form of type kind,
	// else an empty one: the list page has two creation forms.
	// A fresh form selects the default minimum severity (high).
	funcs["formOf"] = func(kind string, f channelForm) channelForm {
		if f.Type != kind {
			f = channelForm{Type: kind}
		}
		if f.MinSeverity == "" {
			f.MinSeverity = store.DefaultMinSeverity
		}
		return f
	}
	// The channel page's form is a *channelForm, the list's a channelForm.
	funcs["filterInputs"] = func(prefix string, f any, s []severityChoice) (filterInputs, error) {
		switch f := f.(type) {
		case channelForm:
			return filterInputs{Prefix: prefix, Form: f, Severities: s}, nil
		case *channelForm:
			return filterInputs{Prefix: prefix, Form: *f, Severities: s}, nil
		}
		return filterInputs{}, errors.New("filterInputs: not a channel form")
	}
}
