package auth

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/emailaddr"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/text"
)

// Limits on what a correct password buys (CONTRACT 8), kept in the
// database so that every api process and restart shares them.
var (
	// SignInLimit bounds an account's successful sign-ins: each costs an
	// argon2id hash and leaves a 30-day session. Sign-up is not counted.
	SignInLimit = store.Window{Span: time.Hour, Max: 30}
)

// MaxSessions is the most sessions a user holds: a new one ends the oldest
// beyond it.
const MaxSessions = 100

// quotaSignIns names the quota of SignInLimit.
const quotaSignIns = "sign-ins"

// SignInInput is what sign-in takes. The client's address and user agent
// come from the request in ctx (audit.From).
type SignInInput struct {
	Email, Password string
	// Code is a TOTP code or a recovery code, needed when the account has
	// two-factor sign-in.
	Code string
	// ClientKey is the caller's rate-limit key (clientip.Resolver.Key: an
	// IPv6 address's network); "" takes the request's address.
	ClientKey string
}

// SignIn checks an email and password and opens a session. Failures answer
// the same for an unknown address and a wrong password, take the same time,
// and are rate limited per address and per client IP. The limiters' tokens
// are reserved before the password is checked and given back when it is
// right, so N concurrent wrong attempts count as N: no burst of parallel
// guesses gets past the limit (CONTRACT 7). A right password then takes a
// use of the account's SignInLimit (429 past it), and the new session ends
// the oldest beyond MaxSessions.
func (s *Service) SignIn(ctx context.Context, in SignInInput) (Signed, error) {
	email, password, clientIP := in.Email, in.Password, in.ClientKey
	if clientIP == "" {
		clientIP = audit.From(ctx).IP
	}
	if err := text.Check("email", email); err != nil { // a NUL would reach the database
		return Signed{}, err
	}
	canonical, legacy, err := s.signInAddress(ctx, email)
	if err != nil {
		return Signed{}, err
	}
	giveBack, done, err := s.reserveFailures(ctx, canonical, legacy, clientIP)
	if err != nil {
		return Signed{}, err
	}
	defer done()
	u, err := s.userByEmail(ctx, canonical, legacy)
	hash := u.PasswordHash
	if errors.Is(err, store.ErrNotFound) || (err == nil && hash == "") {
		// No account, or one that signs in only through OpenID Connect:
		// the same work and the same answer as a wrong password.
		hash = s.dummyHash
	} else if err != nil {
		giveBack()
		return Signed{}, err
	}
	ok, verr := s.hasher.Verify(ctx, hash, password)
	if verr != nil {
		giveBack()
		return Signed{}, verr
	}
	if err != nil || !ok || u.PasswordHash == "" {
		if err == nil {
			s.recordFailure(ctx, u, "password")
		}
		return Signed{}, problem.New("invalid-credentials", "the email address or password is wrong")
	}
	if !u.HasTOTP() {
		giveBack()
	} else if strings.TrimSpace(in.Code) == "" {
		giveBack()
		return Signed{}, problem.New("totp-required", "this account signs in with a second factor: send the authenticator's code, or a recovery code, as code")
	}
	var out Signed
	err = s.db.Tx(ctx, func(c *store.Conn) error {
		if u.HasTOTP() {
			ok, err := s.spendSecondFactor(ctx, c, u, in.Code)
			if err != nil {
				return err
			}
			if !ok {
				return errWrongCode
			}
		}
		ok, wait, err := c.TakeQuota(ctx, quotaSignIns, u.ID, s.clock(), SignInLimit)
		if err != nil {
			return err
		}
		if !ok {
			return problem.Newf("rate-limited", "this account signed in %d times within the last hour, the most allowed; retry in %d seconds",
				SignInLimit.Max, int(math.Ceil(wait.Seconds()))).RetryAfter(wait)
		}
		out, err = s.newSession(ctx, c, u, store.SignInPassword)
		if err != nil {
			return err
		}
		return s.recordSignIn(ctx, c, u, out.Session)
	})
	if errors.Is(err, errWrongCode) {
		// The reserved failure tokens stay spent: wrong codes count in the
		// sign-in limits like wrong passwords.
		s.recordFailure(ctx, u, "code")
		return Signed{}, problem.New("invalid-credentials", "the two-factor code is wrong, or was used already")
	}
	if u.HasTOTP() {
		giveBack()
	}
	return out, err
}

// reserveFailures reserves a failed sign-in in the limits of the address
// and of the client (429 when either is spent); giveBack returns both
// reservations when the sign-in turns out not to be a failure, and done
// (deferred by the caller) settles them as spent otherwise.
//
// A refusal by the address's limit (the account's, when it is one) is
// recorded in its organizations' audit logs (noteThrottled).
func (s *Service) reserveFailures(ctx context.Context, email, legacy, client string) (giveBack, done func(), err error) {
	r, byEmail := s.failuresByEmail.Reserve(ctx, email)
	if !r.Allowed {
		s.noteThrottled(ctx, email, legacy)
		return nil, nil, problem.New("rate-limited", "too many failed sign-ins for this address; wait and retry").RetryAfter(r.RetryAfter)
	}
	r, byIP := s.failuresByIP.Reserve(ctx, client)
	if !r.Allowed {
		byEmail.GiveBack()
		return nil, nil, problem.New("rate-limited", "too many failed sign-ins from this address; wait and retry").RetryAfter(r.RetryAfter)
	}
	return func() { byEmail.GiveBack(); byIP.GiveBack() }, func() { byEmail.Done(); byIP.Done() }, nil
}

// errWrongCode ends a sign-in's transaction when its second factor is wrong.
var errWrongCode = errors.New("auth: wrong second factor")

// recordSignIn writes a successful sign-in to the audit log of each of
// the user's organizations.
func (s *Service) recordSignIn(ctx context.Context, c *store.Conn, u store.User, sess store.Session) error {
	return audit.RecordUser(ctx, c, u.ID, audit.Entry{Action: "user.signed_in", Target: sess.ID, ActorID: u.ID, ActorEmail: u.Email,
		Data: map[string]any{"method": sess.Method}, At: s.clock()})
}

// RecordOIDCFailure records in the audit log a single sign-on the
// provider answered for an account's address but Errata refused (reason:
// oidc_unverified_email, the provider not vouching for the address), as a
// failed password sign-in is; an address of no account records nothing.
func (s *Service) RecordOIDCFailure(ctx context.Context, email, reason string) {
	canonical, err := emailaddr.Normalize(email)
	if err != nil {
		return
	}
	if u, err := s.db.Read().UserByEmail(ctx, canonical); err == nil {
		s.recordFailure(ctx, u, reason)
	}
}

// recordFailure writes a failed sign-in of an existing account (reason
// "password", "code", "oidc_unverified_email" or "rate-limited") to its organizations'
// audit logs. It is best effort: the answer is the same whether it could
// be written or not; it reports whether it was.
func (s *Service) recordFailure(ctx context.Context, u store.User, reason string) bool {
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		return audit.RecordUser(ctx, c, u.ID, audit.Entry{Action: "user.sign_in_failed", Target: u.ID, ActorID: u.ID, ActorEmail: u.Email,
			Data: map[string]any{"reason": reason}, At: s.clock()})
	})
	if err != nil {
		s.log.Warn("recording a failed sign-in", "user_id", u.ID, "err", err)
	}
	return err == nil
}

// signInAddress is the address typed at sign-in in its canonical form
// (emailaddr), and the form accounts made before those rules were stored
// under (trimmed and lower-cased) when it differs. An address the rules
// refuse is 422, unless an account made earlier has it.
func (s *Service) signInAddress(ctx context.Context, typed string) (canonical, legacy string, err error) {
	legacy = strings.ToLower(strings.TrimSpace(typed))
	canonical, err = emailaddr.Normalize(typed)
	if err == nil {
		if legacy == canonical {
			legacy = ""
		}
		return canonical, legacy, nil
	}
	if _, lerr := s.db.Read().UserByEmail(ctx, legacy); lerr == nil {
		return legacy, "", nil
	}
	return "", "", err
}

// userByEmail finds the account of a canonical address, or else of its
// legacy form ("" when there is none).
func (s *Service) userByEmail(ctx context.Context, canonical, legacy string) (store.User, error) {
	u, err := s.db.Read().UserByEmail(ctx, canonical)
	if errors.Is(err, store.ErrNotFound) && legacy != "" {
		u, err = s.db.Read().UserByEmail(ctx, legacy)
	}
	return u, err
}

// newSession opens a session of u, signed in by method, in c's transaction, ending the user's
// oldest sessions beyond MaxSessions.
func (s *Service) newSession(ctx context.Context, c *store.Conn, u store.User, method string) (Signed, error) {
	tok := secret.NewToken()
	now := s.clock()
	client := audit.From(ctx)
	sess := store.Session{ID: id.New(id.Session), UserID: u.ID, TokenHash: secret.Hash(tok), CreatedAt: now, ExpiresAt: now.Add(SessionTTL), LastUsedAt: now,
		IP: client.IP, UserAgent: client.UserAgent, Method: method}
	if err := c.CreateSession(ctx, sess); err != nil {
		return Signed{}, err
	}
	ended, err := c.CapSessions(ctx, u.ID, MaxSessions)
	if err != nil {
		return Signed{}, err
	}
	if len(ended) > 0 {
		s.log.Info("oldest sessions ended: a user holds at most MaxSessions", "user_id", u.ID, "ended", len(ended))
		if err := s.recordEnded(ctx, c, u.ID, ended, "session-limit"); err != nil {
			return Signed{}, err
		}
	}
	return Signed{Token: tok, User: u, Session: sess}, nil
}
