package store

import (
	"context"
	"fmt"
)

// Keys of PostgreSQL advisory locks: one number per kind of work that
// processes of one installation serialise.
const (
	lockDeliveryClaims int64 = 0x45525241_0001 // "ERRA" 1: delivery claims
	lockBatchClaims    int64 = 0x45525241_0002 // batch claims
	lockFirstSignUp    int64 = 0x45525241_0003 // the first user's sign-up
)

// claimLock takes an advisory lock until the end of c's transaction, on
// PostgreSQL; outside a transaction, or on SQLite (one process, one writer),
// it does nothing.
func (c *Conn) claimLock(ctx context.Context, key int64) error {
	if c.tx == nil {
		return nil
	}
	if err := c.drv.lockKey(ctx, c, key); err != nil {
		return fmt.Errorf("store: advisory lock: %w", err)
	}
	return nil
}

// LockSignUps serialises, until the end of c's transaction, the sign-ups
// that count users first, so that two visitors creating "the first account"
// at once on PostgreSQL cannot both see no user. SQLite has one writer.
func (c *Conn) LockSignUps(ctx context.Context) error {
	return c.claimLock(ctx, lockFirstSignUp)
}
