package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/errata-dev/errata/internal/auth"
)

// SignUpInput is the body of sign-up.
type SignUpInput struct {
	Body struct {
		Email           string `json:"email" maxLength:"254" doc:"Email address; also the sign-in name"`
		Password        string `json:"password" minLength:"8" maxLength:"256" text:"secret" doc:"8 to 256 characters"`
		Name            string `json:"name" minLength:"1" maxLength:"100" pattern:"\\S" doc:"Display name: 1 to 100 characters, not blank"`
		InvitationToken string `json:"invitation_token,omitempty" doc:"Needed unless this is the first user or sign-up is open; accepts the invitation"`
	}
}

// SignInInput is the body of sign-in.
type SignInInput struct {
	Body struct {
		Email    string `json:"email" maxLength:"254"`
		Password string `json:"password" maxLength:"256" text:"secret"`
		Code     string `json:"code,omitempty" maxLength:"64" doc:"With two-factor sign-in: the authenticator's 6-digit code, or one of the recovery codes (each works once)"`
	}
}

// SignedIn is the answer of sign-up and sign-in.
type SignedIn struct {
	SetCookie http.Cookie `header:"Set-Cookie" doc:"The dashboard's errata_session cookie, carrying the same session"`
	Body      struct {
		Token string   `json:"token" doc:"Session token: send as Authorization: Bearer <token>. Shown only here."`
		User  UserView `json:"user"`
	}
}

func (s *Server) signed(sg auth.Signed) *SignedIn {
	out := &SignedIn{SetCookie: s.sessionCookie(sg.Token, sg.Session.ExpiresAt)}
	out.Body.Token, out.Body.User = sg.Token, userView(sg.User)
	return out
}

func (s *Server) signUp(ctx context.Context, in *SignUpInput) (*SignedIn, error) {
	sg, err := s.auth.SignUp(ctx, auth.SignUpInput{Email: in.Body.Email, Password: in.Body.Password, Name: in.Body.Name, InvitationToken: in.Body.InvitationToken})
	if err != nil {
		return nil, err
	}
	return s.signed(sg), nil
}

func (s *Server) signIn(ctx context.Context, in *SignInInput) (*SignedIn, error) {
	sg, err := s.auth.SignIn(ctx, auth.SignInInput{Email: in.Body.Email, Password: in.Body.Password, Code: in.Body.Code, ClientKey: clientKey(ctx)})
	if err != nil {
		return nil, err
	}
	return s.signed(sg), nil
}

// SignedOut clears the cookie.
type SignedOut struct {
	SetCookie http.Cookie `header:"Set-Cookie"`
}

func (s *Server) signOut(ctx context.Context, _ *struct{}) (*SignedOut, error) {
	if err := s.auth.SignOut(ctx, principal(ctx).Session.ID); err != nil {
		return nil, err
	}
	return &SignedOut{SetCookie: s.sessionCookie("", time.Time{})}, nil
}

// SessionOutput is the current session.
type SessionOutput struct {
	Body struct {
		User    UserView `json:"user"`
		Session struct {
			ExpiresAt Timestamp `json:"expires_at" doc:"Moves 30 days ahead on use"`
		} `json:"session"`
	}
}

func (s *Server) getSession(ctx context.Context, _ *struct{}) (*SessionOutput, error) {
	p := principal(ctx)
	out := &SessionOutput{}
	out.Body.User = userView(p.User)
	out.Body.Session.ExpiresAt = ts(p.Session.ExpiresAt)
	return out, nil
}
