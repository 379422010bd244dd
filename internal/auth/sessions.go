package auth

import (
	"context"
	"errors"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// Sessions lists a user's live sessions, newest first, below the id before.
func (s *Service) Sessions(ctx context.Context, userID, before string, limit int) ([]store.Session, error) {
	return s.db.Read().SessionsOfUser(ctx, userID, s.clock(), before, limit)
}

// EndSession ends one of the user's sessions (sign-out elsewhere). A
// session of someone else is not-found, as if it did not exist.
func (s *Service) EndSession(ctx context.Context, u store.User, sessionID string) error {
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		if err := c.DeleteSessionOf(ctx, u.ID, sessionID); err != nil {
			return err
		}
		return s.recordUser(ctx, c, u.ID, "session.ended", sessionID, map[string]any{"reason": "ended"})
	})
	if errors.Is(err, store.ErrNotFound) {
		return problem.Newf("not-found", "session %q does not exist", sessionID)
	}
	return err
}

// ChangePassword replaces the password of u after checking the current one,
// and ends every session of u but current (CONTRACT 8). A wrong current
// password is 422 naming current_password and counts, like a failed
// sign-in, in the failure limits of the account's address.
func (s *Service) ChangePassword(ctx context.Context, u store.User, current, currentPassword, newPassword string) error {
	if err := checkPassword(newPassword); err != nil {
		return problem.New("validation-failed", "new_password: must be 8 to 256 characters")
	}
	r, res := s.failuresByEmail.Reserve(ctx, u.Email)
	if !r.Allowed {
		return problem.New("rate-limited", "too many wrong passwords for this account; wait and retry").RetryAfter(r.RetryAfter)
	}
	defer res.Done()
	hash := u.PasswordHash
	if hash == "" {
		// An account made through single sign-on has no password: the
		// same work as a wrong one, and a 422 that says why.
		hash = s.dummyHash
	}
	ok, err := s.hasher.Verify(ctx, hash, currentPassword)
	if err != nil {
		res.GiveBack()
		return err
	}
	if u.PasswordHash == "" {
		res.GiveBack()
		return problem.New("validation-failed", "current_password: this account has no password; it signs in through single sign-on")
	}
	if !ok {
		return problem.New("validation-failed", "current_password: is not the account's password")
	}
	res.GiveBack()
	newHash, err := s.hasher.Hash(ctx, newPassword)
	if err != nil {
		return err
	}
	return s.db.Tx(ctx, func(c *store.Conn) error {
		// The password checked must still be the account's: of two
		// changes at once, the second is refused rather than each
		// ending the other's session and one password silently lost.
		if replaced, err := c.ReplaceUserPassword(ctx, u.ID, u.PasswordHash, newHash, s.clock()); err != nil {
			return err
		} else if !replaced {
			return problem.New("validation-failed", "current_password: is not the account's password (it was changed meanwhile)")
		}
		ended, err := c.DeleteOtherSessions(ctx, u.ID, current)
		if err != nil {
			return err
		}
		if err := s.recordUser(ctx, c, u.ID, "user.password_changed", u.ID, map[string]any{"sessions_ended": len(ended)}); err != nil {
			return err
		}
		return s.recordEnded(ctx, c, u.ID, ended, "password-changed")
	})
}

// recordEnded writes a session.ended audit entry for each of the sessions
// of userID that ended, for reason.
func (s *Service) recordEnded(ctx context.Context, c *store.Conn, userID string, ended []string, reason string) error {
	for _, id := range ended {
		if err := s.recordUser(ctx, c, userID, "session.ended", id, map[string]any{"reason": reason}); err != nil {
			return err
		}
	}
	return nil
}

// recordUser writes an audit entry of an account change, dated by the
// service's clock, to every organization of userID.
func (s *Service) recordUser(ctx context.Context, c *store.Conn, userID, action, target string, data map[string]any) error {
	return audit.RecordUser(ctx, c, userID, audit.Entry{Action: action, Target: target, Data: data, At: s.clock()})
}
