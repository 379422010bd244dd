package auth

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/emailaddr"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/ratelimit"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/text"
)

// SessionTTL is a session's lifetime; every use extends it to this again.
const SessionTTL = 30 * 24 * time.Hour

// touchEvery bounds how often a session's expiry is written: extending it on
// every request would turn every read into a write.
const touchEvery = time.Minute

// Service signs users up and in and checks credentials.
type Service struct {
	db     *store.DB
	orgs   *org.Service
	hasher *Hasher
	now    func() time.Time
	open   bool
	log    *slog.Logger
	// dummyHash is verified against when the email is unknown, so that an
	// unknown address costs as much time as a wrong password.
	dummyHash string

	failuresByEmail *ratelimit.Limiter
	failuresByIP    *ratelimit.Limiter
	// throttled remembers which accounts' refused sign-ins were recorded
	// lately (throttled.go).
	throttled throttledNotes

	mailer Mailer // nil: no verification emails
	appURL string
}

// Options configure a Service.
type Options struct {
	// OpenSignup lets anyone sign up (ERRATA_SIGNUP=open); otherwise only the
	// first user or an invited one.
	OpenSignup bool
	Argon2     Argon2
	Now        func() time.Time
	Logger     *slog.Logger
	// Mailer sends verification emails; AppURL starts their links.
	Mailer Mailer
	AppURL string
}

// New returns a Service.
func New(db *store.DB, orgs *org.Service, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Argon2 == (Argon2{}) {
		opts.Argon2 = DefaultArgon2
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Service{db: db, orgs: orgs, hasher: NewHasher(opts.Argon2), now: opts.Now, open: opts.OpenSignup, log: opts.Logger,
		// Ten failures per address, then one more a minute; an address
		// (NAT, office) gets more room before it is slowed.
		failuresByEmail: ratelimit.New(1.0/60, 10).WithClock(opts.Now),
		failuresByIP:    ratelimit.New(1.0/6, 50).WithClock(opts.Now),
	}
	s.mailer, s.appURL = opts.Mailer, opts.AppURL
	s.dummyHash = s.hasher.Dummy()
	return s
}

// ShareLimits makes the sign-in failure limits this process's 1/n share
// of the installation's: n api processes enforce them together.
func (s *Service) ShareLimits(n int) {
	s.failuresByEmail.Share(n)
	s.failuresByIP.Share(n)
}

// SignUpOpen reports whether anyone may sign up without an invitation
// (ERRATA_SIGNUP=open).
func (s *Service) SignUpOpen() bool { return s.open }

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// Signed is the result of signing up or in: the session token, shown once.
type Signed struct {
	Token   string
	User    store.User
	Session store.Session
}

// SignUpInput is what sign-up takes.
type SignUpInput struct {
	Email, Password, Name, InvitationToken string
}

func checkPassword(pw string) error {
	if n := utf8.RuneCountInString(pw); n < 8 || n > 256 {
		return problem.New("validation-failed", "password: must be 8 to 256 characters")
	}
	return nil
}

// firstAccount reports, in c's transaction, whether an account made now
// would be the installation's first, which may always be made (CONTRACT
// 1); sign-ups are serialised until the transaction ends, so two cannot
// both be first.
func firstAccount(ctx context.Context, c *store.Conn) (bool, error) {
	if err := c.LockSignUps(ctx); err != nil {
		return false, err
	}
	n, err := c.CountUsers(ctx)
	return n == 0, err
}

// SignUp creates a user and a session. The first user may always sign up;
// later ones need an invitation token unless sign-up is open. With a token,
// the invitation is accepted in the same transaction.
func (s *Service) SignUp(ctx context.Context, in SignUpInput) (Signed, error) {
	email, err := emailaddr.Normalize(in.Email)
	if err != nil {
		return Signed{}, err
	}
	if err := checkPassword(in.Password); err != nil {
		return Signed{}, err
	}
	if err := text.Check("name", in.Name); err != nil {
		return Signed{}, err
	}
	hash, err := s.hasher.Hash(ctx, in.Password)
	if err != nil {
		return Signed{}, err
	}
	now := s.clock()
	u := store.User{ID: id.New(id.User), Email: email, Name: strings.TrimSpace(in.Name), PasswordHash: hash, CreatedAt: now, UpdatedAt: now}
	var out Signed
	err = s.db.Tx(ctx, func(c *store.Conn) error {
		first := false
		if in.InvitationToken == "" {
			var err error
			if first, err = firstAccount(ctx, c); err != nil {
				return err
			}
			if !first && !s.open {
				return problem.New("sign-up-closed", "this server needs an invitation_token to sign up")
			}
		}
		if in.InvitationToken != "" {
			// The account takes the invitation's address, verified by the
			// link that carried the token (CONTRACT 8).
			inv, err := s.orgs.PendingInvitation(ctx, c, "invitation_token", secret.Hash(in.InvitationToken))
			if err != nil {
				if _, taken := c.UserByEmail(ctx, email); taken == nil {
					return problem.New("email-taken", "an account with this email already exists; sign in instead")
				}
				return err
			}
			u.Email, u.EmailVerifiedAt = inv.Email, &now
		} else if first || s.verifiedAtStart() {
			// The installation's first account is its operator's, made
			// before there is anyone to pose as (docs/decisions.md).
			u.EmailVerifiedAt = &now
		}
		if err := c.CreateUser(ctx, u); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return problem.New("email-taken", "an account with this email already exists; sign in instead")
			}
			return err
		}
		if in.InvitationToken != "" {
			if _, err := s.orgs.Accept(ctx, c, u, "invitation_token", secret.Hash(in.InvitationToken)); err != nil {
				return err
			}
		} else if !u.EmailVerified() {
			if err := s.queueVerification(ctx, c, u); err != nil {
				return err
			}
		}
		out, err = s.newSession(ctx, c, u, store.SignInPassword)
		return err
	})
	if err == nil {
		s.log.Info("user signed up", "user_id", u.ID)
		if !u.EmailVerified() {
			s.mailer.Wake()
		}
	}
	return out, err
}

// CreateUser makes a user without a session (errata user create).
func (s *Service) CreateUser(ctx context.Context, email, password, name string) (store.User, error) {
	email, err := emailaddr.Normalize(email)
	if err != nil {
		return store.User{}, err
	}
	if err := checkPassword(password); err != nil {
		return store.User{}, err
	}
	if err := text.Check("name", name); err != nil {
		return store.User{}, err
	}
	hash, err := s.hasher.Hash(ctx, password)
	if err != nil {
		return store.User{}, err
	}
	now := s.clock()
	// The operator's command: the address counts as verified.
	u := store.User{ID: id.New(id.User), Email: email, Name: strings.TrimSpace(name), PasswordHash: hash, CreatedAt: now, UpdatedAt: now, EmailVerifiedAt: &now}
	if err := s.db.Write().CreateUser(ctx, u); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return store.User{}, problem.New("email-taken", "an account with this email already exists")
		}
		return store.User{}, err
	}
	return u, nil
}

// SignOut ends a session.
func (s *Service) SignOut(ctx context.Context, sessionID string) error {
	return s.db.Tx(ctx, func(c *store.Conn) error {
		sess, err := c.SessionByID(ctx, sessionID)
		if err != nil {
			return err
		}
		if err := c.DeleteSession(ctx, sessionID); err != nil {
			return err
		}
		return s.recordUser(ctx, c, sess.UserID, "session.ended", sessionID, map[string]any{"reason": "sign-out"})
	})
}

// Unauthorized returns the problem of a missing or rejected credential.
func Unauthorized(detail string) *problem.Problem { return problem.New("unauthorized", detail) }

// Authenticate returns the user and session of a session token, extending
// the session. An unknown, expired or ended session is unauthorized.
func (s *Service) Authenticate(ctx context.Context, token string) (store.User, store.Session, error) {
	sess, err := s.db.Read().SessionByTokenHash(ctx, secret.Hash(token))
	if errors.Is(err, store.ErrNotFound) {
		return store.User{}, store.Session{}, Unauthorized("the session token is unknown or was signed out")
	}
	if err != nil {
		return store.User{}, store.Session{}, err
	}
	now := s.clock()
	if !now.Before(sess.ExpiresAt) {
		return store.User{}, store.Session{}, Unauthorized("the session has expired; sign in again")
	}
	u, err := s.db.Read().UserByID(ctx, sess.UserID)
	if err != nil {
		return store.User{}, store.Session{}, err
	}
	if now.Sub(sess.LastUsedAt) >= touchEvery {
		if err := s.touch(ctx, &sess, now); err != nil {
			return store.User{}, store.Session{}, err
		}
	}
	return u, sess, nil
}

// touchWait bounds how long a request waits for the database writer to
// extend its session: on SQLite the writer may be busy with ingestion's
// commits and processing, and a read of the API would wait behind them
// (4.4 s for a group list under issue 30's load). Past it the session is
// left as it was, and a later request extends it.
const touchWait = 100 * time.Millisecond

// touch extends sess from now, unless the writer stays busy past
// touchWait.
func (s *Service) touch(ctx context.Context, sess *store.Session, now time.Time) error {
	tctx, cancel := context.WithTimeout(ctx, touchWait)
	defer cancel()
	err := s.db.Write().TouchSession(tctx, sess.ID, now, now.Add(SessionTTL))
	switch {
	case err == nil:
		sess.LastUsedAt, sess.ExpiresAt = now, now.Add(SessionTTL)
		return nil
	case errors.Is(err, store.ErrNotFound):
		return nil
	case tctx.Err() != nil && ctx.Err() == nil:
		s.log.Debug("session not extended: the database writer stayed busy", "session_id", sess.ID, "waited", touchWait)
		return nil
	}
	return err
}
