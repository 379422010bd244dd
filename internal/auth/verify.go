package auth

import (
	"context"
	"errors"
	"math"
	"net/url"
	"time"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
)

// Mailer queues an account's verification email in the transaction that
// creates the account or the link, for the delivery engine to send
// (notify.Service).
type Mailer interface {
	QueueVerification(ctx context.Context, c *store.Conn, userID, to, name, verifyURL string) error
	// MailConfigured reports whether email can be sent at all.
	MailConfigured() bool
	// Wake tells the sender that an email was queued, after the commit.
	Wake()
}

// VerifyTTL is how long a verification link works.
const VerifyTTL = 7 * 24 * time.Hour

// VerifyLimit bounds how often an account asks for its link again.
var VerifyLimit = store.Window{Span: time.Hour, Max: 5}

const quotaVerify = "verification-emails"

// verifiedAtStart reports whether an account made now counts as verified
// without a link: when no email can be sent (no ERRATA_SMTP_URL), no
// address can be verified, and none receives any email either.
func (s *Service) verifiedAtStart() bool { return s.mailer == nil || !s.mailer.MailConfigured() }

// queueVerification gives u a new link token and queues its email in c.
func (s *Service) queueVerification(ctx context.Context, c *store.Conn, u store.User) error {
	tok := secret.NewToken()
	if err := c.SetVerifyToken(ctx, u.ID, secret.Hash(tok), s.clock()); err != nil {
		return err
	}
	link := s.appURL + "/verify-email?token=" + url.QueryEscape(tok)
	return s.mailer.QueueVerification(ctx, c, u.ID, u.Email, u.Name, link)
}

// SendVerification sends u's verification link again (the previous one
// stops working), at most VerifyLimit times an hour. A verified address is
// 409.
func (s *Service) SendVerification(ctx context.Context, u store.User) error {
	if u.EmailVerified() {
		return problem.New("conflict", "the email address is verified already")
	}
	if s.verifiedAtStart() {
		return problem.New("conflict", "this server sends no email (no ERRATA_SMTP_URL)")
	}
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		ok, wait, err := c.TakeQuota(ctx, quotaVerify, u.ID, s.clock(), VerifyLimit)
		if err != nil {
			return err
		}
		if !ok {
			return problem.Newf("rate-limited", "at most %d verification emails an hour; retry in %d seconds",
				VerifyLimit.Max, int(math.Ceil(wait.Seconds()))).RetryAfter(wait)
		}
		return s.queueVerification(ctx, c, u)
	})
	if err == nil {
		s.mailer.Wake()
	}
	return err
}

// VerifyEmail verifies the address of the account whose link carries
// token; its pending email channels to that address in its organizations
// are confirmed with it. An unknown, used or expired token is 422.
func (s *Service) VerifyEmail(ctx context.Context, token string) (store.User, error) {
	var u store.User
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		now := s.clock()
		var err error
		if u, err = c.VerifyEmail(ctx, secret.Hash(token), now.Add(-VerifyTTL), now); err != nil {
			return err
		}
		if _, err := c.ConfirmMemberChannels(ctx, u.ID, u.Email, now); err != nil {
			return err
		}
		return s.recordUser(ctx, c, u.ID, "user.email_verified", u.ID, map[string]any{"email": u.Email})
	})
	if errors.Is(err, store.ErrNotFound) {
		return store.User{}, problem.New("validation-failed", "token: the link is unknown, was used already or expired; ask for a new one")
	}
	return u, err
}
