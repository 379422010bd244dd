package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Window is one limit of a quota: at most Max uses within Span.
type Window struct {
	Span time.Duration
	Max  int
}

// QuotaKeep is how long a quota's uses are kept: longer than any window.
const QuotaKeep = 48 * time.Hour

// TakeQuota records one use of quota by subject at now, in c's transaction,
// unless a window already holds its Max uses; then it records nothing and
// reports false with the wait until a use leaves the fullest window (the
// Retry-After). Takers of one quota and subject are serialised until the
// transaction ends, on PostgreSQL by an advisory lock, on SQLite by its one
// writer, so that concurrent requests in any number of processes cannot
// overshoot a limit together; the uses are rows, so limits hold across
// restarts. A use rolled back with its transaction was never taken.
func (c *Conn) TakeQuota(ctx context.Context, quota, subject string, now time.Time, windows ...Window) (bool, time.Duration, error) {
	if err := c.lockSubject(ctx, quota+":"+subject); err != nil {
		return false, 0, err
	}
	var longest time.Duration
	for _, w := range windows {
		longest = max(longest, w.Span)
	}
	if _, err := c.exec(ctx, `DELETE FROM quota_uses WHERE quota = ? AND subject = ? AND at <= ?`, quota, subject, ms(now.Add(-longest))); err != nil {
		return false, 0, fmt.Errorf("store: quota %s: %w", quota, err)
	}
	var wait time.Duration
	for _, w := range windows {
		since := ms(now.Add(-w.Span))
		var n int
		if err := c.queryRow(ctx, `SELECT COUNT(*) FROM quota_uses WHERE quota = ? AND subject = ? AND at > ?`, quota, subject, since).Scan(&n); err != nil {
			return false, 0, fmt.Errorf("store: quota %s: %w", quota, translate(err))
		}
		if n < w.Max {
			continue
		}
		// The window has room again when its (n-Max+1)th oldest use leaves it.
		var at int64
		if err := c.queryRow(ctx, `SELECT at FROM quota_uses WHERE quota = ? AND subject = ? AND at > ? ORDER BY at LIMIT 1 OFFSET ?`,
			quota, subject, since, n-w.Max).Scan(&at); err != nil {
			return false, 0, fmt.Errorf("store: quota %s: %w", quota, translate(err))
		}
		// A use newer than now (its taker read its clock after this one,
		// then had the lock first) waits no longer than the span.
		wait = max(wait, min(fromMS(at).Add(w.Span).Sub(now), w.Span), time.Millisecond)
	}
	if wait > 0 {
		return false, wait, nil
	}
	if _, err := c.exec(ctx, `INSERT INTO quota_uses (quota, subject, at) VALUES (?, ?, ?)`, quota, subject, ms(now)); err != nil {
		return false, 0, fmt.Errorf("store: quota %s: %w", quota, err)
	}
	return true, 0, nil
}

// turnWait bounds how long a transaction waits on PostgreSQL for its turn
// under a lock that serialises short work (a quota's or session cap's
// subject, an organization's or project's row), instead of the session's
// 10 s lock_timeout: the turns are short, but a burst of one
// organization's requests queues them deep, and on a loaded database 20 of
// them took longer than 10 s. A holder that stopped does not keep the queue
// waiting that long: its session ends at idle_in_transaction_session_timeout
// (15 s).
const turnWait = 30 * time.Second

// lockSubject serialises, until the end of c's transaction, the
// transactions that lock the same name: an advisory lock on PostgreSQL
// (waited for up to turnWait); on SQLite a write transaction is
// already the only writer.
func (c *Conn) lockSubject(ctx context.Context, name string) error {
	if c.tx == nil {
		return errors.New("store: a quota or session cap needs a transaction")
	}
	err := c.drv.waitTurn(ctx, c, turnWait, func() error { return c.drv.lockName(ctx, c, 3, name) })
	if err != nil {
		return fmt.Errorf("store: lock %s: %w", name, err)
	}
	return nil
}

// ForgetQuota deletes the recorded uses of quota by subject, so that its
// limit starts afresh: for tools and tests that cannot wait out a window.
func (c *Conn) ForgetQuota(ctx context.Context, quota, subject string) error {
	if _, err := c.exec(ctx, `DELETE FROM quota_uses WHERE quota = ? AND subject = ?`, quota, subject); err != nil {
		return fmt.Errorf("store: forget quota %s: %w", quota, err)
	}
	return nil
}
