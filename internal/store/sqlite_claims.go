package store

import (
	"context"
	"encoding/json"
	"time"
)

// claimBatches leases the n oldest batches that are not leased (or whose
// lease has expired) and not set aside, whatever their project: one
// process owns a SQLite file, and its one writer serialises the claims.
//
// $1 leaseUntil, $2 now, $3 n.
func (sqliteDriver) claimBatches(ctx context.Context, c *Conn, now, leaseUntil time.Time, n int) ([]Batch, error) {
	const q = `UPDATE ingest_batches SET lease_until = $1, attempts = attempts + 1
		WHERE id IN (SELECT id FROM ingest_batches WHERE lease_until < $2 AND failed_at IS NULL ORDER BY id LIMIT $3)
		RETURNING id, project_id, received_at, event_count, lease_until, attempts, failures`
	rows, err := c.query(ctx, q, ms(leaseUntil), ms(now), n)
	return claimedBatches(rows, err)
}

// sqliteClaimDeliveries walks the channels with pending deliveries (ch:
// a skip scan of the index deliveries_channel_due, one step a channel),
// takes the perChannel oldest due of each channel not excluded, and the
// perChannel oldest due system emails (no channel: the walk skips NULL),
// and leases the limit oldest due of those.
//
// $1 leaseUntil, $2 now, $3 perChannel, $4 the excluded channels (a JSON
// array), $5 the system emails' share (0: excluded), $6 limit.
//
// "status = 'pending'" is written out, not bound, so that the partial
// index deliveries_due serves (duePending).
const sqliteClaimDeliveries = `WITH RECURSIVE ch(id) AS (
		SELECT MIN(channel_id) FROM deliveries WHERE status = 'pending'
		UNION ALL
		SELECT (SELECT MIN(channel_id) FROM deliveries WHERE status = 'pending' AND channel_id > ch.id) FROM ch WHERE ch.id IS NOT NULL)
	UPDATE deliveries SET lease_until = $1
	WHERE id IN (SELECT u.id FROM (
			SELECT d.id, d.next_attempt_at FROM ch, deliveries d
			WHERE ch.id IS NOT NULL
				AND d.id IN (SELECT id FROM deliveries
					WHERE status = 'pending' AND channel_id = ch.id AND next_attempt_at <= $2 AND lease_until < $2
					ORDER BY next_attempt_at LIMIT $3)
				AND ch.id NOT IN (SELECT value FROM json_each($4))
			UNION ALL
			SELECT s.id, s.next_attempt_at FROM (SELECT id, next_attempt_at FROM deliveries
					WHERE status = 'pending' AND channel_id IS NULL AND next_attempt_at <= $2 AND lease_until < $2
					ORDER BY next_attempt_at LIMIT $5) s
		) u ORDER BY u.next_attempt_at LIMIT $6)
	RETURNING ` + deliveryMeta + `, body`

// claimDeliveries runs sqliteClaimDeliveries: one process owns the file,
// so the deliveries it leased and has not finished are the caller's to
// exclude.
func (sqliteDriver) claimDeliveries(ctx context.Context, c *Conn, now, leaseUntil time.Time, perChannel, limit int, exclude []string) ([]Delivery, error) {
	excluded, err := json.Marshal(append([]string{}, exclude...))
	if err != nil {
		return nil, err
	}
	rows, err := c.query(ctx, sqliteClaimDeliveries, ms(leaseUntil), ms(now), perChannel, string(excluded), systemLimit(perChannel, exclude), limit)
	return claimedDeliveries(rows, err)
}
