package httpapi

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/errata-dev/errata/internal/emailaddr"
	"github.com/errata-dev/errata/internal/store"
)

// AuditActor is who made an audit log entry.
type AuditActor struct {
	UserID string `json:"user_id" doc:"usr_ identifier"`
	Email  string `json:"email"`
}

// AuditEntryView is one entry of an organization's audit log (CONTRACT 8).
type AuditEntryView struct {
	ID        string         `json:"id" doc:"aud_ identifier"`
	Actor     AuditActor     `json:"actor" doc:"Who did it (empty strings for Errata itself)"`
	Action    string         `json:"action" doc:"What happened, <thing>.<verb>; docs/security.md lists them"`
	Target    *string        `json:"target" nullable:"true" doc:"The identifier of what it happened to"`
	IP        string         `json:"ip" doc:"The client address of the request"`
	UserAgent string         `json:"user_agent" doc:"The user agent of the request"`
	Data      map[string]any `json:"data" doc:"Details: old and new values, names"`
	CreatedAt Timestamp      `json:"created_at"`
}

func auditView(e store.AuditEntry) AuditEntryView {
	v := AuditEntryView{ID: e.ID, Action: e.Action, IP: e.IP, UserAgent: e.UserAgent, CreatedAt: ts(e.CreatedAt), Data: map[string]any{}}
	v.Actor = AuditActor{UserID: e.ActorID, Email: e.ActorEmail}
	if e.Target != "" {
		v.Target = &e.Target
	}
	_ = json.Unmarshal(e.Data, &v.Data)
	return v
}

// AuditLogInput is the audit log listing's parameters.
type AuditLogInput struct {
	OrgPath
	ListParams
	Action string `query:"action" maxLength:"100" doc:"Only entries of this action, e.g. member.role_changed"`
	Actor  string `query:"actor" maxLength:"254" doc:"Only entries by this user: a usr_ identifier or an email address"`
}

func (s *Server) listAuditLog(ctx context.Context, in *AuditLogInput) (*struct{ Body *Page[AuditEntryView] }, error) {
	f := store.AuditFilter{Action: strings.TrimSpace(in.Action), Actor: strings.TrimSpace(in.Actor)}
	if strings.Contains(f.Actor, "@") {
		if e, err := emailaddr.Normalize(f.Actor); err == nil {
			f.Actor = e
		}
	}
	scope := "audit:" + in.OrgID + "\x00" + f.Action + "\x00" + f.Actor
	page, err := list(s, scope, in.ListParams, func(before string, limit int) ([]store.AuditEntry, error) {
		return s.db.Read().ListAudit(ctx, in.OrgID, f, before, limit)
	}, func(e store.AuditEntry) string { return e.ID }, auditView)
	return &struct{ Body *Page[AuditEntryView] }{page}, err
}
