package notify

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/notify/delivery"
	"github.com/errata-dev/errata/internal/notify/email"
	"github.com/errata-dev/errata/internal/notify/notice"
	"github.com/errata-dev/errata/internal/notify/webhook"
	"github.com/errata-dev/errata/internal/store"
)

// channelInfo is what an attempt needs to know about its channel.
type channelInfo struct {
	ch      store.Channel
	allowed bool // by the organization's plan
	at      time.Time
}

// channelCache keeps channels for a moment, so that a burst of deliveries
// to one channel reads it once. A change (new secret, disabled) takes
// effect within ttl.
type channelCache struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]channelInfo
}

func (cc *channelCache) get(ctx context.Context, db *store.DB, channelID string, now time.Time) (channelInfo, error) {
	cc.mu.Lock()
	ci, ok := cc.m[channelID]
	cc.mu.Unlock()
	if ok && now.Sub(ci.at) < cc.ttl {
		return ci, nil
	}
	r := db.Read()
	ch, err := r.ChannelByID(ctx, channelID)
	if err != nil {
		return channelInfo{}, err
	}
	p, err := r.ProjectByID(ctx, ch.ProjectID)
	if err != nil {
		return channelInfo{}, err
	}
	o, err := r.OrgByID(ctx, p.OrgID)
	if err != nil {
		return channelInfo{}, err
	}
	ci = channelInfo{ch: ch, allowed: AllowedByPlan(o.Plan, ch.Type), at: now}
	cc.mu.Lock()
	if cc.m == nil || len(cc.m) > 10000 {
		cc.m = map[string]channelInfo{}
	}
	cc.m[channelID] = ci
	cc.mu.Unlock()
	return ci, nil
}

// sender is the engine's Send: one attempt at a claimed delivery, reading
// its channel through a cache keeping it for at most keep.
func (s *Service) sender(keep time.Duration) delivery.Send {
	cc := &channelCache{ttl: keep}
	return func(ctx context.Context, d store.Delivery) delivery.Result { return s.attempt(ctx, d, cc) }
}

// attempt makes one attempt at a claimed delivery, or answers that none is
// due: its channel is gone (Drop), or no longer sends (Cancel).
func (s *Service) attempt(ctx context.Context, d store.Delivery, cc *channelCache) delivery.Result {
	if d.ChannelID == "" {
		return s.attemptSystem(ctx, d)
	}
	ci, err := cc.get(ctx, s.db, d.ChannelID, s.now())
	if errors.Is(err, store.ErrNotFound) {
		return delivery.Result{Outcome: delivery.Drop}
	}
	if err != nil {
		// The store is unwell: count it as a failed attempt, retried.
		return delivery.Failed(delivery.Retry, "internal", "reading the channel failed")
	}
	if !ci.ch.Sends() || !ci.allowed { // disabled, pending confirmation or unsubscribed
		return delivery.Result{Outcome: delivery.Cancel}
	}
	return s.send(ctx, ci.ch, d)
}

// send makes the attempt itself, in the delivery's format (the channel's
// when it was queued): the errata body as stored, or the stored
// notification rendered for a chat tool or as an email. The Service-*
// headers sign the bytes actually sent.
func (s *Service) send(ctx context.Context, ch store.Channel, d store.Delivery) delivery.Result {
	if ch.Type == store.ChannelEmail || d.Format == store.FormatEmail {
		return s.sendEmail(ctx, d.Body, ch.ID)
	}
	r, err := rendered(d)
	if err != nil {
		return delivery.Failed(delivery.GiveUp, "internal", "rendering the "+d.Format+" message failed: "+err.Error())
	}
	return s.client.Send(ctx, webhook.Request{URL: ch.URL, Event: d.Event, DeliveryID: d.ID, Body: r.Body, ContentType: r.ContentType,
		Headers: r.Headers, Secrets: ch.Secrets(s.opts.Now()), Now: s.opts.Now})
}

// sendEmail sends an email delivery: of channel channelID, with the links
// (one-click unsubscribe, the channel's page) made now for the address it
// goes to, or a system email ("") as stored. SMTP 4xx answers and network
// errors are retried like a 5xx HTTP answer; SMTP 5xx answers give up
// (CONTRACT 6).
func (s *Service) sendEmail(ctx context.Context, body []byte, channelID string) delivery.Result {
	start := time.Now()
	if s.opts.Mail == nil {
		return delivery.Failed(delivery.GiveUp, "smtp", "email is not configured on this server (ERRATA_SMTP_URL is empty)")
	}
	var b emailBody
	if err := json.Unmarshal(body, &b); err != nil {
		return delivery.Failed(delivery.GiveUp, "internal", "stored email is unreadable")
	}
	var links email.Links
	if channelID != "" {
		var err error
		if links, err = s.links(ctx, channelID, b.To); err != nil {
			return delivery.Failed(delivery.Retry, "internal", "reading the unsubscribe key failed")
		}
	}
	m, err := b.message(links)
	if err != nil {
		return delivery.Failed(delivery.GiveUp, "internal", err.Error())
	}
	err = s.opts.Mail.SendMessage(ctx, b.To, m)
	r := delivery.Result{Outcome: delivery.Delivered, Duration: time.Since(start)}
	if err != nil {
		r.Outcome, r.ErrorClass, r.Error = delivery.GiveUp, "smtp", err.Error()
		if mail.Temporary(err) {
			r.Outcome = delivery.Retry
		}
	}
	return r
}

// message is the email to send: the stored notification rendered now with
// links, or the message rendered when it was queued.
func (b emailBody) message(links email.Links) (mail.Message, error) {
	if len(b.Notification) == 0 {
		return mail.Message{Subject: b.Subject, Text: b.Text, HTML: b.HTML, Headers: b.Headers}, nil
	}
	var n notice.Notification
	if err := json.Unmarshal(b.Notification, &n); err != nil {
		return mail.Message{}, errors.New("the stored notification is unreadable")
	}
	return email.Render(n, links)
}
