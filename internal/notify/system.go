package notify

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/mail"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify/delivery"
	"github.com/errata-dev/errata/internal/notify/email"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// System emails (an invitation's) go through the delivery engine like a
// channel's: queued in the transaction that makes their subject, attempted
// at least once, retried after an SMTP 4xx. They have no channel (their
// body names the recipient) and no project; they count towards no channel's
// health and are not in any delivery log. Their status is shown with their
// subject (SystemEmailStatus), and their body, which may carry a secret
// such as an invitation's token, is emptied once they end.

// QueueInvitation queues the email of an invitation in c's transaction
// (org.Mailer). Without SMTP (Options.Mail nil) it queues nothing, as
// before: the invitation's link is then only in the answer that created it.
func (s *Service) QueueInvitation(ctx context.Context, c *store.Conn, m org.InvitationEmail) error {
	if s.opts.Mail == nil {
		return nil
	}
	msg := email.RenderInvitation(email.Invitation{Inviter: m.Inviter, InviterEmail: m.InviterEmail, Org: m.Org, Role: m.Role,
		AcceptURL: m.AcceptURL, ExpiresAt: m.ExpiresAt})
	return s.queueSystem(ctx, c, store.EventInvitation, m.InvitationID, m.To, msg, nil, s.now())
}

// bulkGather is how long a bulk change's assignment email waits after its
// last transaction added groups to it before it is sent: a bulk of 10,000
// groups commits 100 transactions over several seconds, and they make one
// email.
const bulkGather = 10 * time.Second

// QueueAssignment queues the email telling a member a group, or several (a
// bulk change's), were assigned to them, in c's transaction
// (tickets.Mailer), cancelling the groups' earlier assignment emails not
// yet sent. Without SMTP it queues nothing. The email about one group has
// the group for subject. A bulk's has the bulk for subject and its groups in
// its body: each of the bulk's transactions adds its groups to it while it
// waits (bulkGather), so that the bulk makes one email; a later change of
// one of its groups cancels none of the others' (attemptAssignment).
func (s *Service) QueueAssignment(ctx context.Context, c *store.Conn, m tickets.AssignmentEmail) error {
	if s.opts.Mail == nil || len(m.Groups) == 0 {
		return nil
	}
	now := s.now()
	a := email.Assignment{AssignedBy: m.AssignedBy, Project: m.Project,
		ListURL: s.opts.AppURL + "/projects/" + m.ProjectID + "/groups?query=" + url.QueryEscape("assigned:me")}
	ids := make([]string, 0, len(m.Groups))
	for _, g := range m.Groups {
		ids = append(ids, g.ID)
		// An assignment not yet told is replaced by this one: a group
		// assigned to Mary, Alice and Mary again before the mail went
		// out tells Mary once, not twice.
		if _, err := c.CancelSystemEmails(ctx, store.EventAssignment, g.ID, now); err != nil {
			return err
		}
	}
	if m.Bulk == "" {
		g := m.Groups[0]
		a.Groups = []email.AssignedGroup{{Title: g.Title, URL: s.groupURL(g.ID)}}
		return s.queueSystem(ctx, c, store.EventAssignment, g.ID, m.To, email.RenderAssignment(a), nil, now)
	}
	// The bulk's email keeps its groups' ids only: it is rendered when it
	// is sent, from the groups as they are then, so that the body each of
	// the bulk's transactions rewrites stays small.
	d, err := c.PendingSystemEmail(ctx, store.EventAssignment, m.Bulk, now)
	if err == nil {
		var b emailBody
		if json.Unmarshal(d.Body, &b) == nil && b.Assignment != nil && b.To == m.To {
			body, err := marshal(d.Event, emailBody{To: m.To, Assignment: &a, Parts: append(b.Parts, assignedPart{now, ids})})
			if err != nil {
				return err
			}
			if ok, err := c.RewritePendingEmail(ctx, d.ID, body, now.Add(bulkGather), now); ok || err != nil {
				return err
			}
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return s.queueSystem(ctx, c, store.EventAssignment, m.Bulk, m.To, mail.Message{},
		&emailBody{Assignment: &a, Parts: []assignedPart{{now, ids}}}, now.Add(bulkGather))
}

// QueueVerification queues an account's verification email in c's
// transaction (auth.Mailer); without SMTP it queues nothing.
func (s *Service) QueueVerification(ctx context.Context, c *store.Conn, userID, to, name, verifyURL string) error {
	if s.opts.Mail == nil {
		return nil
	}
	msg := email.RenderVerification(email.Verification{Name: name, VerifyURL: verifyURL})
	return s.queueSystem(ctx, c, store.EventVerification, userID, to, msg, nil, s.now())
}

// queueSystem queues msg to the address to as a system email of event about
// subject, due at due, in c's transaction; extra, when set, carries what the
// email is checked and rendered from again when it is sent (an assignment
// email's several groups).
func (s *Service) queueSystem(ctx context.Context, c *store.Conn, event, subject, to string, msg mail.Message, extra *emailBody, due time.Time) error {
	b := emailBody{To: to, Subject: msg.Subject, Text: msg.Text, HTML: msg.HTML, Headers: msg.Headers}
	if extra != nil {
		b.Assignment, b.Parts = extra.Assignment, extra.Parts
	}
	body, err := marshal(event, b)
	if err != nil {
		return err
	}
	now := s.now()
	d := store.Delivery{ID: id.New(id.Delivery), Event: event, SubjectID: subject, Format: store.FormatEmail, Body: body,
		Status: store.DeliveryPending, Series: 1, NextAttemptAt: &due, CreatedAt: now, UpdatedAt: now}
	return c.InsertDelivery(ctx, d)
}

// MailConfigured reports whether email can be sent (ERRATA_SMTP_URL).
func (s *Service) MailConfigured() bool { return s.opts.Mail != nil }

// attemptSystem attempts a system email. An invitation's email is
// cancelled once the invitation is no longer pending (accepted, revoked,
// expired or gone), and a channel's confirmation once the channel no longer
// waits for its link (confirmed, its address changed, another link sent,
// unsubscribed or deleted): its link would not work. An assignment's is
// cancelled once the group is no longer assigned to its recipient
// (unassigned, assigned to another, the member removed, the group gone):
// one retried after an SMTP refusal would otherwise tell a person, perhaps
// no longer a member, of an assignment that no longer holds.
func (s *Service) attemptSystem(ctx context.Context, d store.Delivery) delivery.Result {
	var live func(context.Context, store.Delivery) (bool, error)
	switch d.Event {
	case store.EventConfirmation:
		live = s.confirmationLive
	case store.EventAssignment:
		return s.attemptAssignment(ctx, d)
	}
	if live != nil {
		ok, err := live(ctx, d)
		if err != nil {
			return delivery.Failed(delivery.Retry, "internal", "reading the email's subject failed")
		}
		if !ok {
			return delivery.Result{Outcome: delivery.Cancel}
		}
	}
	if d.Event == store.EventInvitation {
		inv, err := s.db.Read().InvitationByID(ctx, d.SubjectID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return delivery.Result{Outcome: delivery.Cancel}
		case err != nil:
			return delivery.Failed(delivery.Retry, "internal", "reading the invitation failed")
		case inv.StatusAt(s.now()) != store.InvitationPending:
			return delivery.Result{Outcome: delivery.Cancel}
		}
	}
	return s.sendEmail(ctx, d.Body, "")
}

// attemptAssignment attempts an assignment email. The email about one
// group is sent while the group is assigned to its recipient. A bulk's
// email is rendered now, with its groups that are still the recipient's
// and were not assigned again since they were added to it (a later
// assignment has its own email, and the one-group emails it replaced are
// cancelled when it is queued); with none left it is cancelled.
func (s *Service) attemptAssignment(ctx context.Context, d store.Delivery) delivery.Result {
	var b emailBody
	if err := json.Unmarshal(d.Body, &b); err != nil {
		return delivery.Result{Outcome: delivery.Cancel}
	}
	if b.Assignment == nil || len(b.Parts) == 0 {
		_, ok, err := s.assignedTo(ctx, d.SubjectID, b.To, nil)
		if err != nil {
			return delivery.Failed(delivery.Retry, "internal", "reading the email's subject failed")
		}
		if !ok {
			return delivery.Result{Outcome: delivery.Cancel}
		}
		return s.sendEmail(ctx, d.Body, "")
	}
	a := *b.Assignment
	groups, err := s.stillAssigned(ctx, b)
	if err != nil {
		return delivery.Failed(delivery.Retry, "internal", "reading the email's groups failed")
	}
	if len(groups) == 0 {
		return delivery.Result{Outcome: delivery.Cancel}
	}
	a.Groups = groups
	msg := email.RenderAssignment(a)
	body, err := marshal(d.Event, emailBody{To: b.To, Subject: msg.Subject, Text: msg.Text, HTML: msg.HTML, Headers: msg.Headers})
	if err != nil {
		return delivery.Failed(delivery.GiveUp, "internal", err.Error())
	}
	return s.sendEmail(ctx, body, "")
}

// stillAssigned returns the groups of a bulk's assignment email b that
// are still assigned to its recipient (assignedTo) and were not assigned
// again after their part of it was added, with their titles as they are
// now.
func (s *Service) stillAssigned(ctx context.Context, b emailBody) ([]email.AssignedGroup, error) {
	recipient := map[string]bool{} // member id: is it the recipient
	var out []email.AssignedGroup
	for _, part := range b.Parts {
		for _, gid := range part.Groups {
			g, ok, err := s.assignedTo(ctx, gid, b.To, recipient)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if last, err := s.db.Read().LastActivityAt(ctx, gid, store.ActivityAssigned); err != nil {
				return nil, err
			} else if last.After(part.At) {
				continue
			}
			out = append(out, email.AssignedGroup{Title: g.Title, URL: s.groupURL(gid)})
		}
	}
	return out, nil
}

// assignedTo returns group groupID and whether it is assigned to a member
// at address to (a group merged into another is no longer anyone's: its
// events and ticket went to the target). recipient, when not nil,
// remembers each member's answer across calls.
func (s *Service) assignedTo(ctx context.Context, groupID, to string, recipient map[string]bool) (store.Group, bool, error) {
	r := s.db.Read()
	g, err := r.GroupByID(ctx, groupID)
	if errors.Is(err, store.ErrNotFound) || err == nil && (g.AssigneeID == "" || g.MergedInto != "") {
		return g, false, nil
	} else if err != nil {
		return g, false, err
	}
	if is, seen := recipient[g.AssigneeID]; seen {
		return g, is, nil
	}
	m, err := r.MemberByID(ctx, g.AssigneeID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return g, false, err
	}
	is := err == nil && strings.EqualFold(m.Email, to)
	if recipient != nil {
		recipient[g.AssigneeID] = is
	}
	return g, is, nil
}

// groupURL is the dashboard's page of group id.
func (s *Service) groupURL(id string) string { return s.opts.AppURL + "/groups/" + id }

// SystemEmailStatus returns the status of the email about each of
// subjectIDs (an invitation's by its id: pending, delivered, failed or
// cancelled); a subject without one is absent.
func (s *Service) SystemEmailStatus(ctx context.Context, subjectIDs []string) (map[string]string, error) {
	return s.db.Read().SystemEmailStatus(ctx, subjectIDs)
}
