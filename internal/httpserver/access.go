package httpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// SessionCookie is the dashboard's session cookie.
const SessionCookie = "errata_session"

// SchemeSession names the OpenAPI security scheme of the management
// operations: a session token or a personal API token as a bearer token.
const SchemeSession = "session"

// SchemeAPIKey names the OpenAPI security scheme of the ingestion endpoints
// (a project API key as a bearer token), for packages that document theirs.
const SchemeAPIKey = "apiKey"

// Access is what an operation demands of its caller. Every operation states
// it in its registration (internal/httpapi/routes.go) and one middleware
// enforces it, in the order of CONTRACT section 6: 401, then 404, then 403.
type Access struct {
	// Public operations take no credential.
	Public bool
	// Scope is the path parameter that names the resource whose organization
	// the caller must belong to ("" for none).
	Scope string
	// Min is the lowest role allowed.
	Min org.Role
	// AuthorOr, with the comment_id scope, allows only the comment's
	// author or a caller of at least this role (0: no such rule); checked
	// here, before the body, so that 403 comes before 400 and 422.
	AuthorOr org.Role
	// TokenScope is what a personal API token needs for the operation ("" for
	// none: tokens cannot call it); the REST API's register sets it from the
	// path.
	TokenScope string
}

// Principal is the authenticated caller of a session-token operation.
type Principal struct {
	User      store.User
	Session   store.Session
	ViaCookie bool
	// Token is the personal API token of the request, nil for a session.
	Token *store.APIToken
	// Member is the caller's membership of the scoped organization.
	Member store.Member
}

type principalKey struct{}

// PrincipalOf returns the caller of ctx; only operations that are not
// Public may call it.
func PrincipalOf(ctx context.Context) *Principal {
	return ctx.Value(principalKey{}).(*Principal)
}

// scopes resolve a path parameter to the organization that owns it.
func (s *Server) scopeOrg(ctx context.Context, param, value string) (string, error) {
	c := s.db.Read()
	switch param {
	case "org_id":
		if !id.Valid(id.Org, value) {
			return "", store.ErrNotFound
		}
		o, err := c.OrgByID(ctx, value)
		return o.ID, err
	case "project_id":
		if !id.Valid(id.Project, value) {
			return "", store.ErrNotFound
		}
		p, err := c.ProjectByID(ctx, value)
		return p.OrgID, err
	case "member_id":
		if !id.Valid(id.Member, value) {
			return "", store.ErrNotFound
		}
		m, err := c.MemberByID(ctx, value)
		return m.OrgID, err
	case "invitation_id":
		if !id.Valid(id.Invitation, value) {
			return "", store.ErrNotFound
		}
		i, err := c.InvitationByID(ctx, value)
		return i.OrgID, err
	case "key_id":
		if !id.Valid(id.Key, value) {
			return "", store.ErrNotFound
		}
		k, err := c.APIKeyByID(ctx, value)
		if err != nil {
			return "", err
		}
		p, err := c.ProjectByID(ctx, k.ProjectID)
		return p.OrgID, err
	case "ticket_id":
		if !id.Valid(id.Ticket, value) {
			return "", store.ErrNotFound
		}
		t, err := c.TicketByID(ctx, value)
		if err != nil {
			return "", err
		}
		return s.projectOrg(ctx, t.ProjectID)
	case "group_id":
		if !id.Valid(id.Group, value) {
			return "", store.ErrNotFound
		}
		g, err := c.GroupByID(ctx, value)
		if err != nil {
			return "", err
		}
		return s.projectOrg(ctx, g.ProjectID)
	case "comment_id":
		if !id.Valid(id.Comment, value) {
			return "", store.ErrNotFound
		}
		m, err := c.CommentByID(ctx, value)
		if err != nil {
			return "", err
		}
		g, err := c.GroupByID(ctx, m.GroupID)
		if err != nil {
			return "", err
		}
		return s.projectOrg(ctx, g.ProjectID)
	case "event_id":
		n, ok := id.ParseEvent(value)
		if !ok {
			return "", store.ErrNotFound
		}
		e, err := c.GroupEventByID(ctx, n)
		if err != nil {
			return "", err
		}
		g, err := c.GroupByID(ctx, e.GroupID)
		if err != nil {
			return "", err
		}
		return s.projectOrg(ctx, g.ProjectID)
	case "summary_id":
		if !id.Valid(id.InfoSummary, value) {
			return "", store.ErrNotFound
		}
		v, err := c.InfoSummaryByID(ctx, value)
		if err != nil {
			return "", err
		}
		return s.projectOrg(ctx, v.ProjectID)
	case "channel_id":
		if !id.Valid(id.Channel, value) {
			return "", store.ErrNotFound
		}
		ch, err := c.ChannelByID(ctx, value)
		if err != nil {
			return "", err
		}
		return s.projectOrg(ctx, ch.ProjectID)
	case "release_id":
		if !id.Valid(id.Release, value) {
			return "", store.ErrNotFound
		}
		r, err := c.ReleaseByID(ctx, value)
		if err != nil {
			return "", err
		}
		return s.projectOrg(ctx, r.ProjectID)
	case "delivery_id":
		if !id.Valid(id.Delivery, value) && !id.Valid(id.TestDelivery, value) {
			return "", store.ErrNotFound
		}
		d, err := c.DeliveryByID(ctx, value)
		if err != nil {
			return "", err
		}
		return s.projectOrg(ctx, d.ProjectID)
	}
	panic("httpserver: unknown access scope " + param)
}

func (s *Server) projectOrg(ctx context.Context, projectID string) (string, error) {
	p, err := s.db.Read().ProjectByID(ctx, projectID)
	return p.OrgID, err
}

// access is the huma middleware that authenticates and authorizes every
// operation by the Access in its metadata.
func (s *Server) access(ctx huma.Context, next func(huma.Context)) {
	a, _ := ctx.Operation().Metadata["access"].(Access)
	if a.Public {
		if err := checkUTF8Body(ctx); err != nil {
			s.fail(ctx, err)
			return
		}
		next(ctx)
		return
	}
	r, _ := humago.Unwrap(ctx)
	p, err := s.authenticate(r)
	if err != nil {
		err = s.chargeAddress(ctx, r, err)
	}
	if err == nil && a.Scope != "" {
		err = s.authorize(r.Context(), a, ctx.Param(a.Scope), p)
	}
	if err == nil && p.Token != nil && a.Scope == "" {
		err = checkTokenScope(p.Token, a.TokenScope)
	}
	if err == nil {
		err = checkUTF8Body(ctx)
	}
	if err != nil {
		s.fail(ctx, err)
		return
	}
	next(huma.WithValue(ctx, principalKey{}, p))
}

// chargeAddress spends a token of the client address's bucket for a
// request whose credential proved nothing (unauthErr): the limit is per
// credential, and a client sending a new random token each time would
// otherwise never meet one. Past the address's limit the answer is 429.
func (s *Server) chargeAddress(ctx huma.Context, r *http.Request, unauthErr error) error {
	var pr *problem.Problem
	if !errors.As(unauthErr, &pr) || pr.Status != http.StatusUnauthorized || !strings.HasPrefix(callerKey(r), "t:") {
		return unauthErr // no credential: the address's bucket was spent already
	}
	res := s.callers.Allow("ip:" + info(r.Context()).key)
	if res.Allowed {
		return unauthErr
	}
	h := http.Header{}
	res.SetHeaders(h)
	for k := range h {
		ctx.SetHeader(k, h.Get(k))
	}
	return problem.New("rate-limited", "too many requests with credentials that are not valid from this address; wait Retry-After seconds").RetryAfter(res.RetryAfter)
}

// authenticate finds the session of the request's bearer token or cookie.
func (s *Server) authenticate(r *http.Request) (*Principal, error) {
	tok, viaCookie := Bearer(r), false
	if h := r.Header.Get("Authorization"); h != "" && tok == "" {
		return nil, auth.Unauthorized("the Authorization header must be Bearer <session token>")
	}
	if tok == "" {
		if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
			tok, viaCookie = c.Value, true
		}
	}
	if tok == "" {
		return nil, auth.Unauthorized("this endpoint needs a session token: Authorization: Bearer <token>")
	}
	if auth.IsAPIKey(tok) {
		return nil, auth.Unauthorized("this endpoint takes a session token, not a project API key; API keys are for ingestion only")
	}
	if auth.IsToken(tok) && !viaCookie {
		u, t, err := s.auth.AuthenticateToken(r.Context(), tok)
		if err != nil {
			return nil, err
		}
		actor(r, u) // a token acts as its user, in the audit log too
		return &Principal{User: u, Token: &t}, nil
	}
	if viaCookie && !isSafe(r.Method) {
		if err := s.CheckOrigin(r); err != nil {
			return nil, err
		}
	}
	u, sess, err := s.auth.Authenticate(r.Context(), tok)
	if err != nil {
		return nil, err
	}
	actor(r, u)
	return &Principal{User: u, Session: sess, ViaCookie: viaCookie}, nil
}

// actor makes u the actor of what r's handling writes to the audit log.
func actor(r *http.Request, u store.User) {
	ar := audit.From(r.Context())
	ar.UserID, ar.Email = u.ID, u.Email
}

// authorize checks membership of the organization owning value, a resource
// id of the kind a.Scope names (404 when absent, so that other
// organizations' resources stay invisible), and the minimum role (403).
func (s *Server) authorize(ctx context.Context, a Access, value string, p *Principal) error {
	if a.Scope == "" {
		return nil
	}
	orgID, err := s.scopeOrg(ctx, a.Scope, value)
	if err == nil {
		p.Member, err = s.db.Read().MemberOf(ctx, orgID, p.User.ID)
	}
	if errors.Is(err, store.ErrNotFound) {
		return problem.Newf("not-found", "%s %q does not exist", strings.TrimSuffix(a.Scope, "_id"), value)
	}
	if err != nil {
		return err
	}
	if p.Token != nil { // a token's scopes, then its user's role
		if err := checkTokenScope(p.Token, a.TokenScope); err != nil {
			return err
		}
	}
	if err := s.signInRules(ctx, orgID, p); err != nil {
		return err
	}
	role, _ := org.ParseRole(p.Member.Role)
	if !role.AtLeast(a.Min) {
		return problem.Newf("forbidden", "this operation takes the %s role or higher; yours is %s", a.Min, role)
	}
	if a.AuthorOr != 0 && a.Scope == "comment_id" && !role.AtLeast(a.AuthorOr) {
		m, err := s.db.Read().CommentByID(ctx, value)
		if err != nil {
			return err
		}
		if m.AuthorID != p.Member.ID {
			return problem.Newf("forbidden", "only the comment's author or an %s may change it", a.AuthorOr)
		}
	}
	return nil
}

// fail answers a middleware error through the same mapping as handlers.
func (s *Server) fail(ctx huma.Context, err error) {
	p := toProblem(ctx.Context(), http.StatusInternalServerError, "", []error{err})
	for k, vs := range p.GetHeaders() {
		for _, v := range vs {
			ctx.AppendHeader(k, v)
		}
	}
	ctx.SetHeader("Content-Type", problem.ContentType)
	ctx.SetStatus(p.Status)
	_ = json.NewEncoder(ctx.BodyWriter()).Encode(p)
}

// Bearer returns the token of an "Authorization: Bearer" header, or "".
func Bearer(r *http.Request) string { return BearerToken(r.Header.Get("Authorization")) }

// BearerToken returns the token of an Authorization value "Bearer <token>"
// (the scheme in any letter case), or "": the one parser of the HTTP
// header and of gRPC's authorization metadata.
func BearerToken(h string) string {
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

func isSafe(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// signInRules applies the organization's sign-in rules to a member: with
// sso_required only sessions that signed in through OpenID Connect (and
// tokens made from such a session), with require_2fa only accounts with
// two-factor sign-in (CONTRACT 8).
func (s *Server) signInRules(ctx context.Context, orgID string, p *Principal) error {
	o, err := s.db.Read().OrgByID(ctx, orgID)
	if err != nil {
		return err
	}
	method := p.Session.Method
	if p.Token != nil {
		method = p.Token.SignInMethod
	}
	if o.SSORequired && method != store.SignInOIDC {
		if p.Token != nil {
			return problem.New("sso-required", "this organization requires single sign-on: this token was made from a session that did not sign in through it; sign in through it and make a new token")
		}
		return problem.New("sso-required", "this organization requires single sign-on: sign in through it to reach its resources")
	}
	if o.Require2FA && !p.User.HasTOTP() {
		return problem.New("2fa-required", "this organization requires two-factor sign-in: turn it on for your account (POST /v1/auth/totp) to reach its resources")
	}
	return nil
}

// checkTokenScope answers 403 insufficient-scope when the token lacks the
// scope an operation needs ("" for an operation tokens cannot call).
// need may offer alternatives: "project:read or project:releases".
func checkTokenScope(t *store.APIToken, need string) error {
	if need == "" {
		return problem.New("insufficient-scope", "API tokens cannot be used for this operation; sign in instead")
	}
	for _, sc := range strings.Split(need, " or ") {
		if slices.Contains(t.Scopes, sc) {
			return nil
		}
	}
	return problem.Newf("insufficient-scope", "this operation needs a token with the %s scope; this token has %s", need, strings.Join(t.Scopes, ", "))
}
