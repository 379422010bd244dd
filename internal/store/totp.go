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
// still pending; step is the time step of the code that confirmed it.
// Otherwise ErrNotFound (confirmed or replaced meanwhile).
func (c *Conn) EnableTOTP(ctx context.Context, id, pending string, step int64, now time.Time) error {
	if err := c.execOne(ctx, `UPDATE users SET totp_secret = totp_pending, totp_pending = '', totp_last_step = ?, updated_at = ?
		WHERE id = ? AND totp_pending = ? AND totp_pending <> ''`, step, ms(now), id, pending); err != nil {
		return fmt.Errorf("store: enable TOTP of %s: %w", id, err)
	}
	return nil
}

// DisableTOTP forgets user id's TOTP secrets and recovery codes.
func (c *Conn) DisableTOTP(ctx context.Context, id string, now time.Time) error {
	if err := c.execOne(ctx, `UPDATE users SET totp_secret = '', totp_pending = '', totp_last_step = 0, updated_at = ? WHERE id = ?`, ms(now), id); err != nil {
		return fmt.Errorf("store: disable TOTP of %s: %w", id, err)
	}
	if _, err := c.exec(ctx, `DELETE FROM recovery_codes WHERE user_id = ?`, id); err != nil {
		return fmt.Errorf("store: delete recovery codes of %s: %w", id, err)
	}
	return nil
}

// UseTOTPStep records that a code of time step step signed user id in,
// unless a code of that step or a later one already did: then false. Two
// requests with one code cannot both have it.
func (c *Conn) UseTOTPStep(ctx context.Context, id string, step int64) (bool, error) {
	res, err := c.exec(ctx, `UPDATE users SET totp_last_step = ? WHERE id = ? AND totp_last_step < ? AND totp_secret <> ''`, step, id, step)
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
