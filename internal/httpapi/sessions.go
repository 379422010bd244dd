package httpapi

import (
	"context"

	"github.com/errata-dev/errata/internal/store"
)

// SessionView is one of the caller's sessions (CONTRACT 8).
type SessionView struct {
	ID         string    `json:"id" doc:"ses_ identifier"`
	CreatedAt  Timestamp `json:"created_at" doc:"When it signed in"`
	LastSeenAt Timestamp `json:"last_seen_at" doc:"Its last use, to the minute"`
	IP         string    `json:"ip" doc:"The client address it signed in from"`
	UserAgent  string    `json:"user_agent" doc:"The user agent it signed in with"`
	Method     string    `json:"method" enum:"password,oidc" doc:"How it signed in"`
	Current    bool      `json:"current" doc:"Whether this is the session of the request"`
}

func sessionView(current string) func(store.Session) SessionView {
	return func(s store.Session) SessionView {
		return SessionView{ID: s.ID, CreatedAt: ts(s.CreatedAt), LastSeenAt: ts(s.LastUsedAt), IP: s.IP, UserAgent: s.UserAgent,
			Method: s.Method, Current: s.ID == current}
	}
}

func (s *Server) listSessions(ctx context.Context, in *ListParams) (*struct{ Body *Page[SessionView] }, error) {
	p := principal(ctx)
	page, err := list(s, "sessions:"+p.User.ID, *in, func(before string, limit int) ([]store.Session, error) {
		return s.auth.Sessions(ctx, p.User.ID, before, limit)
	}, func(v store.Session) string { return v.ID }, sessionView(p.Session.ID))
	return &struct{ Body *Page[SessionView] }{page}, err
}

// SessionPath names a session.
type SessionPath struct {
	SessionID string `path:"session_id" doc:"ses_ identifier"`
}

func (s *Server) endSession(ctx context.Context, in *SessionPath) (*struct{}, error) {
	return nil, s.auth.EndSession(ctx, principal(ctx).User, in.SessionID)
}

// PasswordInput is the body of a password change.
type PasswordInput struct {
	Body struct {
		CurrentPassword string `json:"current_password" maxLength:"256" text:"secret"`
		NewPassword     string `json:"new_password" minLength:"8" maxLength:"256" text:"secret" doc:"8 to 256 characters"`
	}
}

func (s *Server) changePassword(ctx context.Context, in *PasswordInput) (*struct{}, error) {
	p := principal(ctx)
	return nil, s.auth.ChangePassword(ctx, p.User, p.Session.ID, in.Body.CurrentPassword, in.Body.NewPassword)
}
