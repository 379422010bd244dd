package store

import (
	"context"
	"time"
)

// postgresClaimBatches leases up to n of the oldest claimable batches of
// one project: the oldest project that no claim holds, or failing one, the
// oldest project held by fewer than MaxProjectClaims claims. A batch is
// held by a claim when it is leased and has had more attempts than
// failures; a batch waiting out the backoff after a failure has a lease
// too, but as many failures as attempts. The claims of distinct leases
// are counted by their lease_until, each claim's own.
//
// $1 leaseUntil, $2 now, $3 MaxProjectClaims, $4 n.
const postgresClaimBatches = `UPDATE ingest_batches SET lease_until = $1, attempts = attempts + 1
	WHERE id IN (SELECT id FROM ingest_batches
		WHERE lease_until < $2 AND failed_at IS NULL
			AND project_id = (SELECT b.project_id FROM ingest_batches b
				WHERE b.lease_until < $2 AND b.failed_at IS NULL
					AND b.project_id NOT IN (SELECT x.project_id FROM ingest_batches x
						WHERE x.lease_until >= $2 AND x.attempts > x.failures
						GROUP BY x.project_id HAVING COUNT(DISTINCT x.lease_until) >= $3)
				ORDER BY b.project_id IN (SELECT x.project_id FROM ingest_batches x
						WHERE x.lease_until >= $2 AND x.attempts > x.failures),
					b.id
				LIMIT 1)
		ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
	RETURNING id, project_id, received_at, event_count, lease_until, attempts, failures`

// claimBatches serialises the claims of every process (an advisory lock
// held to the end of c's transaction, when there is one) and runs
// postgresClaimBatches; concurrent claims skip each other's rows.
func (postgresDriver) claimBatches(ctx context.Context, c *Conn, now, leaseUntil time.Time, n int) ([]Batch, error) {
	if err := c.claimLock(ctx, lockBatchClaims); err != nil {
		return nil, err
	}
	rows, err := c.query(ctx, postgresClaimBatches, ms(leaseUntil), ms(now), MaxProjectClaims, n)
	return claimedBatches(rows, err)
}

// postgresClaimDeliveries walks the channels with pending deliveries (ch,
// as on SQLite) and takes, for each channel not excluded, its oldest due
// deliveries numbered in due order (a lateral join runs once a channel;
// PostgreSQL would run a correlated IN for every row), as many as
// perChannel less the channel's deliveries still leased by any process;
// the same of the system emails (no channel); and leases the limit oldest
// due of those. The row lock re-checks that a row is still due and not
// leased: a row another claim leased after this statement's snapshot is
// skipped, not leased twice.
//
// $1 leaseUntil, $2 now, $3 perChannel, $4 the excluded channels (text[]),
// $5 the system emails' share (0: excluded), $6 limit.
//
// "status = 'pending'" is written out, not bound, so that the partial
// index deliveries_due serves (duePending).
const postgresClaimDeliveries = `WITH RECURSIVE ch(id) AS (
		SELECT MIN(channel_id) FROM deliveries WHERE status = 'pending'
		UNION ALL
		SELECT (SELECT MIN(channel_id) FROM deliveries WHERE status = 'pending' AND channel_id > ch.id) FROM ch WHERE ch.id IS NOT NULL)
	UPDATE deliveries SET lease_until = $1
	WHERE id IN (SELECT id FROM deliveries WHERE id IN (SELECT u.id FROM (
			SELECT d.id, d.next_attempt_at FROM ch CROSS JOIN LATERAL (
				SELECT id, next_attempt_at, row_number() OVER (ORDER BY next_attempt_at) AS rn FROM (
					SELECT id, next_attempt_at FROM deliveries
					WHERE status = 'pending' AND channel_id = ch.id AND next_attempt_at <= $2 AND lease_until < $2
					ORDER BY next_attempt_at LIMIT $3) o) d
			WHERE ch.id IS NOT NULL
				AND d.rn <= $3 - (SELECT COUNT(*) FROM deliveries x WHERE x.status = 'pending' AND x.channel_id = ch.id AND x.lease_until >= $2)
				AND ch.id <> ALL(CAST($4 AS text[]))
			UNION ALL
			SELECT s.id, s.next_attempt_at FROM (
				SELECT id, next_attempt_at, row_number() OVER (ORDER BY next_attempt_at) AS rn FROM (
					SELECT id, next_attempt_at FROM deliveries
					WHERE status = 'pending' AND channel_id IS NULL AND next_attempt_at <= $2 AND lease_until < $2
					ORDER BY next_attempt_at LIMIT $5) o) s
			WHERE s.rn <= $5 - (SELECT COUNT(*) FROM deliveries x WHERE x.status = 'pending' AND x.channel_id IS NULL AND x.lease_until >= $2)
		) u ORDER BY u.next_attempt_at LIMIT $6)
		AND status = 'pending' AND lease_until < $2 FOR UPDATE SKIP LOCKED)
	RETURNING ` + deliveryMeta + `, body`

// claimDeliveries serialises the claims of every process (a
// transaction-scoped advisory lock), so that the deliveries a channel has
// leased can be counted: at most perChannel in flight per channel across
// the cluster, not per process.
func (postgresDriver) claimDeliveries(ctx context.Context, c *Conn, now, leaseUntil time.Time, perChannel, limit int, exclude []string) ([]Delivery, error) {
	if err := c.claimLock(ctx, lockDeliveryClaims); err != nil {
		return nil, err
	}
	rows, err := c.query(ctx, postgresClaimDeliveries, ms(leaseUntil), ms(now), perChannel, append([]string{}, exclude...), systemLimit(perChannel, exclude), limit)
	return claimedDeliveries(rows, err)
}
