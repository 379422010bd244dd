package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// User is a person who signs in. Email is stored lower-cased.
type User struct {
	ID           string
	Email        string
	Name         string
	PasswordHash string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// TOTPSecret is the confirmed TOTP secret ("" without two-factor
	// sign-in); TOTPPending one being set up.
	TOTPSecret, TOTPPending string
	// EmailVerifiedAt is when the address was verified; nil until then.
	EmailVerifiedAt *time.Time
}

// EmailVerified reports whether the user's address is verified.
func (u User) EmailVerified() bool { return u.EmailVerifiedAt != nil }

// HasTOTP reports whether the user signs in with a second factor.
func (u User) HasTOTP() bool { return u.TOTPSecret != "" }

const userCols = `id, email, name, password_hash, created_at, updated_at, totp_secret, totp_pending, email_verified_at`

func scanUser(s interface{ Scan(...any) error }) (User, error) {
	var u User
	var c, up int64
	var verified sql.NullInt64
	if err := s.Scan(&u.ID, &u.Email, &u.Name, &u.PasswordHash, &c, &up, &u.TOTPSecret, &u.TOTPPending, &verified); err != nil {
		return User{}, err
	}
	u.CreatedAt, u.UpdatedAt = fromMS(c), fromMS(up)
	if verified.Valid {
		t := fromMS(verified.Int64)
		u.EmailVerifiedAt = &t
	}
	return u, nil
}

// CreateUser inserts u; a taken email is ErrConflict.
func (c *Conn) CreateUser(ctx context.Context, u User) error {
	_, err := c.exec(ctx, `INSERT INTO users (id, email, name, password_hash, created_at, updated_at, email_verified_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.Email, u.Name, u.PasswordHash, ms(u.CreatedAt), ms(u.UpdatedAt), nullMS(u.EmailVerifiedAt))
	if err != nil {
		return fmt.Errorf("store: create user: %w", err)
	}
	return nil
}

// UserByID returns one user.
func (c *Conn) UserByID(ctx context.Context, id string) (User, error) {
	u, err := scanUser(c.queryRow(ctx, `SELECT `+userCols+` FROM users WHERE id = ?`, id))
	if err != nil {
		return User{}, fmt.Errorf("store: user %s: %w", id, translate(err))
	}
	return u, nil
}

// UserByEmail returns the user with the given (lower-cased) email.
func (c *Conn) UserByEmail(ctx context.Context, email string) (User, error) {
	u, err := scanUser(c.queryRow(ctx, `SELECT `+userCols+` FROM users WHERE email = ?`, email))
	if err != nil {
		return User{}, fmt.Errorf("store: user by email: %w", translate(err))
	}
	return u, nil
}

// CountUsers reports how many users exist.
func (c *Conn) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM users`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count users: %w", translate(err))
	}
	return n, nil
}

// SetUserPassword replaces a user's password hash.
func (c *Conn) SetUserPassword(ctx context.Context, id, hash string, now time.Time) error {
	if err := c.execOne(ctx, `UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?`, hash, ms(now), id); err != nil {
		return fmt.Errorf("store: set password of %s: %w", id, err)
	}
	return nil
}

// ReplaceUserPassword sets a user's password hash to hash if it is still
// old, and reports whether it was: two changes of one password at once
// are checked each against the password in effect, and the second finds
// it changed.
func (c *Conn) ReplaceUserPassword(ctx context.Context, id, old, hash string, now time.Time) (bool, error) {
	res, err := c.exec(ctx, `UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ? AND password_hash = ?`, hash, ms(now), id, old)
	if err != nil {
		return false, fmt.Errorf("store: set password of %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
