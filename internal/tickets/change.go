package tickets

import (
	"context"
	"errors"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// AssignmentEmail is the email telling a member a group, or several (a
// bulk change's, one email for the whole bulk), were assigned to them.
type AssignmentEmail struct {
	// Groups are the groups assigned, at least one, in the order assigned.
	Groups []AssignedGroup
	// Bulk names the bulk change that assigned them ("" for one group's
	// change): its transactions add their groups to one email.
	Bulk       string
	ProjectID  string
	Project    string
	To         string
	Assignee   string
	AssignedBy string
}

// AssignedGroup is a group an assignment email names.
type AssignedGroup struct {
	ID, Title string
}

// Mailer queues the email of an assignment in the transaction that makes it
// (notify.Service: the durable delivery path; nothing when SMTP is not
// set).
type Mailer interface {
	QueueAssignment(ctx context.Context, c *store.Conn, m AssignmentEmail) error
}

// GroupChange is what a person changes of a group: any of its status (with
// an ignore condition or the release it is resolved in) and its assignee.
type GroupChange struct {
	// Status is unresolved, resolved or ignored; "" leaves it.
	Status string
	// Ignore is the condition of Status ignored (nil: forever).
	Ignore *IgnoreRule
	// ResolvedIn is the release of Status resolved: ResolveNext or a
	// release; "" resolves outright.
	ResolvedIn string
	// Assign says AssigneeID is to be set ("" unassigns).
	Assign     bool
	AssigneeID string
	// newest is the project's newest release when a bulk change read it
	// once for all its groups (resolved_in next); nil: read it.
	newest *string
	// mailLater, when set (a bulk change), collects the assignments to
	// tell in one email rather than one email a group.
	mailLater *AssignmentEmail
}

// ChangeGroup applies a person's change to a group in one transaction,
// with an activity entry for each thing that changed: concurrent changes
// of one group are serialised by its row lock and each sees the last. An
// assignee must be a member of the group's organization (422 naming
// assignee_id); a new assignee other than the actor gets an email.
func (s *Service) ChangeGroup(ctx context.Context, a Actor, groupID string, ch GroupChange) (store.Group, error) {
	g, _, err := s.changeGroup(ctx, a, groupID, ch)
	return g, err
}

// changeGroup is ChangeGroup; it also reports whether anything changed
// (status, its condition or release, assignee).
func (s *Service) changeGroup(ctx context.Context, a Actor, groupID string, ch GroupChange) (store.Group, bool, error) {
	var out store.Group
	changed := false
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		var err error
		out, changed, err = s.changeGroupIn(ctx, c, a, groupID, ch)
		if errors.Is(err, errGroupMerged) {
			return problem.Newf("conflict", "the group was merged into %s: change that one", out.MergedInto)
		}
		return err
	})
	return out, changed, err
}

// errGroupMerged is changeGroupIn's answer for a group merged into
// another: its events, counts and ticket went to the target, and lists
// and bulk changes leave it out, so a change would reopen or assign a
// group nobody sees.
var errGroupMerged = errors.New("tickets: the group was merged into another")

// changeGroupIn is changeGroup in c's transaction.
func (s *Service) changeGroupIn(ctx context.Context, c *store.Conn, a Actor, groupID string, ch GroupChange) (store.Group, bool, error) {
	g, err := c.LockGroup(ctx, groupID) // against a batch of the group applied meanwhile
	if err != nil {
		return g, false, err
	}
	if g.MergedInto != "" {
		return g, false, errGroupMerged
	}
	before := g
	g, err = s.change(ctx, c, a, g, ch)
	changed := before.Status != g.Status || before.AssigneeID != g.AssigneeID || before.IgnoreRule != g.IgnoreRule || before.ResolvedIn != g.ResolvedIn
	return g, changed, err
}

// change applies ch to the locked group g in c's transaction.
func (s *Service) change(ctx context.Context, c *store.Conn, a Actor, g store.Group, ch GroupChange) (store.Group, error) {
	now := s.clock()
	if ch.Assign {
		if err := s.assign(ctx, c, a, &g, ch, now); err != nil {
			return g, err
		}
	}
	if ch.Status != "" {
		if err := s.setStatus(ctx, c, a, &g, ch, now); err != nil {
			return g, err
		}
	}
	g.UpdatedAt = now
	return g, c.UpdateGroup(ctx, g)
}

// assign sets g's assignee and records it.
func (s *Service) assign(ctx context.Context, c *store.Conn, a Actor, g *store.Group, ch GroupChange, now time.Time) error {
	memberID := ch.AssigneeID
	if memberID == g.AssigneeID {
		return nil
	}
	if memberID == "" {
		prev := g.AssigneeID
		g.AssigneeID = ""
		return Record(ctx, c, g.ID, store.ActivityUnassigned, a, map[string]any{"member_id": prev}, now)
	}
	p, err := c.ProjectByID(ctx, g.ProjectID)
	if err != nil {
		return err
	}
	var m store.Member
	if id.Valid(id.Member, memberID) {
		m, err = c.MemberToAssign(ctx, memberID)
	} else {
		err = store.ErrNotFound
	}
	if errors.Is(err, store.ErrNotFound) || (err == nil && m.OrgID != p.OrgID) {
		return problem.Newf("validation-failed", "assignee_id: %q is not a member of the project's organization", memberID)
	}
	if err != nil {
		return err
	}
	g.AssigneeID = m.ID
	if err := Record(ctx, c, g.ID, store.ActivityAssigned, a, map[string]any{"member_id": m.ID, "name": m.Name, "email": m.Email}, now); err != nil {
		return err
	}
	if s.mail == nil || m.ID == a.MemberID {
		return nil
	}
	e := AssignmentEmail{ProjectID: p.ID, Project: p.Name, To: m.Email, Assignee: m.Name, AssignedBy: a.Name}
	if later := ch.mailLater; later != nil {
		e.Bulk, e.Groups = later.Bulk, append(later.Groups, AssignedGroup{g.ID, g.Title})
		*later = e
		return nil
	}
	e.Groups = []AssignedGroup{{g.ID, g.Title}}
	return s.mail.QueueAssignment(ctx, c, e)
}

// setStatus resolves, ignores or unresolves g. Resolving or ignoring it
// resolves its open ticket; unresolving it reopens its resolved one. An entry is recorded when the status or its
// condition changes.
func (s *Service) setStatus(ctx context.Context, c *store.Conn, a Actor, g *store.Group, ch GroupChange, now time.Time) error {
	prev, prevRule, prevIn := g.Status, g.IgnoreRule, g.ResolvedIn
	g.Status, g.ResolvedAt, g.ResolvedIn = ch.Status, nil, ""
	setRule(g, nil)
	data := map[string]any{}
	switch ch.Status {
	case store.GroupResolved:
		g.ResolvedAt = &now
		in := ch.ResolvedIn
		if in == ResolveNext {
			newest, err := "", error(nil)
			if ch.newest != nil {
				newest = *ch.newest
			} else if newest, err = newestRelease(ctx, c, g.ProjectID); err != nil {
				return err
			}
			if newest != "" { // with none seen yet, it stays "next": any release is newer
				in = newest
			}
			data["next"] = true
		}
		g.ResolvedIn = in
		if in != "" {
			data["resolved_in"] = in
		}
	case store.GroupIgnored:
		if ch.Ignore != nil {
			r := *ch.Ignore
			if err := r.start(ctx, c, *g, now); err != nil {
				return err
			}
			setRule(g, &r)
			data["ignore"] = r.Public()
		}
	}
	if prevRule != "" && g.IgnoreRule == "" {
		if err := c.ClearIgnoreUsers(ctx, g.ID); err != nil {
			return err
		}
	}
	if ch.Status == store.GroupUnresolved && prev != store.GroupUnresolved && g.TicketID != "" && g.MergedInto == "" {
		// Unresolved (or unignored) by hand: the work on it is not done,
		// so its ticket is open again, as reopening the ticket unresolves
		// the group; otherwise its next events would update no ticket and
		// tell no one, since a group that is not resolved cannot regress.
		t, err := c.TicketByID(ctx, g.TicketID)
		if err == nil && t.Status == store.TicketResolved {
			t.Status, t.ResolvedAt, t.UpdatedAt = store.TicketOpen, nil, now
			if err := c.UpdateTicket(ctx, t); err != nil {
				return err
			}
			if err := Record(ctx, c, g.ID, store.ActivityTicketOpened, a, map[string]any{"ticket_id": t.ID}, now); err != nil {
				return err
			}
		}
	}
	if ch.Status != store.GroupUnresolved && g.TicketID != "" {
		t, err := c.TicketByID(ctx, g.TicketID)
		if err == nil && t.Status == store.TicketOpen {
			t.Status, t.ResolvedAt, t.UpdatedAt = store.TicketResolved, &now, now
			if err := c.UpdateTicket(ctx, t); err != nil {
				return err
			}
			if err := Record(ctx, c, g.ID, store.ActivityTicketResolved, a, map[string]any{"ticket_id": t.ID}, now); err != nil {
				return err
			}
		}
	}
	if prev == g.Status && prevIn == g.ResolvedIn && (prevRule == g.IgnoreRule || ch.Status != store.GroupIgnored) {
		return nil
	}
	return Record(ctx, c, g.ID, ch.Status, a, data, now)
}
