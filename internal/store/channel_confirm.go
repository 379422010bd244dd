package store

import (
	"context"
	"fmt"
	"time"
)

// SetChannelPending makes a channel wait for its recipient to open the
// confirmation link whose token hashes to tokenHash (a new address, or an
// unsubscribed channel enabled again); it is no longer unsubscribed.
func (c *Conn) SetChannelPending(ctx context.Context, id string, tokenHash []byte, now time.Time) error {
	if err := c.execOne(ctx, `UPDATE channels SET confirmation = ?, confirm_token_hash = ?, unsubscribed_at = NULL, updated_at = ? WHERE id = ?`,
		ConfirmationPending, tokenHash, ms(now), id); err != nil {
		return fmt.Errorf("store: channel %s pending: %w", id, err)
	}
	return nil
}

// ChannelByConfirmToken returns the pending channel whose confirmation
// token hashes to h.
func (c *Conn) ChannelByConfirmToken(ctx context.Context, h []byte) (Channel, error) {
	ch, err := scanChannel(c.queryRow(ctx, `SELECT `+channelCols+` FROM channels WHERE confirm_token_hash = ?`, h))
	if err != nil {
		return Channel{}, fmt.Errorf("store: channel by confirmation token: %w", translate(err))
	}
	return ch, nil
}

// ConfirmChannel confirms channel id if its confirmation token still hashes
// to h (the link was not replaced meanwhile); else ErrNotFound. The token
// is forgotten: a link confirms once.
func (c *Conn) ConfirmChannel(ctx context.Context, id string, h []byte, now time.Time) error {
	if err := c.execOne(ctx, `UPDATE channels SET confirmation = ?, confirm_token_hash = NULL, updated_at = ? WHERE id = ? AND confirm_token_hash = ?`,
		ConfirmationConfirmed, ms(now), id, h); err != nil {
		return fmt.Errorf("store: confirm channel %s: %w", id, err)
	}
	return nil
}

// SetChannelConfirmed confirms a channel without a link (its address is a
// member's own) and clears an unsubscription.
func (c *Conn) SetChannelConfirmed(ctx context.Context, id string, now time.Time) error {
	if err := c.execOne(ctx, `UPDATE channels SET confirmation = ?, confirm_token_hash = NULL, unsubscribed_at = NULL, updated_at = ? WHERE id = ?`,
		ConfirmationConfirmed, ms(now), id); err != nil {
		return fmt.Errorf("store: channel %s confirmed: %w", id, err)
	}
	return nil
}

// UnsubscribeChannel records that the recipient stopped the channel at now
// (kept if it already had) and disables it; a pending confirmation link
// stops working.
func (c *Conn) UnsubscribeChannel(ctx context.Context, id string, now time.Time) error {
	if err := c.execOne(ctx, `UPDATE channels SET enabled = ?, unsubscribed_at = COALESCE(unsubscribed_at, ?), confirm_token_hash = NULL, updated_at = ? WHERE id = ?`,
		false, ms(now), ms(now), id); err != nil {
		return fmt.Errorf("store: unsubscribe channel %s: %w", id, err)
	}
	return nil
}
