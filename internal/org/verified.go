package org

import (
	"context"
	"errors"

	"github.com/errata-dev/errata/internal/store"
)

// VerifiedMemberEmail reports whether email (canonical, see emailaddr) is
// the verified email of a member of orgID: an email channel to such an
// address needs no confirmation (CONTRACT 8). An account's address counts
// once it is verified (the link of its verification email, or an
// invitation's link that created the account).
func VerifiedMemberEmail(ctx context.Context, c *store.Conn, orgID, email string) (bool, error) {
	m, err := c.MemberByEmail(ctx, orgID, email)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	u, err := c.UserByID(ctx, m.UserID)
	if err != nil {
		return false, err
	}
	return u.EmailVerified(), nil
}
