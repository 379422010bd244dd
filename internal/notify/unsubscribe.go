package notify

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/url"

	"github.com/errata-dev/errata/internal/notify/email"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/text"
)

// unsubscribeKeySetting names the stored key that unsubscribe tokens are
// MACs under: made once, shared by every process through the settings
// table, so a link made by one process works in another and after restarts.
const unsubscribeKeySetting = "unsubscribe_key"

// unsubscribeKey returns the unsubscribe key, reading (or making) it the
// first time. It reads the database: never call it inside a transaction
// (SQLite has one writer connection).
func (s *Service) unsubscribeKey(ctx context.Context) ([]byte, error) {
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	if s.key != nil {
		return s.key, nil
	}
	k, err := s.db.Setting(ctx, unsubscribeKeySetting, func() ([]byte, error) {
		b := make([]byte, 32)
		_, err := rand.Read(b)
		return b, err
	})
	if err != nil {
		return nil, err
	}
	s.key = k
	return k, nil
}

// unsubscribeToken is the token of the unsubscribe link of channel
// channelID for address: an HMAC-SHA256 of both under the installation's
// key. It cannot be guessed, works only for that channel and that address
// (a channel moved to another address makes its old links void), and needs
// nothing stored per email.
func unsubscribeToken(key []byte, channelID, address string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("errata unsubscribe\x00" + channelID + "\x00" + address))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// UnsubscribePath is the dashboard's public page of one-click unsubscribe
// links: GET shows a button, POST (RFC 8058) unsubscribes.
const UnsubscribePath = "/email/unsubscribe"

// links are the links of an email of channel channelID to address: the
// one-click unsubscribe URL and the channel's page.
func (s *Service) links(ctx context.Context, channelID, address string) (email.Links, error) {
	key, err := s.unsubscribeKey(ctx)
	if err != nil {
		return email.Links{}, err
	}
	q := url.Values{"channel": {channelID}, "token": {unsubscribeToken(key, channelID, address)}}
	return email.Links{Unsubscribe: s.opts.AppURL + UnsubscribePath + "?" + q.Encode(), Channel: ChannelURL(s.opts.AppURL, channelID)}, nil
}

// errLinkInvalid answers an unsubscribe link that stops nothing.
var errLinkInvalid = problem.New("not-found", "this unsubscribe link is not valid: its channel was deleted, or sends to another address now")

// Unsubscribable is what an unsubscribe link stops: a channel, and its
// project's name.
type Unsubscribable struct {
	Channel store.Channel
	Project string
}

// CheckUnsubscribe returns what the link of channelID and token would stop,
// without stopping it (the page a GET shows). A token that is not the
// channel's for its current address, or a channel that is gone, is 404.
func (s *Service) CheckUnsubscribe(ctx context.Context, channelID, token string) (Unsubscribable, error) {
	key, err := s.unsubscribeKey(ctx)
	if err != nil {
		return Unsubscribable{}, err
	}
	if text.Fault(channelID) != "" {
		// No channel id holds a control character or bytes that are not
		// UTF-8 (PostgreSQL would refuse to compare them): not a link.
		return Unsubscribable{}, errLinkInvalid
	}
	r := s.db.Read()
	ch, err := r.ChannelByID(ctx, channelID)
	if errors.Is(err, store.ErrNotFound) {
		return Unsubscribable{}, errLinkInvalid
	} else if err != nil {
		return Unsubscribable{}, err
	}
	want := unsubscribeToken(key, ch.ID, ch.Email)
	if ch.Type != store.ChannelEmail || !hmac.Equal([]byte(token), []byte(want)) {
		return Unsubscribable{}, errLinkInvalid
	}
	p, err := r.ProjectByID(ctx, ch.ProjectID)
	if err != nil {
		return Unsubscribable{}, err
	}
	return Unsubscribable{Channel: ch, Project: p.Name}, nil
}

// Unsubscribe stops the channel of a valid unsubscribe link for its
// address, with no account needed: the channel is disabled with the time
// of the unsubscription (shown in the API and the dashboard) and its
// pending deliveries are cancelled. Doing it again changes nothing. Only
// enabling it again restarts it, and for an address that is not a member's
// that asks its recipient to confirm again.
func (s *Service) Unsubscribe(ctx context.Context, channelID, token string) (Unsubscribable, error) {
	u, err := s.CheckUnsubscribe(ctx, channelID, token)
	if err != nil {
		return Unsubscribable{}, err
	}
	now := s.now()
	err = s.db.Tx(ctx, func(c *store.Conn) error {
		if err := c.UnsubscribeChannel(ctx, channelID, now); err != nil {
			return err
		}
		_, err := c.CancelDeliveries(ctx, channelID, now)
		return err
	})
	if err != nil {
		return Unsubscribable{}, err
	}
	if u.Channel.UnsubscribedAt == nil {
		u.Channel.UnsubscribedAt = &now
		s.opts.Logger.Info("channel unsubscribed by its recipient", "channel_id", channelID)
	}
	u.Channel.Enabled = false
	return u, nil
}
