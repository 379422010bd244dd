package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Delivery statuses, events and attempt outcomes.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
	DeliveryCancelled = "cancelled"

	EventTicket = "ticket"
	EventDigest = "digest"
	EventTest   = "test"

	OutcomeDelivered = "delivered"
	OutcomeRetry     = "retry"
	OutcomeFailed    = "failed"
)

// Delivery is one ticket, digest or test on its way to one channel, or a
// system email (an invitation) on its way to its recipient. Body is frozen
// when it is queued; Format says how every attempt makes the request of it.
type Delivery struct {
	ID string
	// ChannelID is "" for a system email, whose body names its recipient.
	ChannelID     string
	ProjectID     string
	Event         string
	SubjectID     string
	Body          []byte
	Status        string
	Series        int64
	Attempts      int64 // in the current series
	NextAttemptAt *time.Time
	LeaseUntil    time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
	// Format is the channel's format when the delivery was queued (errata
	// or a chat tool's), or "email"; a later change of the channel's
	// format does not change it.
	Format string
}

// The events of system emails: an invitation's, an email channel's
// confirmation (its subject is the channel) and an assignment's (its
// subject is the group).
const (
	EventInvitation   = "invitation"
	EventConfirmation = "confirmation"
	EventAssignment   = "assignment"
	// EventVerification is an account's email verification; its subject
	// is the user.
	EventVerification = "verification"
)

// FormatEmail is the format of an email delivery.
const FormatEmail = "email"

// Attempt is one try at a delivery.
type Attempt struct {
	DeliveryID  string
	N           int64
	Series      int64
	At          time.Time
	Outcome     string
	HTTPStatus  int
	ErrorClass  string
	Error       string
	Duration    time.Duration
	NextRetryAt *time.Time
}

const deliveryMeta = `id, channel_id, project_id, event, subject_id, status, series, attempts, next_attempt_at, lease_until, created_at, updated_at, format`

func scanDelivery(s interface{ Scan(...any) error }, body bool) (Delivery, error) {
	var d Delivery
	var na sql.NullInt64
	var ch sql.NullString
	var lu, cr, up int64
	dest := []any{&d.ID, &ch, &d.ProjectID, &d.Event, &d.SubjectID, &d.Status, &d.Series, &d.Attempts, &na, &lu, &cr, &up, &d.Format}
	if body {
		dest = append(dest, &d.Body)
	}
	if err := s.Scan(dest...); err != nil {
		return Delivery{}, err
	}
	d.ChannelID = ch.String
	d.NextAttemptAt, d.LeaseUntil, d.CreatedAt, d.UpdatedAt = fromNullMS(na), fromMS(lu), fromMS(cr), fromMS(up)
	return d, nil
}

func scanDeliveryMeta(s interface{ Scan(...any) error }) (Delivery, error) {
	return scanDelivery(s, false)
}
func scanDeliveryBody(s interface{ Scan(...any) error }) (Delivery, error) {
	return scanDelivery(s, true)
}

// InsertDelivery queues d; call it in the transaction that creates what d
// delivers.
func (c *Conn) InsertDelivery(ctx context.Context, d Delivery) error {
	if d.Format == "" {
		d.Format = DefaultFormat
	}
	_, err := c.exec(ctx, `INSERT INTO deliveries (`+deliveryMeta+`, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, nullString(d.ChannelID), d.ProjectID, d.Event, d.SubjectID, d.Status, d.Series, d.Attempts, nullMS(d.NextAttemptAt),
		ms(d.LeaseUntil), ms(d.CreatedAt), ms(d.UpdatedAt), d.Format, d.Body)
	if err != nil {
		return fmt.Errorf("store: insert delivery: %w", translate(err))
	}
	return nil
}

// DeliveryByID returns one delivery without its body (only attempts send
// the body, and they get it from ClaimDeliveries).
func (c *Conn) DeliveryByID(ctx context.Context, id string) (Delivery, error) {
	d, err := scanDeliveryMeta(c.queryRow(ctx, `SELECT `+deliveryMeta+` FROM deliveries WHERE id = ?`, id))
	if err != nil {
		return Delivery{}, fmt.Errorf("store: delivery %s: %w", id, translate(err))
	}
	return d, nil
}

// duePending selects pending deliveries with the condition of the partial
// index deliveries_due written out: with a bound parameter instead, neither
// SQLite nor a generic PostgreSQL plan can use the index, and every claim
// and every idle look read the whole table, delivered rows and bodies too.
const duePending = `status = '` + DeliveryPending + `'`

// ClaimDeliveries leases due pending deliveries until leaseUntil: at most
// perChannel of any one channel (system emails, which have none, count as
// one channel, ""), none of the channels in exclude (those the caller is
// busy with), and at most limit in all, oldest due first. So a channel with
// a long backlog cannot crowd out the others.
//
// It walks the channels that have pending deliveries (a skip scan of the
// index deliveries_channel_due) and takes the oldest due few of each, so a
// claim costs the number of such channels, not the size of the backlog:
// ranking every due delivery made draining a backlog quadratic, and an
// excluded channel's backlog was read by every claim.
//
// The two algorithms are the drivers' (sqlite_claims.go,
// postgres_claims.go). On PostgreSQL the claims of every process are
// serialised, so that at most perChannel of a channel are in flight across
// the cluster, not per process.
func (c *Conn) ClaimDeliveries(ctx context.Context, now, leaseUntil time.Time, perChannel, limit int, exclude []string) ([]Delivery, error) {
	return c.drv.claimDeliveries(ctx, c, now, leaseUntil, perChannel, limit, exclude)
}

// CancelDelivery cancels one leased delivery (its channel was disabled or
// is no longer allowed by the plan).
func (c *Conn) CancelDelivery(ctx context.Context, d Delivery, now time.Time) error {
	err := c.execOne(ctx, `UPDATE deliveries SET status = ?, next_attempt_at = NULL, lease_until = 0, updated_at = ? WHERE id = ? AND lease_until = ? AND status = ?`,
		DeliveryCancelled, ms(now), d.ID, ms(d.LeaseUntil), DeliveryPending)
	if errors.Is(err, ErrNotFound) {
		return ErrLeaseLost
	}
	if err == nil && d.ChannelID == "" {
		return c.forgetSystemBody(ctx, d.ID)
	}
	return err
}

// forgetSystemBody empties the body of a system email that has ended: an
// invitation's carries the token of its link, which is otherwise stored
// only as a hash, and a system email is never redelivered.
func (c *Conn) forgetSystemBody(ctx context.Context, id string) error {
	if _, err := c.exec(ctx, `UPDATE deliveries SET body = ? WHERE id = ? AND channel_id IS NULL`, []byte("{}"), id); err != nil {
		return fmt.Errorf("store: forget the body of %s: %w", id, err)
	}
	return nil
}

// NextDeliveryDue is when the next pending delivery that nobody holds at
// now is due (false: none). Deliveries in flight do not count, so a retry
// due later is not hidden behind them.
func (c *Conn) NextDeliveryDue(ctx context.Context, now time.Time) (time.Time, bool, error) {
	var v sql.NullInt64
	if err := c.queryRow(ctx, `SELECT MIN(next_attempt_at) FROM deliveries WHERE `+duePending+` AND lease_until < ?`, ms(now)).Scan(&v); err != nil {
		return time.Time{}, false, fmt.Errorf("store: next delivery due: %w", err)
	}
	if !v.Valid {
		return time.Time{}, false, nil
	}
	return fromMS(v.Int64), true, nil
}

// CountPendingDeliveries counts deliveries still to be attempted.
func (c *Conn) CountPendingDeliveries(ctx context.Context) (int64, error) {
	var n int64
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM deliveries WHERE `+duePending).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count pending deliveries: %w", err)
	}
	return n, nil
}

// RecordAttempt stores an attempt and moves its delivery on: still pending
// (a.NextRetryAt set), delivered or failed. d must hold its lease, else it
// is ErrLeaseLost. A delivery that ends updates its channel's health.
func (c *Conn) RecordAttempt(ctx context.Context, d Delivery, a Attempt) error {
	status := DeliveryPending
	switch a.Outcome {
	case OutcomeDelivered:
		status = DeliveryDelivered
	case OutcomeFailed:
		status = DeliveryFailed
	}
	err := c.execOne(ctx, `UPDATE deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?, lease_until = 0, updated_at = ?
		WHERE id = ? AND lease_until = ? AND status = ?`, status, nullMS(a.NextRetryAt), ms(a.At), d.ID, ms(d.LeaseUntil), DeliveryPending)
	if errors.Is(err, ErrNotFound) {
		return ErrLeaseLost
	}
	if err != nil {
		return fmt.Errorf("store: record attempt of %s: %w", d.ID, err)
	}
	if err := c.insertAttempt(ctx, a); err != nil {
		return err
	}
	switch {
	case status == DeliveryPending:
		return nil
	case d.ChannelID == "":
		return c.forgetSystemBody(ctx, d.ID)
	}
	return c.recordHealth(ctx, d.ChannelID, status == DeliveryDelivered, a.At)
}

// InsertFinishedDelivery stores a delivery that was attempted once before
// it was stored (a channel test) with its attempt, and applies the outcome
// to the channel's health.
func (c *Conn) InsertFinishedDelivery(ctx context.Context, d Delivery, a Attempt) error {
	if err := c.InsertDelivery(ctx, d); err != nil {
		return err
	}
	if err := c.insertAttempt(ctx, a); err != nil {
		return err
	}
	return c.recordHealth(ctx, d.ChannelID, d.Status == DeliveryDelivered, a.At)
}

func (c *Conn) insertAttempt(ctx context.Context, a Attempt) error {
	_, err := c.exec(ctx, `INSERT INTO delivery_attempts (delivery_id, n, series, at, outcome, http_status, error_class, error, duration_ms, next_retry_at)
		VALUES (?, (SELECT COALESCE(MAX(n), 0) + 1 FROM delivery_attempts WHERE delivery_id = ?), ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.DeliveryID, a.DeliveryID, a.Series, ms(a.At), a.Outcome, a.HTTPStatus, a.ErrorClass, a.Error, a.Duration.Milliseconds(), nullMS(a.NextRetryAt))
	if err != nil {
		return fmt.Errorf("store: insert attempt of %s: %w", a.DeliveryID, err)
	}
	return nil
}

// Redeliver starts a new series of attempts of a finished delivery, due at
// now. A delivery still pending is ErrConflict.
func (c *Conn) Redeliver(ctx context.Context, id string, now time.Time) error {
	err := c.execOne(ctx, `UPDATE deliveries SET status = ?, series = series + 1, attempts = 0, next_attempt_at = ?, lease_until = 0, updated_at = ?
		WHERE id = ? AND status <> ?`, DeliveryPending, ms(now), ms(now), id, DeliveryPending)
	if errors.Is(err, ErrNotFound) {
		if _, gerr := c.DeliveryByID(ctx, id); gerr != nil {
			return gerr
		}
		return fmt.Errorf("store: redeliver %s: %w", id, ErrConflict)
	}
	return err
}

// CancelDeliveries cancels a channel's pending deliveries (the channel was
// disabled or is no longer allowed).
func (c *Conn) CancelDeliveries(ctx context.Context, channelID string, now time.Time) (int64, error) {
	res, err := c.exec(ctx, `UPDATE deliveries SET status = ?, next_attempt_at = NULL, lease_until = 0, updated_at = ? WHERE channel_id = ? AND status = ?`,
		DeliveryCancelled, ms(now), channelID, DeliveryPending)
	if err != nil {
		return 0, fmt.Errorf("store: cancel deliveries of %s: %w", channelID, err)
	}
	return res.RowsAffected()
}

// cancelSystemEmails cancels the pending system emails (no channel) of an
// event and subject not being sent.
const cancelSystemEmails = `UPDATE deliveries SET status = ?, next_attempt_at = NULL, lease_until = 0, updated_at = ?, body = ?
	WHERE id IN (SELECT id FROM deliveries WHERE subject_id = ? AND channel_id IS NULL) AND event = ? AND status = ? AND lease_until < ?`

// CancelSystemEmails cancels the pending system emails of event about
// subject that nobody is sending at now (an assignment's earlier emails
// about a group assigned again: only the last assignment's is wanted), and
// empties their bodies as an ended system email's.
func (c *Conn) CancelSystemEmails(ctx context.Context, event, subject string, now time.Time) (int64, error) {
	// The subject's system emails are found through deliveries_system
	// (subject_id, channel_id IS NULL): given the whole condition at once,
	// SQLite took deliveries_channel_lease (every pending email of no
	// channel), so that a bulk assignment of 10,000 groups read the 10,000
	// emails it had queued once per group.
	res, err := c.exec(ctx, cancelSystemEmails, DeliveryCancelled, ms(now), []byte("{}"), subject, event, DeliveryPending, ms(now))
	if err != nil {
		return 0, fmt.Errorf("store: cancel %s emails of %s: %w", event, subject, err)
	}
	return res.RowsAffected()
}

// ListDeliveries lists a channel's deliveries, newest first, without bodies.
// Tests (tst_) and the others (dlv_) share one log, so the order is that of
// the time-ordered part after the 4-character prefix, not of the whole id.
func (c *Conn) ListDeliveries(ctx context.Context, channelID, before string, limit int) ([]Delivery, error) {
	rows, err := c.query(ctx, `SELECT `+deliveryMeta+` FROM deliveries WHERE channel_id = ? AND (? = '' OR substr(id, 5) < substr(?, 5))
		ORDER BY substr(id, 5) DESC LIMIT ?`, channelID, before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list deliveries: %w", err)
	}
	return collect(rows, scanDeliveryMeta)
}

// AttemptsOf returns the attempts of the given deliveries, oldest first.
func (c *Conn) AttemptsOf(ctx context.Context, ids []string) (map[string][]Attempt, error) {
	out := make(map[string][]Attempt, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, v := range ids {
		args[i] = v
	}
	rows, err := c.query(ctx, `SELECT delivery_id, n, series, at, outcome, http_status, error_class, error, duration_ms, next_retry_at
		FROM delivery_attempts WHERE delivery_id IN (`+tuples(len(ids), "?")+`) ORDER BY delivery_id, n`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: delivery attempts: %w", err)
	}
	list, err := collect(rows, func(s interface{ Scan(...any) error }) (Attempt, error) {
		var a Attempt
		var at, dur int64
		var nr sql.NullInt64
		err := s.Scan(&a.DeliveryID, &a.N, &a.Series, &at, &a.Outcome, &a.HTTPStatus, &a.ErrorClass, &a.Error, &dur, &nr)
		a.At, a.Duration, a.NextRetryAt = fromMS(at), time.Duration(dur)*time.Millisecond, fromNullMS(nr)
		return a, err
	})
	for _, a := range list {
		out[a.DeliveryID] = append(out[a.DeliveryID], a)
	}
	return out, err
}

// ReleaseDeliveryLeases ends every delivery lease. Only for SQLite at
// start: one process owns the file, so leases left by a crash are void.
func (c *Conn) ReleaseDeliveryLeases(ctx context.Context) (int64, error) {
	res, err := c.exec(ctx, `UPDATE deliveries SET lease_until = 0 WHERE status = ? AND lease_until <> 0`, DeliveryPending)
	if err != nil {
		return 0, fmt.Errorf("store: release delivery leases: %w", err)
	}
	return res.RowsAffected()
}

// SystemEmailStatus returns the status of the system email about each of
// subjectIDs (an invitation's email by the invitation's id); a subject with
// no such email is absent.
func (c *Conn) SystemEmailStatus(ctx context.Context, subjectIDs []string) (map[string]string, error) {
	out := make(map[string]string, len(subjectIDs))
	if len(subjectIDs) == 0 {
		return out, nil
	}
	args := make([]any, len(subjectIDs))
	for i, v := range subjectIDs {
		args[i] = v
	}
	rows, err := c.query(ctx, `SELECT subject_id, status FROM deliveries WHERE channel_id IS NULL AND subject_id IN (`+tuples(len(subjectIDs), "?")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: system email status: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, status string
		if err := rows.Scan(&id, &status); err != nil {
			return nil, fmt.Errorf("store: system email status: %w", err)
		}
		out[id] = status
	}
	return out, rows.Err()
}
