package notify

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/emailaddr"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify/chat"
	"github.com/errata-dev/errata/internal/notify/webhook"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/text"
)

// SecretPrefix starts every signing secret (CONTRACT 5).
const SecretPrefix = "whsec_"

// NewSecret makes a signing secret: whsec_ and 32 random bytes in base64.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// ChannelInput is what creates a channel.
type ChannelInput struct {
	MemberID, Name, Type, URL, Email string
	// Format is a webhook channel's (chat.Formats); "" is errata.
	Format string
	// Filters choose the tickets sent at once; nil takes the defaults.
	Filters *FiltersPatch
}

// ChannelPatch changes a channel; nil fields stay.
type ChannelPatch struct {
	Name, URL, Email, Format *string
	Enabled                  *bool
	Filters                  *FiltersPatch
}

// CreateChannel checks and adds a channel, in CONTRACT 6's order: fields
// (422), the plan (403), then the webhook URL (422 invalid-webhook-url,
// the only check that looks up DNS). A webhook channel's secret is in the
// result, to be shown once. An email channel to an address that is no
// member's is created pending, with its confirmation email (429 past the
// confirmation limits).
func (s *Service) CreateChannel(ctx context.Context, projectID string, in ChannelInput) (store.Channel, error) {
	r := s.db.Read()
	p, err := r.ProjectByID(ctx, projectID)
	if err != nil {
		return store.Channel{}, err
	}
	if err := checkText(in.MemberID, in.Name, in.URL, in.Email, in.Format); err != nil {
		return store.Channel{}, err
	}
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" || len([]rune(in.Name)) > 100 {
		return store.Channel{}, problem.New("validation-failed", "name: must be 1 to 100 characters")
	}
	m, err := r.MemberByID(ctx, in.MemberID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && m.OrgID != p.OrgID) {
		return store.Channel{}, problem.Newf("validation-failed", "member_id: %q is not a member of this project's organization", in.MemberID)
	} else if err != nil {
		return store.Channel{}, err
	}
	if err := in.checkTarget(m); err != nil {
		return store.Channel{}, err
	}
	format, err := checkFormat(in.Type, in.Format)
	if err != nil {
		return store.Channel{}, err
	}
	filters, err := checkFilters(in.Filters.apply(store.Filters{}))
	if err != nil {
		return store.Channel{}, err
	}
	o, limits, err := s.planAllows(ctx, r, p, in.Type)
	if err != nil {
		return store.Channel{}, err
	}
	if in.Type == store.ChannelWebhook {
		if err := s.checkURL(ctx, in.URL); err != nil {
			return store.Channel{}, err
		}
	}
	now := s.now()
	ch := store.Channel{ID: id.New(id.Channel), ProjectID: projectID, MemberID: in.MemberID, Name: in.Name, Type: in.Type,
		URL: in.URL, Email: in.Email, Format: format, Filters: filters, Enabled: true, Health: store.HealthOK, CreatedAt: now, UpdatedAt: now}
	if in.Type == store.ChannelWebhook {
		ch.Secret = NewSecret()
	}
	cf, err := s.confirmationFor(ctx, &ch, p.OrgID)
	if err != nil {
		return store.Channel{}, err
	}
	// Counted again under the project's lock: concurrent creations must
	// not all pass the count above and exceed the plan together.
	err = s.db.Tx(ctx, func(c *store.Conn) error {
		if err := c.LockProject(ctx, projectID); err != nil {
			return err
		}
		n, err := c.CountChannels(ctx, projectID)
		if err != nil {
			return err
		}
		if n >= limits.ChannelsPerProject {
			return problem.Newf("plan-limit-reached", "the %s plan allows %d channels per project", o.Plan, limits.ChannelsPerProject)
		}
		if err := c.CreateChannel(ctx, ch); err != nil {
			return err
		}
		if err := s.recordChannel(ctx, c, p, "channel.created", ch, nil); err != nil || cf == nil {
			return err
		}
		return s.queueConfirmation(ctx, c, ch.ID, *cf)
	})
	if err != nil {
		return store.Channel{}, err
	}
	s.AfterCommit()
	return ch, nil
}

// planAllows checks that the plan of p's organization includes channels of
// type typ and has room for one more in p; it returns the organization and
// its limits (CreateChannel counts again under the project's lock).
func (s *Service) planAllows(ctx context.Context, r *store.Conn, p store.Project, typ string) (store.Org, org.Limits, error) {
	o, err := r.OrgByID(ctx, p.OrgID)
	if err != nil {
		return store.Org{}, org.Limits{}, err
	}
	limits := org.LimitsOf(o.Plan)
	if !allowed(limits, typ) {
		return o, limits, problem.Newf("channel-type-not-allowed", "the %s plan does not include %s channels", o.Plan, typ)
	}
	n, err := r.CountChannels(ctx, p.ID)
	if err != nil {
		return o, limits, err
	}
	if n >= limits.ChannelsPerProject {
		return o, limits, problem.Newf("plan-limit-reached", "the %s plan allows %d channels per project", o.Plan, limits.ChannelsPerProject)
	}
	return o, limits, nil
}

// checkTarget checks the channel's type and its target for it: a webhook's
// URL (its rules are checked last, they look up DNS), an email channel's
// address (m's by default), normalised.
func (in *ChannelInput) checkTarget(m store.Member) error {
	switch in.Type {
	case store.ChannelWebhook:
		if in.URL == "" {
			return problem.New("validation-failed", "url: required for a webhook channel")
		}
		in.Email = ""
	case store.ChannelEmail:
		if in.Email == "" {
			in.Email = m.Email
		}
		var err error
		if in.Email, err = emailaddr.Normalize(in.Email); err != nil {
			return err
		}
		in.URL = ""
	default:
		return problem.Newf("validation-failed", "type: want email or webhook, got %q", in.Type)
	}
	return nil
}

// confirmationFor decides whether the email channel ch, with its address
// as it is about to be saved, must wait for a confirmation: not for the
// verified email of a member of orgID (ch is confirmed), else it is made
// pending and the confirmation to queue is returned. Webhook channels need
// none.
func (s *Service) confirmationFor(ctx context.Context, ch *store.Channel, orgID string) (*confirmation, error) {
	ch.Confirmation = store.ConfirmationConfirmed
	if ch.Type != store.ChannelEmail {
		return nil, nil
	}
	member, err := org.VerifiedMemberEmail(ctx, s.db.Read(), orgID, ch.Email)
	if err != nil || member {
		return nil, err
	}
	ch.Confirmation = store.ConfirmationPending
	cf, err := s.prepareConfirmation(ctx, *ch)
	if err != nil {
		return nil, err
	}
	return &cf, nil
}

// UpdateChannel applies a patch. Disabling a channel cancels its pending
// deliveries. A new email address cancels them too and, unless it is a
// member's, makes the channel wait for a new confirmation; so does enabling
// a channel its recipient unsubscribed from (CONTRACT 8).
func (s *Service) UpdateChannel(ctx context.Context, channelID string, in ChannelPatch) (store.Channel, error) {
	ch, err := s.db.Read().ChannelByID(ctx, channelID)
	if err != nil {
		return store.Channel{}, err
	}
	before := ch
	if err := checkText("", deref(in.Name), deref(in.URL), deref(in.Email), deref(in.Format)); err != nil {
		return store.Channel{}, err
	}
	if in.Name != nil {
		name := strings.TrimSpace(*in.Name)
		if name == "" || len([]rune(name)) > 100 {
			return store.Channel{}, problem.New("validation-failed", "name: must be 1 to 100 characters")
		}
		ch.Name = name
	}
	moved, err := s.patchTarget(ctx, &ch, in)
	if err != nil {
		return store.Channel{}, err
	}
	if in.Format != nil {
		// Deliveries already queued keep the format they were queued in.
		if ch.Format, err = checkFormat(ch.Type, *in.Format); err != nil {
			return store.Channel{}, err
		}
	}
	if in.Filters != nil {
		// Filters choose what is queued from now on, not what is queued.
		if ch.Filters, err = checkFilters(in.Filters.apply(ch.Filters)); err != nil {
			return store.Channel{}, err
		}
	}
	disable := in.Enabled != nil && !*in.Enabled && ch.Enabled
	// A new address, or an unsubscribed channel enabled again, is confirmed
	// anew (unless it is a member's).
	reconfirm := moved || (in.Enabled != nil && *in.Enabled && ch.UnsubscribedAt != nil)
	if in.Enabled != nil {
		ch.Enabled = *in.Enabled
	}
	var cf *confirmation
	if reconfirm {
		p, err := s.db.Read().ProjectByID(ctx, ch.ProjectID)
		if err != nil {
			return store.Channel{}, err
		}
		if cf, err = s.confirmationFor(ctx, &ch, p.OrgID); err != nil {
			return store.Channel{}, err
		}
	}
	ch.UpdatedAt = s.now()
	err = s.db.Tx(ctx, func(c *store.Conn) error {
		if err := c.UpdateChannel(ctx, ch); err != nil {
			return err
		}
		if err := s.recordChannel(ctx, c, store.Project{ID: ch.ProjectID}, "channel.updated", ch, channelChanges(before, ch)); err != nil {
			return err
		}
		if disable || moved { // what is queued was for the old address
			if _, err := c.CancelDeliveries(ctx, ch.ID, ch.UpdatedAt); err != nil {
				return err
			}
		}
		switch {
		case cf != nil:
			return s.queueConfirmation(ctx, c, ch.ID, *cf)
		case reconfirm:
			return c.SetChannelConfirmed(ctx, ch.ID, ch.UpdatedAt)
		}
		return nil
	})
	if err != nil {
		return store.Channel{}, err
	}
	s.AfterCommit()
	return ch, nil
}

// patchTarget applies a patch's new address or URL to ch; moved reports a
// new email address.
func (s *Service) patchTarget(ctx context.Context, ch *store.Channel, in ChannelPatch) (moved bool, err error) {
	if in.Email != nil {
		if ch.Type != store.ChannelEmail {
			return false, problem.New("validation-failed", "email: only an email channel has an address")
		}
		addr, err := emailaddr.Normalize(*in.Email)
		if err != nil {
			return false, err
		}
		moved, ch.Email = addr != ch.Email, addr
	}
	if in.URL != nil {
		if ch.Type != store.ChannelWebhook {
			return false, problem.New("validation-failed", "url: only a webhook channel has a URL")
		}
		if *in.URL == "" {
			return false, problem.New("validation-failed", "url: must not be empty")
		}
		if err := s.checkURL(ctx, *in.URL); err != nil {
			return false, err
		}
		ch.URL = *in.URL
	}
	return moved, nil
}

// DeleteChannel deletes a channel; its deliveries go with it.
func (s *Service) DeleteChannel(ctx context.Context, channelID string) error {
	return s.db.Tx(ctx, func(c *store.Conn) error {
		ch, err := c.ChannelByID(ctx, channelID)
		if err != nil {
			return err
		}
		if err := c.DeleteChannel(ctx, channelID); err != nil {
			return err
		}
		return s.recordChannel(ctx, c, store.Project{ID: ch.ProjectID}, "channel.deleted", ch, nil)
	})
}

// RotateSecret gives a webhook channel a new secret; the old one keeps
// signing, as a second v1 entry, for RotationOverlap.
func (s *Service) RotateSecret(ctx context.Context, channelID string) (store.Channel, error) {
	ch, err := s.db.Read().ChannelByID(ctx, channelID)
	if err != nil {
		return store.Channel{}, err
	}
	if ch.Type != store.ChannelWebhook {
		return store.Channel{}, problem.New("conflict", "only a webhook channel has a signing secret")
	}
	now := s.now()
	until := now.Add(RotationOverlap)
	ch.OldSecret, ch.OldSecretUntil, ch.Secret, ch.UpdatedAt = ch.Secret, &until, NewSecret(), now
	return ch, s.db.Tx(ctx, func(c *store.Conn) error {
		if err := c.UpdateChannel(ctx, ch); err != nil {
			return err
		}
		return s.recordChannel(ctx, c, store.Project{ID: ch.ProjectID}, "channel.secret_rotated", ch, nil)
	})
}

// checkText applies the control rule (text.Check) to a channel's strings
// before anything else looks at them: the API's decoder has checked them
// already, the dashboard's forms have not (a NUL in member_id would reach
// PostgreSQL, a C1 control in a URL the webhook).
func checkText(memberID, name, url, email, format string) error {
	for _, f := range [...]struct{ field, v string }{{"member_id", memberID}, {"name", name}, {"url", url}, {"email", email}, {"format", format}} {
		if err := text.Check(f.field, f.v); err != nil {
			return err
		}
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// AllowedByPlan reports whether the organization's plan lets the channel
// receive deliveries (webhooks are kept after a downgrade, not used).
func AllowedByPlan(plan, channelType string) bool { return allowed(org.LimitsOf(plan), channelType) }

func allowed(l org.Limits, channelType string) bool {
	for _, t := range l.ChannelTypes {
		if t == channelType {
			return true
		}
	}
	return false
}

func (s *Service) checkURL(ctx context.Context, raw string) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := webhook.CheckURL(ctx, raw, s.opts.Webhook)
	var rule *webhook.RuleError
	if errors.As(err, &rule) {
		return problem.Newf("invalid-webhook-url", "url: %s", rule.Detail)
	}
	if errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil {
		return problem.New("invalid-webhook-url", "url: the host name could not be resolved within 5 seconds")
	}
	return err
}

// checkFormat checks a channel's format: one of chat.Formats for a webhook
// channel ("" is errata); an email channel has none (errata is accepted,
// as what every channel shows by default).
func checkFormat(channelType, format string) (string, error) {
	if format == "" {
		return chat.Errata, nil
	}
	if !chat.Valid(format) {
		return "", problem.Newf("validation-failed", "format: want one of %s, got %q", strings.Join(chat.Formats(), ", "), format)
	}
	if channelType != store.ChannelWebhook && format != chat.Errata {
		return "", problem.New("validation-failed", "format: only a webhook channel has a format")
	}
	return format, nil
}

// Redeliver starts a new series of attempts of a delivery that has ended,
// under the same identifier. A delivery still pending is 409
// delivery-pending; a test is not redelivered (test the channel again); a
// delivery of a channel that sends nothing is refused (checkRedeliverable).
func (s *Service) Redeliver(ctx context.Context, deliveryID string) error {
	if strings.HasPrefix(deliveryID, id.TestDelivery) {
		return problem.New("conflict", "a test delivery is not redelivered: test the channel again")
	}
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		d, err := c.DeliveryByID(ctx, deliveryID)
		if err != nil {
			return err
		}
		if d.ChannelID != "" {
			if err := s.checkRedeliverable(ctx, c, d.ChannelID); err != nil {
				return err
			}
		}
		return c.Redeliver(ctx, deliveryID, s.now())
	})
	if errors.Is(err, store.ErrConflict) {
		return problem.Newf("delivery-pending", "delivery %s is still being attempted", deliveryID)
	}
	if err != nil {
		return err
	}
	s.Wake()
	return nil
}

// checkRedeliverable refuses a redelivery to a channel that sends nothing
// (disabled, waiting for its address to confirm, unsubscribed, or not in
// its organization's plan): the sender would cancel it before any attempt.
// The channel is locked, so that it is not disabled meanwhile.
func (s *Service) checkRedeliverable(ctx context.Context, c *store.Conn, channelID string) error {
	ch, err := c.LockChannel(ctx, channelID)
	if err != nil {
		return err
	}
	if !ch.Enabled {
		return problem.Newf("conflict", "channel %s is disabled: enable it to redeliver its deliveries", ch.ID)
	}
	_, _, err = checkSendable(ctx, c, ch, s.opts.Mail != nil)
	return err
}

// ShownURL is a webhook URL as a role may see it: whole for admins and
// owners (showAll), else only `scheme://host[:port]/…`. Chat services
// carry their secret in the path or query (CONTRACT 7).
func ShownURL(u string, showAll bool) string {
	if showAll || u == "" {
		return u
	}
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return "…"
	}
	return p.Scheme + "://" + p.Host + "/…"
}
