package web

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/view"
)

// eventData fills the event page: the stored event whole, as
// GET /v1/events/{event_id} answers it (view.NewEventDetail), with its
// group, trace and attributes laid out.
type eventData struct {
	Event view.EventDetail
	// Title is the group's title; Stack the laid-out trace, nil without one.
	Title      string
	Stack      *stackView
	Attributes []attribute
}

// event shows a stored event: its facts, the breadcrumbs as a timeline, the
// frames with their source context, the trace as sent and the attributes,
// with links to the group's stored events before and after it.
func (d *Dashboard) event(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "event_id", org.Viewer); err != nil {
		return err
	}
	ctx := r.Context()
	n, _ := id.ParseEvent(r.PathValue("event_id")) // authorize proved it an event id
	detail, g, err := view.EventDetailOf(ctx, d.db.Read(), n)
	if err != nil {
		return err
	}
	prj, crumbs, err := d.projectCrumbs(ctx, g.ProjectID)
	if err != nil {
		return err
	}
	data := eventData{Event: detail, Title: g.Title, Attributes: attributes(string(detail.Attributes))}
	if detail.StackTrace != "" {
		st := newStackView(detail.StackTrace)
		data.Stack = &st
	}
	crumbs = append(crumbs, crumb{"Error groups", "/projects/" + prj.ID + "/groups"}, crumb{titleOf(g.Title, g.SampleMessage).Text, "/groups/" + g.ID})
	d.render(w, r, http.StatusOK, "event", p, frame{Title: "Event " + data.Event.ID + " · " + g.Title, Crumbs: crumbs, Project: &prj, Tab: "groups", Data: data})
	return nil
}

// viewTime writes a view.Timestamp (or a *view.Timestamp, "—" for nil) as
// utcTime does.
func viewTime(t any) template.HTML {
	switch t := t.(type) {
	case view.Timestamp:
		return utcTime(time.Time(t))
	case *view.Timestamp:
		if t != nil {
			return utcTime(time.Time(*t))
		}
	}
	return "—"
}

func init() {
	funcs["viewTime"] = viewTime
	funcs["eventID"] = id.FormatEvent // a stored event's evt_ id, for links
	funcs["asText"] = asText
}

// asText is a breadcrumb's data value as the page shows it: a string as
// it is, anything else as JSON (as the API answers it).
func asText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
