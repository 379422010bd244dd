package org

import (
	"context"
	"errors"

	"github.com/errata-dev/errata/internal/store"
)

// VerifiedMemberEmail reports whether email (canonical, see emailaddr) is
// the verified email of a member of orgID: an email channel to such an
// address needs no confirmation (CONTRACT 8). Today every account's email
// counts as verified; when accounts verify their email (issue 27), this one
// function is where an unverified one stops counting.
func VerifiedMemberEmail(ctx context.Context, c *store.Conn, orgID, email string) (bool, error) {
	_, err := c.MemberByEmail(ctx, orgID, email)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}
