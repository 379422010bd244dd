package store

import (
	"context"
	"fmt"
	"time"
)

// AuditEntry is one line of an organization's audit log. Data is a JSON
// object.
type AuditEntry struct {
	ID, OrgID           string
	ActorID, ActorEmail string
	Action, Target      string
	IP, UserAgent       string
	Data                []byte
	CreatedAt           time.Time
}

// AuditKept is how long the audit log keeps an entry (CONTRACT 8).
const AuditKept = 365 * 24 * time.Hour

const auditCols = `id, organization_id, actor_id, actor_email, action, target, ip, user_agent, data, created_at`

func scanAudit(r interface{ Scan(...any) error }) (AuditEntry, error) {
	var e AuditEntry
	var data string
	var at int64
	if err := r.Scan(&e.ID, &e.OrgID, &e.ActorID, &e.ActorEmail, &e.Action, &e.Target, &e.IP, &e.UserAgent, &data, &at); err != nil {
		return AuditEntry{}, err
	}
	e.Data, e.CreatedAt = []byte(data), fromMS(at)
	return e, nil
}

// AddAudit inserts e.
func (c *Conn) AddAudit(ctx context.Context, e AuditEntry) error {
	_, err := c.exec(ctx, `INSERT INTO audit_log (`+auditCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.ID, e.OrgID, e.ActorID, e.ActorEmail, e.Action, e.Target, e.IP, e.UserAgent, string(e.Data), ms(e.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: add audit entry: %w", err)
	}
	return nil
}

// AuditFilter narrows an audit log listing; empty fields do not.
type AuditFilter struct {
	Action string
	// Actor is a user id or an email address.
	Actor string
}

// ListAudit lists an organization's audit log, newest first, below the id
// before ("" for the first page).
func (c *Conn) ListAudit(ctx context.Context, orgID string, f AuditFilter, before string, limit int) ([]AuditEntry, error) {
	rows, err := c.query(ctx, `SELECT `+auditCols+` FROM audit_log WHERE organization_id = ?
		AND (? = '' OR action = ?) AND (? = '' OR actor_id = ? OR actor_email = ?) AND (? = '' OR id < ?)
		ORDER BY id DESC LIMIT ?`, orgID, f.Action, f.Action, f.Actor, f.Actor, f.Actor, before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list audit log: %w", err)
	}
	return collect(rows, scanAudit)
}

// OrgsOfUserIDs lists the ids of every organization userID belongs to.
func (c *Conn) OrgsOfUserIDs(ctx context.Context, userID string) ([]string, error) {
	rows, err := c.query(ctx, `SELECT organization_id FROM members WHERE user_id = ? ORDER BY organization_id`, userID)
	if err != nil {
		return nil, fmt.Errorf("store: organizations of %s: %w", userID, err)
	}
	return collect(rows, func(r interface{ Scan(...any) error }) (string, error) {
		var s string
		return s, r.Scan(&s)
	})
}
