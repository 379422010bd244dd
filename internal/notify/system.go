package notify

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

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
	return s.queueSystem(ctx, c, store.EventInvitation, m.InvitationID, m.To, msg)
}

// QueueAssignment queues the email telling a member a group was assigned
// to them, in c's transaction (tickets.Mailer), cancelling the group's
// earlier assignment emails not yet sent. Without SMTP it queues nothing.
func (s *Service) QueueAssignment(ctx context.Context, c *store.Conn, m tickets.AssignmentEmail) error {
	if s.opts.Mail == nil {
		return nil
	}
	url := m.GroupURL
	if url == "" {
		url = s.opts.AppURL + "/groups/" + m.GroupID
	}
	msg := email.RenderAssignment(email.Assignment{AssignedBy: m.AssignedBy, Project: m.Project, Title: m.Title, GroupURL: url})
	// An assignment not yet told is replaced by this one: a group assigned
	// to Mary, Alice and Mary again before the mail went out tells Mary
	// once, not twice.
	if _, err := c.CancelSystemEmails(ctx, store.EventAssignment, m.GroupID, s.now()); err != nil {
		return err
	}
	return s.queueSystem(ctx, c, store.EventAssignment, m.GroupID, m.To, msg)
}

// QueueVerification queues an account's verification email in c's
// transaction (auth.Mailer); without SMTP it queues nothing.
func (s *Service) QueueVerification(ctx context.Context, c *store.Conn, userID, to, name, verifyURL string) error {
	if s.opts.Mail == nil {
		return nil
	}
	msg := email.RenderVerification(email.Verification{Name: name, VerifyURL: verifyURL})
	return s.queueSystem(ctx, c, store.EventVerification, userID, to, msg)
}

// queueSystem queues msg to the address to as a system email of event about
// subject, in c's transaction.
func (s *Service) queueSystem(ctx context.Context, c *store.Conn, event, subject, to string, msg mail.Message) error {
	body, err := marshal(event, emailBody{To: to, Subject: msg.Subject, Text: msg.Text, HTML: msg.HTML, Headers: msg.Headers})
	if err != nil {
		return err
	}
	now := s.now()
	d := store.Delivery{ID: id.New(id.Delivery), Event: event, SubjectID: subject, Format: store.FormatEmail, Body: body,
		Status: store.DeliveryPending, Series: 1, NextAttemptAt: &now, CreatedAt: now, UpdatedAt: now}
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
		live = s.assignmentLive
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

// assignmentLive reports whether an assignment email is still wanted: its
// group is assigned to a member at the address it goes to.
func (s *Service) assignmentLive(ctx context.Context, d store.Delivery) (bool, error) {
	var b emailBody
	if err := json.Unmarshal(d.Body, &b); err != nil {
		return false, nil
	}
	g, err := s.db.Read().GroupByID(ctx, d.SubjectID)
	if errors.Is(err, store.ErrNotFound) || err == nil && g.AssigneeID == "" {
		return false, nil
	} else if err != nil {
		return false, err
	}
	m, err := s.db.Read().MemberByID(ctx, g.AssigneeID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return strings.EqualFold(m.Email, b.To), nil
}

// SystemEmailStatus returns the status of the email about each of
// subjectIDs (an invitation's by its id: pending, delivered, failed or
// cancelled); a subject without one is absent.
func (s *Service) SystemEmailStatus(ctx context.Context, subjectIDs []string) (map[string]string, error) {
	return s.db.Read().SystemEmailStatus(ctx, subjectIDs)
}
