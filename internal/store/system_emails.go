package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// PendingSystemEmail returns, with its body, the pending system email of
// event about subject that nobody is sending at now (a bulk assignment's
// email, which each of the bulk's transactions adds its groups to), the
// newest when there are several (one retried after an SMTP refusal, and
// the one started after it was taken), or ErrNotFound.
func (c *Conn) PendingSystemEmail(ctx context.Context, event, subject string, now time.Time) (Delivery, error) {
	d, err := scanDeliveryBody(c.queryRow(ctx, `SELECT `+deliveryMeta+`, body FROM deliveries
		WHERE id IN (SELECT id FROM deliveries WHERE subject_id = ? AND channel_id IS NULL) AND event = ? AND status = ? AND lease_until < ?
		ORDER BY id DESC LIMIT 1`, subject, event, DeliveryPending, ms(now)))
	if err != nil {
		if err = translate(err); errors.Is(err, ErrNotFound) {
			return Delivery{}, err
		}
		return Delivery{}, fmt.Errorf("store: pending %s email of %s: %w", event, subject, err)
	}
	return d, nil
}

// RewritePendingEmail replaces the body of pending system email id and
// its next attempt, if nobody is sending it at now, and reports whether it
// did: one leased meanwhile is sent as it was. The lease is cleared, as a
// cancellation's: an attempt that outlived its lease cannot then record
// the old body as delivered.
func (c *Conn) RewritePendingEmail(ctx context.Context, id string, body []byte, next, now time.Time) (bool, error) {
	res, err := c.exec(ctx, `UPDATE deliveries SET body = ?, next_attempt_at = ?, lease_until = 0, updated_at = ? WHERE id = ? AND status = ? AND lease_until < ?`,
		body, ms(next), ms(now), id, DeliveryPending, ms(now))
	if err != nil {
		return false, fmt.Errorf("store: rewrite email %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
