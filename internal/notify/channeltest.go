package notify

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify/delivery"
	"github.com/errata-dev/errata/internal/notify/notice"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// TestResult is the outcome of a channel test (CONTRACT 5).
type TestResult struct {
	ID         string
	Delivered  bool
	HTTPStatus int
	Error      string
	Duration   time.Duration
}

// TestChannel sends one test delivery to a channel and waits for its single
// attempt: not retried, recorded in the delivery log, and counted towards
// the channel's health like any delivery. A channel can be tested once a
// minute. A channel whose recipient has not confirmed, or unsubscribed, is
// not sent a test either (409).
func (s *Service) TestChannel(ctx context.Context, channelID string) (TestResult, error) {
	r := s.db.Read()
	ch, err := r.ChannelByID(ctx, channelID)
	if err != nil {
		return TestResult{}, err
	}
	p, o, err := checkSendable(ctx, r, ch, s.opts.Mail != nil)
	if err != nil {
		return TestResult{}, err
	}
	now := s.now()
	last, err := s.db.Write().ClaimChannelTest(ctx, ch.ID, now, TestInterval)
	if errors.Is(err, store.ErrConflict) {
		wait := last.Add(TestInterval).Sub(now)
		return TestResult{}, problem.Newf("channel-test-rate-limited", "this channel was tested at %s; test it again in %d seconds",
			last.Format(time.RFC3339), int(math.Ceil(wait.Seconds()))).RetryAfter(wait)
	}
	if err != nil {
		return TestResult{}, err
	}
	out := &outgoing{event: store.EventTest, subjectID: ch.ID,
		errata: func(deliveryID string) any {
			return TestBody{Type: store.EventTest, DeliveryID: deliveryID, OrganizationID: o.ID, Project: ProjectRef{p.ID, p.Name}, Channel: ChannelRef{ch.ID, ch.Name}}
		},
		notification: func() (notice.Notification, error) {
			return notice.Notification{Project: notice.Ref{ID: p.ID, Name: p.Name},
				Test: &notice.Test{Channel: notice.Ref{ID: ch.ID, Name: ch.Name}, URL: ChannelURL(s.opts.AppURL, ch.ID)}}, nil
		}}
	// The test is sent in the channel's format, like its tickets.
	d, err := s.delivery(ch, out, id.TestDelivery)
	if err != nil {
		return TestResult{}, err
	}
	d.Series, d.Attempts, d.CreatedAt = 1, delivery.MaxAttempts-1, now // the last attempt: a test is never retried
	a := s.engine.Judge(d, now, s.send(ctx, ch, d))
	d.Attempts, d.UpdatedAt, d.Status = 1, s.now(), store.DeliveryFailed
	if a.Outcome == store.OutcomeDelivered {
		d.Status = store.DeliveryDelivered
	}
	if err := s.db.Tx(ctx, func(c *store.Conn) error { return c.InsertFinishedDelivery(ctx, d, a) }); err != nil {
		return TestResult{}, err
	}
	s.engine.Observed(d.Event, a.Outcome, a.Duration)
	return TestResult{ID: d.ID, Delivered: d.Status == store.DeliveryDelivered, HTTPStatus: a.HTTPStatus, Error: a.Error, Duration: a.Duration}, nil
}

// checkSends refuses a test of a channel that its recipient has not
// confirmed (CONTRACT 8) or has unsubscribed from: a test is an email too.
// A disabled channel may be tested: its owner is trying it out. Without
// SMTP (mail false) a pending channel's answer says its confirmation
// cannot be sent, rather than pointing at an email that never comes.
// checkSendable refuses a channel its organization's plan does not
// include (403), then one that sends nothing to its address (checkSends):
// a test or a redelivery to it would send nothing. It returns the
// channel's project and organization.
func checkSendable(ctx context.Context, c *store.Conn, ch store.Channel, mail bool) (store.Project, store.Org, error) {
	p, err := c.ProjectByID(ctx, ch.ProjectID)
	if err != nil {
		return p, store.Org{}, err
	}
	o, err := c.OrgByID(ctx, p.OrgID)
	if err != nil {
		return p, o, err
	}
	if !AllowedByPlan(o.Plan, ch.Type) {
		return p, o, problem.Newf("channel-type-not-allowed", "the %s plan does not include %s channels", o.Plan, ch.Type)
	}
	return p, o, checkSends(ch, mail)
}

func checkSends(ch store.Channel, mail bool) error {
	switch {
	case ch.Confirmation == store.ConfirmationPending:
		again := " (an admin can send that email again)"
		if !mail {
			again = "; this server cannot send that email (ERRATA_SMTP_URL is empty)"
		}
		return problem.Newf("channel-pending-confirmation", "%s has not confirmed that it wants this channel's emails: nothing is sent to it, "+
			"a test neither, until the link of the confirmation email is opened%s", ch.Email, again)
	case ch.UnsubscribedAt != nil:
		return problem.Newf("channel-unsubscribed", "%s unsubscribed from this channel on %s: nothing is sent to it until an admin enables "+
			"the channel again, which asks the address to confirm again unless it is a member's", ch.Email, ch.UnsubscribedAt.UTC().Format(time.RFC3339))
	}
	return nil
}
