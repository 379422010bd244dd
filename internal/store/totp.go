package store

import (
	"context"
	"fmt"
	"time"
)

// SetTOTPPending keeps a TOTP secret being set up for user id.
func (c *Conn) SetTOTPPending(ctx context.Context, id, secret string, now time.Time) error {
	if err := c.execOne(ctx, `UPDATE users SET totp_pending = ?, updated_at = ? WHERE id = ?`, secret, ms(now), id); err != nil {
		return fmt.Errorf("store: pending TOTP of %s: %w", id, err)
	}
	return nil
}

// EnableTOTP makes the pending secret of user id its TOTP secret, if it is
// still pending. Otherwise ErrNotFound (confirmed or replaced meanwhile).
// The code that confirmed it is not spent: it proved the authenticator,
// not a sign-in, so the same code still signs in once (docs/decisions.md,
// "TOTP steps").
func (c *Conn) EnableTOTP(ctx context.Context, id, pending string, now time.Time) error {
	if err := c.execOne(ctx, `UPDATE users SET totp_secret = totp_pending, totp_pending = '', totp_last_step = 0, updated_at = ?
		WHERE id = ? AND totp_pending = ? AND totp_pending <> ''`, ms(now), id, pending); err != nil {
		return fmt.Errorf("store: enable TOTP of %s: %w", id, err)
	}
	if _, err := c.exec(ctx, `DELETE FROM totp_used_steps WHERE user_id = ?`, id); err != nil {
		return fmt.Errorf("store: enable TOTP of %s: %w", id, err)
	}
	return nil
}

// DisableTOTP forgets user id's TOTP secrets, used steps and recovery codes.
func (c *Conn) DisableTOTP(ctx context.Context, id string, now time.Time) error {
	if err := c.execOne(ctx, `UPDATE users SET totp_secret = '', totp_pending = '', totp_last_step = 0, updated_at = ? WHERE id = ?`, ms(now), id); err != nil {
		return fmt.Errorf("store: disable TOTP of %s: %w", id, err)
	}
	for _, q := range []string{`DELETE FROM recovery_codes WHERE user_id = ?`, `DELETE FROM totp_used_steps WHERE user_id = ?`} {
		if _, err := c.exec(ctx, q, id); err != nil {
			return fmt.Errorf("store: disable TOTP of %s: %w", id, err)
		}
	}
	return nil
}

// UseTOTPStep records that a code of time step step was accepted for user
// id (who has TOTP on), unless a code of that step already was: then
// false. Each step is accepted once, also when two requests with one code
// race; an unused step within the skew is still accepted after a later one
// was (a code typed just as the next appeared). Steps older than step−2
// are forgotten: matchTOTP never accepts them again.
func (c *Conn) UseTOTPStep(ctx context.Context, id string, step int64) (bool, error) {
	if _, err := c.exec(ctx, `DELETE FROM totp_used_steps WHERE user_id = ? AND step < ?`, id, step-2); err != nil {
		return false, fmt.Errorf("store: use TOTP step of %s: %w", id, err)
	}
	res, err := c.exec(ctx, `INSERT INTO totp_used_steps (user_id, step)
		SELECT id, ? FROM users WHERE id = ? AND totp_secret <> ''
		ON CONFLICT (user_id, step) DO NOTHING`, step, id)
	if err != nil {
		return false, fmt.Errorf("store: use TOTP step of %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ReplaceRecoveryCodes makes hashes user id's recovery codes, none used.
func (c *Conn) ReplaceRecoveryCodes(ctx context.Context, id string, hashes [][]byte) error {
	if _, err := c.exec(ctx, `DELETE FROM recovery_codes WHERE user_id = ?`, id); err != nil {
		return fmt.Errorf("store: delete recovery codes of %s: %w", id, err)
	}
	for _, h := range hashes {
		if _, err := c.exec(ctx, `INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)`, id, h); err != nil {
			return fmt.Errorf("store: add recovery code of %s: %w", id, err)
		}
	}
	return nil
}

// UseRecoveryCode spends the unused recovery code of user id that hashes to
// h: false when there is none (unknown, or used already; also when two
// requests spend one code at once, for all but one).
func (c *Conn) UseRecoveryCode(ctx context.Context, id string, h []byte, now time.Time) (bool, error) {
	res, err := c.exec(ctx, `UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL`, ms(now), id, h)
	if err != nil {
		return false, fmt.Errorf("store: use recovery code of %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// UnusedRecoveryCodes counts user id's recovery codes not used yet.
func (c *Conn) UnusedRecoveryCodes(ctx context.Context, id string) (int, error) {
	var n int
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM recovery_codes WHERE user_id = ? AND used_at IS NULL`, id).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count recovery codes of %s: %w", id, translate(err))
	}
	return n, nil
}
