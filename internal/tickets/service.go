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
	db  *store.DB
	now func() time.Time
}

// NewService returns a Service.
func NewService(db *store.DB, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{db: db, now: now}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// SetTicketStatus resolves or reopens a ticket.
func (s *Service) SetTicketStatus(ctx context.Context, ticketID, status string) error {
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
		switch status {
		case store.TicketResolved:
			t.ResolvedAt = &now
			if g.TicketID == t.ID && g.Status == store.GroupUnresolved {
				g.Status, g.ResolvedAt, g.UpdatedAt = store.GroupResolved, &now, now
			}
		case store.TicketOpen:
			if g.TicketID != "" && g.TicketID != t.ID {
				if other, err := c.TicketByID(ctx, g.TicketID); err == nil && other.Status == store.TicketOpen {
					return problem.Newf("conflict", "the group already has an open ticket, %s", other.ID)
				}
			}
			t.ResolvedAt = nil
			g.Status, g.ResolvedAt, g.TicketID, g.UpdatedAt = store.GroupUnresolved, nil, t.ID, now
		}
		if err := c.UpdateTicket(ctx, t); err != nil {
			return err
		}
		return c.UpdateGroup(ctx, g)
	})
}

// DeleteTicket deletes a ticket; its group opens no new one until it
// regresses.
func (s *Service) DeleteTicket(ctx context.Context, ticketID string) error {
	return s.db.Tx(ctx, func(c *store.Conn) error { return c.DeleteTicket(ctx, ticketID) })
}

// SetGroupStatus resolves, ignores or unresolves a group. Resolving or
// ignoring it resolves its open ticket.
func (s *Service) SetGroupStatus(ctx context.Context, groupID, status string) (store.Group, error) {
	var out store.Group
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		g, err := c.LockGroup(ctx, groupID) // against a batch of the group applied meanwhile
		if err != nil {
			return err
		}
		now := s.clock()
		g.Status, g.UpdatedAt, g.ResolvedAt = status, now, nil
		if status == store.GroupResolved {
			g.ResolvedAt = &now
		}
		if status != store.GroupUnresolved && g.TicketID != "" {
			t, err := c.TicketByID(ctx, g.TicketID)
			if err == nil && t.Status == store.TicketOpen {
				t.Status, t.ResolvedAt, t.UpdatedAt = store.TicketResolved, &now, now
				if err := c.UpdateTicket(ctx, t); err != nil {
					return err
				}
			}
		}
		out = g
		return c.UpdateGroup(ctx, g)
	})
	return out, err
}
