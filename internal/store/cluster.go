package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Process is one running errata process of the installation.
type Process struct {
	ID        string
	Roles     []string
	Host      string
	PID       int
	StartedAt time.Time
	SeenAt    time.Time
}

// SeeProcess records that p is alive at p.SeenAt (inserting it the first
// time).
func (c *Conn) SeeProcess(ctx context.Context, p Process) error {
	_, err := c.exec(ctx, `INSERT INTO processes (id, roles, host, pid, started_at, seen_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at, roles = excluded.roles`,
		p.ID, strings.Join(p.Roles, ","), p.Host, p.PID, ms(p.StartedAt), ms(p.SeenAt))
	if err != nil {
		return fmt.Errorf("store: see process %s: %w", p.ID, err)
	}
	return nil
}

// ForgetProcess removes a process that stopped, and those not seen since
// stale (they died without saying so).
func (c *Conn) ForgetProcess(ctx context.Context, id string, stale time.Time) error {
	if _, err := c.exec(ctx, `DELETE FROM processes WHERE id = ? OR seen_at < ?`, id, ms(stale)); err != nil {
		return fmt.Errorf("store: forget process %s: %w", id, err)
	}
	return nil
}

// LiveProcesses lists the processes seen since since.
func (c *Conn) LiveProcesses(ctx context.Context, since time.Time) ([]Process, error) {
	rows, err := c.query(ctx, `SELECT id, roles, host, pid, started_at, seen_at FROM processes WHERE seen_at >= ? ORDER BY id`, ms(since))
	if err != nil {
		return nil, fmt.Errorf("store: live processes: %w", err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (Process, error) {
		var p Process
		var roles string
		var st, seen int64
		err := s.Scan(&p.ID, &roles, &p.Host, &p.PID, &st, &seen)
		p.Roles, p.StartedAt, p.SeenAt = strings.Split(roles, ","), fromMS(st), fromMS(seen)
		return p, err
	})
}

// AcquireLease takes or renews the lease name for holder until until, when
// nobody else holds it at now; it reports whether holder holds it.
func (c *Conn) AcquireLease(ctx context.Context, name, holder string, until, now time.Time) (bool, error) {
	var got string
	err := c.queryRow(ctx, `INSERT INTO leases (name, holder, until) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
		WHERE leases.until < ? OR leases.holder = excluded.holder
		RETURNING holder`, name, holder, ms(until), ms(now)).Scan(&got)
	if err == nil {
		return got == holder, nil
	}
	if errors.Is(err, ErrNotFound) {
		return false, nil // held by another: the conditional update changed nothing
	}
	return false, fmt.Errorf("store: lease %s: %w", name, err)
}

// ReleaseLease gives up the lease name if holder holds it.
func (c *Conn) ReleaseLease(ctx context.Context, name, holder string) error {
	if _, err := c.exec(ctx, `DELETE FROM leases WHERE name = ? AND holder = ?`, name, holder); err != nil {
		return fmt.Errorf("store: release lease %s: %w", name, err)
	}
	return nil
}
