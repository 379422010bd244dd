package tickets

import (
	"context"
	"time"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// Service changes tickets and groups on behalf of people: resolving a
// ticket resolves its group, ignoring or resolving a group resolves its
// open ticket (CONTRACT 4 and 6).
type Service struct {
	db   *store.DB
	now  func() time.Time
	mail Mailer
}

// NewService returns a Service.
func NewService(db *store.DB, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{db: db, now: now}
}

// UseMailer sends assignment emails through m (nil sends none).
func (s *Service) UseMailer(m Mailer) { s.mail = m }

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// SetTicketStatus resolves or reopens a ticket for a, recording it (and
// the change of the group's status it makes) in the group's activity.
func (s *Service) SetTicketStatus(ctx context.Context, a Actor, ticketID, status string) error {
	return s.db.Tx(ctx, func(c *store.Conn) error {
		t, err := c.TicketByID(ctx, ticketID)
		if err != nil {
			return err
		}
		// Lock the group as processing does, then read the ticket again:
		// a batch may have changed both meanwhile.
		g, err := c.LockGroup(ctx, t.GroupID)
		if err != nil {
			return err
		}
		if t, err = c.TicketByID(ctx, ticketID); err != nil || t.Status == status {
			return err
		}
		now := s.clock()
		t.Status, t.UpdatedAt = status, now
		prev := g.Status
		kind := store.ActivityTicketOpened
		switch status {
		case store.TicketResolved:
			t.ResolvedAt = &now
			kind = store.ActivityTicketResolved
			if g.TicketID == t.ID && g.Status == store.GroupUnresolved {
				g.Status, g.ResolvedAt, g.UpdatedAt = store.GroupResolved, &now, now
			}
		case store.TicketOpen:
			// Reopening would make a merged group unresolved, a change
			// its PATCH refuses: its events go to the target now.
			if g.MergedInto != "" {
				return problem.Newf("conflict", "the ticket's group was merged into %s: reopen that group's ticket", g.MergedInto)
			}
			if g.TicketID != "" && g.TicketID != t.ID {
				if other, err := c.TicketByID(ctx, g.TicketID); err == nil && other.Status == store.TicketOpen {
					return problem.Newf("conflict", "the group already has an open ticket, %s", other.ID)
				}
			}
			t.ResolvedAt = nil
			g.Status, g.ResolvedAt, g.TicketID, g.UpdatedAt = store.GroupUnresolved, nil, t.ID, now
			g.ResolvedIn = ""
			setRule(&g, nil)
		}
		if err := c.UpdateTicket(ctx, t); err != nil {
			return err
		}
		if err := Record(ctx, c, g.ID, kind, a, map[string]any{"ticket_id": t.ID}, now); err != nil {
			return err
		}
		if g.Status != prev {
			if err := Record(ctx, c, g.ID, g.Status, a, nil, now); err != nil {
				return err
			}
		}
		return c.UpdateGroup(ctx, g)
	})
}

// DeleteTicket deletes a ticket; its group opens no new one until it
// regresses.
func (s *Service) DeleteTicket(ctx context.Context, ticketID string) error {
	return s.db.Tx(ctx, func(c *store.Conn) error { return c.DeleteTicket(ctx, ticketID) })
}

// SetGroupStatus resolves, ignores (forever) or unresolves a group for a
// (ChangeGroup with only a status).
func (s *Service) SetGroupStatus(ctx context.Context, a Actor, groupID, status string) (store.Group, error) {
	return s.ChangeGroup(ctx, a, groupID, GroupChange{Status: status})
}
