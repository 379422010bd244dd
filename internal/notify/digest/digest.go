// Package digest is a project's digests: its schedule (its notification
// settings), the digest of a period (the tickets it brought and its INFO
// summaries), queued to the project's channels through notify, on demand or
// by the scheduler, a service of the scheduler role.
package digest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/errata-dev/errata/internal/notify"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify/notice"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/summary"
	"github.com/errata-dev/errata/internal/view"
)

// Digest limits (spec 8).
const (
	DigestTickets    = 100
	DigestSummaryIDs = 300
)

// SummariesURL is the dashboard's page of a project's INFO summaries in
// [start, end) (CONTRACT 6). The times are written as they are
// (2026-11-22T08:00:00.000Z): a query may hold ':' unescaped (RFC 3986), and
// the contract's and webhooks.md's form has them so.
func SummariesURL(appURL, projectID string, start, end time.Time) string {
	return appURL + "/projects/" + url.PathEscape(projectID) + "/summaries?from=" + start.UTC().Format(view.TimeFormat) +
		"&to=" + end.UTC().Format(view.TimeFormat)
}

// build gathers what [start, end) brought; ok is false when nothing.
func (s *Service) build(ctx context.Context, c *store.Conn, p store.Project, zone string, start, end, now time.Time) (Digest, bool, error) {
	count, list, err := c.PeriodTickets(ctx, p.ID, start, end, DigestTickets)
	if err != nil {
		return Digest{}, false, err
	}
	d := Digest{ID: id.New(id.Digest), Period: Period{view.TS(start), view.TS(end), zone}, TicketCount: count, CreatedAt: view.TS(now)}
	if d.Tickets, err = listItems(ctx, c, s.opts.AppURL, list); err != nil {
		return Digest{}, false, err
	}
	events, windows, busiest, err := c.InfoTotals(ctx, p.ID, start, end)
	if err != nil {
		return Digest{}, false, err
	}
	if windows > 0 {
		sums, err := c.PeriodSummaries(ctx, p.ID, start, end, DigestSummaryIDs)
		if err != nil {
			return Digest{}, false, err
		}
		latest, err := c.InfoSummaryDetail(ctx, sums[0].ID, summary.TopMessages)
		if err != nil {
			return Digest{}, false, err
		}
		info := &DigestInfo{EventCount: events, WindowCount: windows, LatestSummary: view.NewSummary(latest),
			BusiestWindow: Busiest{view.TS(busiest.WindowStart), view.TS(busiest.WindowEnd), busiest.EventCount + busiest.DebugCount},
			SummaryIDs:    make([]string, 0, len(sums)), URL: SummariesURL(s.opts.AppURL, p.ID, start, end)}
		for _, v := range sums {
			info.SummaryIDs = append(info.SummaryIDs, v.ID)
		}
		d.Info = info
	}
	return d, count > 0 || windows > 0, nil
}

// send stores a digest and queues it to every enabled channel the
// plan allows, in c's transaction. Digests are not filtered.
func (s *Service) send(ctx context.Context, c *store.Conn, p store.Project, d Digest, now time.Time) error {
	body, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("digest: encode: %w", err)
	}
	if err := c.InsertDigest(ctx, store.Digest{ID: d.ID, ProjectID: p.ID, PeriodStart: time.Time(d.Period.Start), PeriodEnd: time.Time(d.Period.End),
		Body: body, CreatedAt: now}); err != nil {
		return err
	}
	return s.notify.QueueToProject(ctx, c, p, notify.Broadcast{Event: store.EventDigest, SubjectID: d.ID,
		Errata: func(o store.Org, deliveryID string) any {
			return DigestBody{Type: store.EventDigest, DeliveryID: deliveryID, OrganizationID: o.ID, Project: notify.ProjectRef{ID: p.ID, Name: p.Name}, Digest: d}
		},
		Notification: func() (notice.Notification, error) {
			nd, err := s.noticeDigest(ctx, c, p, d)
			return notice.Notification{Project: notice.Ref{ID: p.ID, Name: p.Name}, Digest: nd}, err
		}}, now)
}

// noticeDigest is a digest as chat messages and emails show it, with the
// project's failing channels (spec section 1).
func (s *Service) noticeDigest(ctx context.Context, c *store.Conn, p store.Project, d Digest) (*notice.Digest, error) {
	failing, err := c.FailingChannels(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	m := &notice.Digest{Start: time.Time(d.Period.Start), End: time.Time(d.Period.End), Timezone: d.Period.Timezone,
		TicketCount: d.TicketCount, URL: s.opts.AppURL + "/projects/" + p.ID}
	for _, t := range d.Tickets {
		m.Tickets = append(m.Tickets, notice.DigestTicket{Severity: t.Severity, Title: t.Title, URL: t.URL, CreatedAt: time.Time(t.CreatedAt)})
	}
	if d.Info != nil {
		m.Info = &notice.DigestInfo{EventCount: d.Info.EventCount, WindowCount: d.Info.WindowCount, BusiestStart: time.Time(d.Info.BusiestWindow.Start),
			BusiestEnd: time.Time(d.Info.BusiestWindow.End), BusiestCount: d.Info.BusiestWindow.TotalCount, URL: d.Info.URL}
	}
	for _, ch := range failing {
		m.FailingChannels = append(m.FailingChannels, notice.FailingChannel{Name: ch.Name, Type: ch.Type, ConsecutiveFailures: ch.ConsecutiveFailures})
	}
	return m, nil
}

// listItems are the digest's tickets as items of the ticket list: with
// their groups' user_count and assignee.
func listItems(ctx context.Context, c *store.Conn, appURL string, list []store.Ticket) ([]view.TicketListItem, error) {
	ids := make([]string, 0, len(list))
	for _, t := range list {
		ids = append(ids, t.GroupID)
	}
	groups, err := c.GroupsByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]store.Group, len(groups))
	var assignees []string
	for _, g := range groups {
		byID[g.ID] = g
		if g.AssigneeID != "" {
			assignees = append(assignees, g.AssigneeID)
		}
	}
	members, err := c.MembersByIDs(ctx, assignees)
	if err != nil {
		return nil, err
	}
	out := make([]view.TicketListItem, 0, len(list))
	for _, t := range list {
		g := byID[t.GroupID]
		it := view.TicketListItem{TicketItem: view.NewTicketItem(appURL, t), UserCount: g.UserCount}
		it.Assignee = view.AssigneeOf(members[g.AssigneeID])
		out = append(out, it)
	}
	return out, nil
}
