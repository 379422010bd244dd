package notify

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify/email"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
)

// An email channel whose address is not the verified email of a member of
// its organization sends nothing (no ticket, digest or test) until the
// owner of the address opens the link of a confirmation email (CONTRACT 8):
// Errata is nobody's relay to addresses that did not ask for its email.
var (
	// ConfirmationLimits bound the confirmation emails of an organization.
	ConfirmationLimits = []store.Window{{Span: time.Hour, Max: 20}, {Span: 24 * time.Hour, Max: 100}}
	// ConfirmationResend bounds those of one channel.
	ConfirmationResend = store.Window{Span: 10 * time.Minute, Max: 1}
)

// Quotas of confirmation emails: per organization, per channel.
const (
	quotaConfirmations        = "confirmations"
	quotaChannelConfirmations = "channel-confirmations"
)

// ConfirmPath is the dashboard's public page that a confirmation link
// opens: opening it confirms (no account needed).
const ConfirmPath = "/email/confirm"

// ConfirmURL is the confirmation link of token.
func ConfirmURL(appURL, token string) string {
	return appURL + ConfirmPath + "?token=" + url.QueryEscape(token)
}

// confirmation is a channel's confirmation made ready outside any
// transaction: the hash of its link's token, and its email (nil without
// SMTP: the channel then waits, and nothing can be sent to it anyway).
type confirmation struct {
	orgID string
	hash  []byte
	d     *store.Delivery
}

// prepareConfirmation makes the link and the email that ask the recipient
// of ch (an email channel, with its new address) to confirm. It reads the
// store (names, the unsubscribe key), so it runs before the transaction
// that queues it (queueConfirmation).
func (s *Service) prepareConfirmation(ctx context.Context, ch store.Channel) (confirmation, error) {
	r := s.db.Read()
	p, err := r.ProjectByID(ctx, ch.ProjectID)
	if err != nil {
		return confirmation{}, err
	}
	o, err := r.OrgByID(ctx, p.OrgID)
	if err != nil {
		return confirmation{}, err
	}
	m, err := r.MemberByID(ctx, ch.MemberID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return confirmation{}, err
	} else if err != nil {
		m.Name = "A member of " + o.Name
	}
	tok := secret.NewToken()
	out := confirmation{orgID: o.ID, hash: secret.Hash(tok)}
	if s.opts.Mail == nil {
		return out, nil
	}
	links, err := s.links(ctx, ch.ID, ch.Email)
	if err != nil {
		return confirmation{}, err
	}
	msg := email.RenderConfirmation(email.Confirmation{Member: m.Name, MemberEmail: m.Email, Org: o.Name, Project: p.Name, Channel: ch.Name,
		ConfirmURL: ConfirmURL(s.opts.AppURL, tok)}, links)
	body, err := marshal(store.EventConfirmation, emailBody{To: ch.Email, ConfirmHash: out.hash, Subject: msg.Subject, Text: msg.Text, HTML: msg.HTML, Headers: msg.Headers})
	if err != nil {
		return confirmation{}, err
	}
	now := s.now()
	out.d = &store.Delivery{ID: id.New(id.Delivery), Event: store.EventConfirmation, SubjectID: ch.ID, Format: store.FormatEmail, Body: body,
		Status: store.DeliveryPending, Series: 1, NextAttemptAt: &now, CreatedAt: now, UpdatedAt: now}
	return out, nil
}

// queueConfirmation makes channel chID wait for cf's link and queues cf's
// email, in c's transaction, within the channel's ConfirmationResend and
// the organization's ConfirmationLimits: past either it is 429 and the
// transaction must be rolled back.
func (s *Service) queueConfirmation(ctx context.Context, c *store.Conn, chID string, cf confirmation) error {
	now := s.now()
	if err := c.SetChannelPending(ctx, chID, cf.hash, now); err != nil {
		return err
	}
	if cf.d == nil {
		return nil
	}
	ok, wait, err := c.TakeQuota(ctx, quotaChannelConfirmations, chID, now, ConfirmationResend)
	if err != nil {
		return err
	}
	if !ok {
		return problem.Newf("rate-limited", "this channel's confirmation email was sent less than %d minutes ago; retry in %d seconds",
			int(ConfirmationResend.Span.Minutes()), seconds(wait)).RetryAfter(wait)
	}
	if ok, wait, err = c.TakeQuota(ctx, quotaConfirmations, cf.orgID, now, ConfirmationLimits...); err != nil {
		return err
	}
	if !ok {
		return problem.Newf("rate-limited", "an organization can send at most %d confirmation emails an hour and %d a day (one per email channel to an address that is not a member's); retry in %d seconds",
			ConfirmationLimits[0].Max, ConfirmationLimits[1].Max, seconds(wait)).RetryAfter(wait)
	}
	if err := c.InsertDelivery(ctx, *cf.d); err != nil {
		return err
	}
	s.queued.Store(true)
	return nil
}

// seconds is d in whole seconds, rounded up, for a problem's detail.
func seconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// ResendConfirmation sends a pending channel's confirmation email again,
// with a new link (the previous one stops working). A confirmed channel is
// 409 conflict.
func (s *Service) ResendConfirmation(ctx context.Context, channelID string) (store.Channel, error) {
	ch, err := s.db.Read().ChannelByID(ctx, channelID)
	if err != nil {
		return store.Channel{}, err
	}
	if ch.Type != store.ChannelEmail || ch.Confirmation != store.ConfirmationPending {
		return store.Channel{}, problem.New("conflict", "the channel is not waiting for a confirmation: nothing to send")
	}
	cf, err := s.prepareConfirmation(ctx, ch)
	if err != nil {
		return store.Channel{}, err
	}
	if err := s.db.Tx(ctx, func(c *store.Conn) error { return s.queueConfirmation(ctx, c, ch.ID, cf) }); err != nil {
		return store.Channel{}, err
	}
	s.AfterCommit()
	return s.db.Read().ChannelByID(ctx, channelID)
}

// errConfirmInvalid answers a confirmation link that confirms nothing.
var errConfirmInvalid = problem.New("not-found", "this confirmation link is not valid: it was used already, a newer one was sent, or its channel was changed or deleted")

// Confirm confirms the channel waiting for the link that carries token; no
// account is needed, the token is the proof. A link confirms once.
func (s *Service) Confirm(ctx context.Context, token string) (Unsubscribable, error) {
	h := secret.Hash(token)
	ch, err := s.db.Read().ChannelByConfirmToken(ctx, h)
	if errors.Is(err, store.ErrNotFound) {
		return Unsubscribable{}, errConfirmInvalid
	} else if err != nil {
		return Unsubscribable{}, err
	}
	now := s.now()
	if err := s.db.Write().ConfirmChannel(ctx, ch.ID, h, now); errors.Is(err, store.ErrNotFound) {
		return Unsubscribable{}, errConfirmInvalid
	} else if err != nil {
		return Unsubscribable{}, err
	}
	p, err := s.db.Read().ProjectByID(ctx, ch.ProjectID)
	if err != nil {
		return Unsubscribable{}, err
	}
	ch.Confirmation, ch.UpdatedAt = store.ConfirmationConfirmed, now
	s.opts.Logger.Info("email channel confirmed by its recipient", "channel_id", ch.ID)
	return Unsubscribable{Channel: ch, Project: p.Name}, nil
}

// confirmationLive reports whether a confirmation email is still wanted:
// its channel waits for its link, at the address it goes to.
func (s *Service) confirmationLive(ctx context.Context, d store.Delivery) (bool, error) {
	var b emailBody
	if err := json.Unmarshal(d.Body, &b); err != nil || len(b.ConfirmHash) == 0 {
		return false, nil
	}
	ch, err := s.db.Read().ChannelByConfirmToken(ctx, b.ConfirmHash)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return ch.ID == d.SubjectID && ch.Email == b.To && ch.UnsubscribedAt == nil, nil
}
