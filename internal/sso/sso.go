// Package sso signs people in through an OpenID Connect provider (CONTRACT
// 8): the authorization code flow with PKCE, state and nonce, through
// github.com/coreos/go-oidc and golang.org/x/oauth2. It trusts only an
// email the provider marks verified.
package sso

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// CallbackPath is the redirect URI's path under the app URL.
const CallbackPath = "/auth/oidc/callback"

// Options configure a Client.
type Options struct {
	Issuer, ClientID, ClientSecret string
	// AppURL is the dashboard's public URL; the redirect URI is
	// AppURL + CallbackPath.
	AppURL string
	// HTTPClient talks to the provider (nil: a client whose requests end
	// after Timeout).
	HTTPClient *http.Client
	// Timeout bounds each request to the provider when HTTPClient is nil
	// (default DefaultTimeout): a provider that accepts connections and
	// never answers must not hold sign-ins, each waiting behind the
	// discovery before it, for ever.
	Timeout time.Duration
}

// DefaultTimeout is Options.Timeout's default.
const DefaultTimeout = 10 * time.Second

// retryDiscovery is how long a failed discovery is the answer without
// asking the provider again: sign-ins that waited behind it are told at
// once rather than each after its own timeout.
const retryDiscovery = 5 * time.Second

// FlowTTL is how long a sign-in may take from the redirect to the
// provider to the callback.
const FlowTTL = 10 * time.Minute

// Client is Errata as an OpenID Connect relying party. The provider's
// discovery document is fetched on first use and kept once it answered,
// so Errata starts even when the provider is down.
type Client struct {
	opts     Options
	mu       sync.Mutex
	provider *oidc.Provider
	// failed is the last discovery's error, at failedAt.
	failed   error
	failedAt time.Time
}

// New returns a Client.
func New(opts Options) *Client {
	if opts.HTTPClient == nil {
		if opts.Timeout <= 0 {
			opts.Timeout = DefaultTimeout
		}
		opts.HTTPClient = &http.Client{Timeout: opts.Timeout}
	}
	return &Client{opts: opts}
}

// ErrUnverified is the answer for an identity whose email the provider
// does not mark verified: it is not trusted.
var ErrUnverified = errors.New("sso: the provider did not verify the email address")

// ErrRefused is a sign-in's answer that does not hold for this sign-in:
// the provider refused its code (used twice, or with another verifier) or
// the ID token carries another sign-in's nonce. The person starts again;
// the provider did not fail.
var ErrRefused = errors.New("sso: the sign-in's answer does not hold")

// ctx carries the client to go-oidc and oauth2, which read it there.
func (c *Client) ctx(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, c.opts.HTTPClient)
}

// discover reads the provider's discovery document once it answers; a
// failure is the answer for retryDiscovery.
func (c *Client) discover(ctx context.Context) (*oidc.Provider, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.provider != nil {
		return c.provider, nil
	}
	if c.failed != nil && time.Since(c.failedAt) < retryDiscovery {
		return nil, c.failed
	}
	// Not cut short by the request that asked (its browser gone): the
	// failure would be every sign-in's answer for retryDiscovery. The
	// client's timeout bounds it.
	p, err := oidc.NewProvider(c.ctx(context.WithoutCancel(ctx)), c.opts.Issuer)
	if err != nil {
		c.failed, c.failedAt = fmt.Errorf("sso: discover %s: %w", c.opts.Issuer, err), time.Now()
		return nil, c.failed
	}
	c.provider, c.failed = p, nil
	return p, nil
}

func (c *Client) oauth(p *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{ClientID: c.opts.ClientID, ClientSecret: c.opts.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: c.opts.AppURL + CallbackPath, Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
}

// Flow is one sign-in's secrets, kept by the browser between the redirect
// to the provider and the callback (in a signed, HttpOnly cookie).
type Flow struct {
	State, Nonce, Verifier string
	// Next is the dashboard page to return to.
	Next string
	// Began is when the flow began (Unix seconds): the callback refuses a
	// flow older than FlowTTL, whatever the cookie's own lifetime.
	Began int64
}

// NewFlow makes a flow with fresh random secrets, begun at now.
func NewFlow(next string, now time.Time) Flow {
	return Flow{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier(), Next: next, Began: now.Unix()}
}

// Expired reports whether f began more than FlowTTL before now.
func (f Flow) Expired(now time.Time) bool {
	return now.Sub(time.Unix(f.Began, 0)) > FlowTTL
}

func random() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// AuthURL is the provider's authorization URL for f: code flow, PKCE
// (S256), state and nonce.
func (c *Client) AuthURL(ctx context.Context, f Flow) (string, error) {
	p, err := c.discover(ctx)
	if err != nil {
		return "", err
	}
	return c.oauth(p).AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier)), nil
}

// Identity is who the provider signed in.
type Identity struct {
	Subject, Email, Name string
}

// claims are the ID token's (or userinfo's) claims Errata reads.
// email_verified is a boolean, or a string at some providers.
type claims struct {
	Nonce         string          `json:"nonce"`
	Email         string          `json:"email"`
	EmailVerified json.RawMessage `json:"email_verified"`
	Name          string          `json:"name"`
}

func (cl claims) verified() bool {
	var b bool
	if json.Unmarshal(cl.EmailVerified, &b) == nil {
		return b
	}
	var s string
	return json.Unmarshal(cl.EmailVerified, &s) == nil && s == "true"
}

// Exchange trades the callback's code for tokens (with f's PKCE verifier),
// verifies the ID token (signature, issuer, audience, expiry) and its
// nonce, and returns the identity; the userinfo endpoint completes the
// claims when the ID token lacks the email. An email the provider does
// not mark verified is ErrUnverified, with the identity as claimed.
func (c *Client) Exchange(ctx context.Context, f Flow, code string) (Identity, error) {
	p, err := c.discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	ctx = c.ctx(ctx)
	conf := c.oauth(p)
	tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(f.Verifier))
	if re := (*oauth2.RetrieveError)(nil); errors.As(err, &re) && re.Response != nil && re.Response.StatusCode >= 400 && re.Response.StatusCode < 500 {
		// invalid_grant and the like: a code used twice, or a verifier not
		// the one the flow began with.
		return Identity{}, fmt.Errorf("%w: the provider refused the code: %w", ErrRefused, err)
	}
	if err != nil {
		return Identity{}, fmt.Errorf("sso: exchange the code: %w", err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok {
		return Identity{}, errors.New("sso: the provider answered no id_token")
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: c.opts.ClientID}).Verify(ctx, raw)
	if err != nil {
		return Identity{}, fmt.Errorf("sso: the ID token: %w", err)
	}
	var cl claims
	if err := idt.Claims(&cl); err != nil {
		return Identity{}, fmt.Errorf("sso: the ID token's claims: %w", err)
	}
	if cl.Nonce != f.Nonce {
		return Identity{}, fmt.Errorf("%w: the ID token's nonce is not this sign-in's", ErrRefused)
	}
	if cl.Email == "" {
		info, err := p.UserInfo(ctx, conf.TokenSource(ctx, tok))
		if err != nil {
			return Identity{}, fmt.Errorf("sso: userinfo: %w", err)
		}
		if info.Subject != idt.Subject {
			return Identity{}, errors.New("sso: userinfo is about another subject")
		}
		if err := info.Claims(&cl); err != nil {
			return Identity{}, fmt.Errorf("sso: userinfo's claims: %w", err)
		}
	}
	if cl.Email == "" || !cl.verified() {
		// The identity, for the audit log of an account of that address.
		return Identity{Subject: idt.Subject, Email: cl.Email, Name: cl.Name}, ErrUnverified
	}
	return Identity{Subject: idt.Subject, Email: cl.Email, Name: cl.Name}, nil
}
