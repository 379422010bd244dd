package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
)

// Entry is a change to record. The actor, address and user agent come from
// the request in the context (From) unless ActorID is set.
type Entry struct {
	OrgID string
	// Action names what happened, "<thing>.<verb>": "member.role_changed".
	Action string
	// Target is the id of what it happened to ("" for none).
	Target string
	// Data says more: old and new values, names. nil for nothing.
	Data map[string]any
	// ActorID and ActorEmail name the actor when it is not the request's
	// signed-in user (a sign-in names the account it tried).
	ActorID, ActorEmail string
	// At is when it happened (the caller's clock); zero for now.
	At time.Time
}

// Record writes e to its organization's audit log through c: call it with
// the transaction's Conn of the change it records, so that both commit or
// neither does.
func Record(ctx context.Context, c *store.Conn, e Entry) error {
	r := From(ctx)
	actorID, email := r.UserID, r.Email
	if e.ActorID != "" || e.ActorEmail != "" {
		actorID, email = e.ActorID, e.ActorEmail
	}
	data := []byte("{}")
	if len(e.Data) > 0 {
		b, err := json.Marshal(e.Data)
		if err != nil {
			return fmt.Errorf("audit: encode %s data: %w", e.Action, err)
		}
		data = b
	}
	now := e.At
	if now.IsZero() {
		now = time.Now()
	}
	now = now.UTC().Truncate(time.Millisecond)
	return c.AddAudit(ctx, store.AuditEntry{ID: id.New(id.Audit), OrgID: e.OrgID, ActorID: actorID, ActorEmail: email,
		Action: e.Action, Target: e.Target, IP: r.IP, UserAgent: r.UserAgent, Data: data, CreatedAt: now})
}

// RecordUser writes e to the audit log of every organization userID belongs
// to: a change of the account (a sign-in, two-factor sign-in turned on)
// concerns each of them.
//
// A change made without a signed-in request (a sign-in ending the oldest
// sessions beyond the cap, an email verified through its link) is the
// account's own: the entry names the account as its actor, so that
// ?actor= finds it.
func RecordUser(ctx context.Context, c *store.Conn, userID string, e Entry) error {
	orgs, err := c.OrgsOfUserIDs(ctx, userID)
	if err != nil || len(orgs) == 0 {
		return err
	}
	if e.ActorID == "" && e.ActorEmail == "" && From(ctx).UserID == "" {
		u, err := c.UserByID(ctx, userID)
		if err != nil {
			return err
		}
		e.ActorID, e.ActorEmail = u.ID, u.Email
	}
	for _, o := range orgs {
		e.OrgID = o
		if err := Record(ctx, c, e); err != nil {
			return err
		}
	}
	return nil
}
