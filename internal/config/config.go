// Package config holds every ERRATA_* setting in one struct. Kong fills it
// from flags and the environment (flags win); Validate checks it once so that
// a bad value stops start-up with one clear line.
package config

import (
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/emailaddr"
	"github.com/errata-dev/errata/internal/summary"
)

// Store selects and tunes the database. Every command takes it.
type Store struct {
	DatabaseURL string `name:"database-url" env:"ERRATA_DATABASE_URL" help:"postgres://… for PostgreSQL; sqlite:path for a SQLite file elsewhere (a backup to check, say); empty for the embedded SQLite database in --data-dir."`
	DataDir     string `name:"data-dir" env:"ERRATA_DATA_DIR" default:"./data" help:"Directory of the embedded SQLite database."`
}

// Log sets up logging.
type Log struct {
	LogLevel  string `name:"log-level" env:"ERRATA_LOG_LEVEL" default:"info" enum:"debug,info,warn,error" help:"Least severe level logged (${enum})."`
	LogFormat string `name:"log-format" env:"ERRATA_LOG_FORMAT" default:"text" enum:"text,json" help:"Log line format (${enum})."`
}

// Serve holds the settings of `errata serve`.
type Serve struct {
	Roles    []string `name:"roles" env:"ERRATA_ROLES" default:"api,worker,scheduler" help:"What this process runs: api, worker, scheduler (comma-separated)."`
	Addr     string   `name:"addr" env:"ERRATA_ADDR" default:"127.0.0.1:8080" help:"HTTP address of the API and dashboard."`
	GRPCAddr string   `name:"grpc-addr" env:"ERRATA_GRPC_ADDR" default:"127.0.0.1:4317" help:"OTLP/gRPC address, or off."`
	BaseURL  string   `name:"base-url" env:"ERRATA_BASE_URL" help:"Public URL of the API (default http://<addr>)."`
	AppURL   string   `name:"app-url" env:"ERRATA_APP_URL" help:"Public URL of the dashboard, used in links (default: the base URL)."`
	DocsURL  string   `name:"docs-url" env:"ERRATA_DOCS_URL" help:"Where error pages live; problem types are <docs-url>/errors/<code> (default <base-url>/docs)."`
	SMTPURL  string   `name:"smtp-url" env:"ERRATA_SMTP_URL" help:"smtp://user:pass@host:port or smtps://…; empty disables email."`
	MailFrom string   `name:"mail-from" env:"ERRATA_MAIL_FROM" default:"Errata <errata@localhost>" help:"From address of every email."`
	Signup   string   `name:"signup" env:"ERRATA_SIGNUP" default:"invite-only" enum:"invite-only,open" help:"Who may sign up after the first user (${enum})."`
	// OpenID Connect sign-in (docs/sso.md).
	OIDCIssuer       string   `name:"oidc-issuer" env:"ERRATA_OIDC_ISSUER" help:"Issuer URL of the OpenID Connect provider; empty: no single sign-on."`
	OIDCClientID     string   `name:"oidc-client-id" env:"ERRATA_OIDC_CLIENT_ID" help:"Errata's client id at the OpenID Connect provider."`
	OIDCClientSecret string   `name:"oidc-client-secret" env:"ERRATA_OIDC_CLIENT_SECRET" help:"Errata's client secret at the OpenID Connect provider."`
	OIDCName         string   `name:"oidc-name" env:"ERRATA_OIDC_NAME" default:"single sign-on" help:"The label of the sign-in button: Sign in with <name>."`
	OIDCAutoJoin     []string `name:"oidc-auto-join" env:"ERRATA_OIDC_AUTO_JOIN" help:"domain=org_…:role entries: OIDC users of that email domain join that organization with that role."`
	DefaultPlan      string   `name:"default-plan" env:"ERRATA_DEFAULT_PLAN" default:"team" enum:"free,team" help:"Plan of a new organization (${enum})."`

	WebhookAllowPrivate bool            `name:"webhook-allow-private" env:"ERRATA_WEBHOOK_ALLOW_PRIVATE" help:"Development only: let webhook URLs point at private and loopback addresses."`
	WebhookRetryWaits   []time.Duration `name:"webhook-retry-waits" env:"ERRATA_WEBHOOK_RETRY_WAITS" default:"1m,5m,15m,1h,3h,6h,12h" help:"The seven waits between webhook attempts."`
	DeliveryLease       time.Duration   `name:"delivery-lease" env:"ERRATA_DELIVERY_LEASE" default:"2m" help:"How long a worker holds the deliveries it claimed; those of a worker that died are attempted again after it."`
	InfoWindow          time.Duration   `name:"info-window" env:"ERRATA_INFO_WINDOW" default:"1h" help:"Length of an INFO summary window."`
	CountsLag           time.Duration   `name:"counts-lag" env:"ERRATA_COUNTS_LAG" default:"5s" help:"While events keep coming, how long value counts (facets, key:value search, user_count) and look-ups by trace or event id may lag the events they count (0: fold at every catch-up, slower under load; at most 1m)."`

	APIRateLimit    float64       `name:"api-rate-limit" env:"ERRATA_API_RATE_LIMIT" default:"20" help:"Management API requests per second per caller."`
	APIRateBurst    int           `name:"api-rate-burst" env:"ERRATA_API_RATE_BURST" default:"100" help:"Management API burst per caller."`
	IngestRateLimit float64       `name:"ingest-rate-limit" env:"ERRATA_INGEST_RATE_LIMIT" default:"100" help:"Ingest requests per second per project."`
	IngestRateBurst int           `name:"ingest-rate-burst" env:"ERRATA_INGEST_RATE_BURST" default:"200" help:"Ingest burst per project."`
	SentryRateLimit float64       `name:"sentry-rate-limit" env:"ERRATA_SENTRY_RATE_LIMIT" default:"1000" help:"Sentry envelope and store requests per second per project (SDKs send one event per request)."`
	SentryRateBurst int           `name:"sentry-rate-burst" env:"ERRATA_SENTRY_RATE_BURST" default:"2000" help:"Sentry request burst per project."`
	MaxBacklogBytes ByteSize      `name:"max-backlog-bytes" env:"ERRATA_MAX_BACKLOG_BYTES" default:"4GiB" help:"Refuse ingestion (503 overloaded) past this much unprocessed backlog."`
	MinFreeDisk     ByteSize      `name:"min-free-disk" env:"ERRATA_MIN_FREE_DISK" default:"1GiB" help:"Refuse ingestion (503 overloaded) when the SQLite data directory has less free space."`
	RetentionDays   int           `name:"retention-days" env:"ERRATA_RETENTION_DAYS" default:"90" help:"Days kept, from their last change: resolved tickets, INFO summaries, digests, finished deliveries, the lookup index by trace and event id, releases and their files (docs/configuration.md)."`
	GroupSamples    int           `name:"group-samples" env:"ERRATA_GROUP_SAMPLES" default:"10" help:"Latest sample events a group keeps besides its first (up to half as many again between prunes)."`
	SpikeMin        int64         `name:"spike-min" env:"ERRATA_SPIKE_MIN" default:"50" help:"Events in 5 minutes below which a group never spikes."`
	SpikeFactor     float64       `name:"spike-factor" env:"ERRATA_SPIKE_FACTOR" default:"10" help:"A spike is this many times the group's mean 5-minute count over the previous 24 hours."`
	MemoryLimit     ByteSize      `name:"memory-limit" env:"ERRATA_MEMORY_LIMIT" default:"256MiB" help:"Soft memory limit of the Go runtime (0: none; GOMEMLIMIT, when set, wins)."`
	WorkerLease     time.Duration `name:"worker-lease" env:"ERRATA_WORKER_LEASE" default:"30s" help:"How long a worker holds a claimed batch; a batch of a worker that died is processed again after it."`
	ShutdownTimeout time.Duration `name:"shutdown-timeout" env:"ERRATA_SHUTDOWN_TIMEOUT" default:"30s" help:"How long shutdown waits for in-flight work."`
	DBTimeout       time.Duration `name:"db-timeout" env:"ERRATA_DB_TIMEOUT" default:"20s" help:"On PostgreSQL, a request's database statement or transaction that gets no answer within this fails, and the request answers 503 unavailable with Retry-After (a connection gone silent would hold it otherwise); 0: no bound."`
	SlowTxWarn      time.Duration `name:"slow-tx-warn" env:"ERRATA_SLOW_TX_WARN" default:"100ms" help:"A write transaction (or a write statement) that holds the database writer longer than this is logged at WARN with its caller (0: never)."`

	ReadTimeout    time.Duration `name:"read-timeout" env:"ERRATA_READ_TIMEOUT" default:"60s" help:"A request's headers and body must arrive within this, or its connection is closed; gRPC connections that send nothing are closed after it."`
	MaxConnections int           `name:"max-connections" env:"ERRATA_MAX_CONNECTIONS" default:"10000" help:"Most HTTP connections open at once (and as many gRPC connections); more wait to be accepted."`
	IngestMemory   ByteSize      `name:"ingest-memory" env:"ERRATA_INGEST_MEMORY" default:"256MiB" help:"Memory budget of ingestion request bodies being decoded at one moment; past it a request waits up to 1s, then gets 503 overloaded."`
	SourcemapCache ByteSize      `name:"sourcemap-cache" env:"ERRATA_SOURCEMAP_CACHE" default:"256MiB" help:"Memory the processing workers keep parsed source maps in (least recently used out first)."`
	RedactKeys     []string      `name:"redact-keys" env:"ERRATA_REDACT_KEYS" help:"More attribute keys whose values are replaced by [redacted] (comma-separated; also as suffixes, ignoring case and - _ . and spaces)."`
	TrustedProxies []string      `name:"trusted-proxies" env:"ERRATA_TRUSTED_PROXIES" help:"CIDR ranges of reverse proxies whose X-Forwarded-For gives the client address (comma-separated; default none)."`
	IPv6Prefix     int           `name:"ipv6-prefix" env:"ERRATA_IPV6_PREFIX" default:"64" help:"Rate limits keyed by client address count an IPv6 address by its network of this many bits (32 to 128): one subscriber's /64 is one caller."`

	// TrustedPrefixes is TrustedProxies parsed by Validate.
	TrustedPrefixes []netip.Prefix `kong:"-"`
}

// Roles a process can take.
const (
	RoleAPI       = "api"
	RoleWorker    = "worker"
	RoleScheduler = "scheduler"
)

// Validate checks the settings and fills in the derived defaults.
func (s *Serve) Validate() error {
	for _, check := range []func() error{s.checkRolesAndAddrs, s.checkURLs, s.checkMail, s.checkLimits, s.parseTrustedProxies} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkRolesAndAddrs checks --roles and the listen addresses.
func (s *Serve) checkRolesAndAddrs() error {
	if len(s.Roles) == 0 {
		return errors.New("--roles: name at least one of api, worker, scheduler")
	}
	for i, r := range s.Roles {
		if r != RoleAPI && r != RoleWorker && r != RoleScheduler {
			return fmt.Errorf("--roles: unknown role %q (want api, worker or scheduler)", r)
		}
		if slices.Contains(s.Roles[:i], r) {
			return fmt.Errorf("--roles: %s is named twice", r)
		}
	}
	if err := checkAddr("--addr", s.Addr); err != nil {
		return err
	}
	if s.GRPCAddr != "off" {
		return checkAddr("--grpc-addr", s.GRPCAddr)
	}
	return nil
}

// checkURLs fills the public URLs' defaults (each from the one before),
// checks them and trims their trailing slashes.
func (s *Serve) checkURLs() error {
	if s.BaseURL == "" {
		s.BaseURL = "http://" + s.Addr
	}
	if s.AppURL == "" {
		s.AppURL = s.BaseURL
	}
	if s.DocsURL == "" {
		s.DocsURL = strings.TrimRight(s.BaseURL, "/") + "/docs"
	}
	for _, u := range []struct{ flag, v string }{{"--base-url", s.BaseURL}, {"--app-url", s.AppURL}, {"--docs-url", s.DocsURL}} {
		if err := checkHTTPURL(u.flag, u.v); err != nil {
			return err
		}
	}
	s.BaseURL, s.AppURL, s.DocsURL = strings.TrimRight(s.BaseURL, "/"), strings.TrimRight(s.AppURL, "/"), strings.TrimRight(s.DocsURL, "/")
	return nil
}

// checkMail checks the outgoing mail, single sign-on and webhook retry
// settings.
func (s *Serve) checkMail() error {
	if s.SMTPURL != "" {
		u, err := url.Parse(s.SMTPURL)
		if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
			return errors.New("--smtp-url: want smtp://user:pass@host:port or smtps://…")
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				return fmt.Errorf("--smtp-url: the port %s must be a number from 1 to 65535", p)
			}
		}
	}
	if err := s.checkOIDC(); err != nil {
		return err
	}
	if _, err := mail.ParseAddress(s.MailFrom); err != nil {
		return fmt.Errorf("--mail-from: %q is not an email address", s.MailFrom)
	}
	if len(s.WebhookRetryWaits) != 7 {
		return fmt.Errorf("--webhook-retry-waits: want exactly 7 durations, got %d", len(s.WebhookRetryWaits))
	}
	for _, d := range s.WebhookRetryWaits {
		if d <= 0 {
			return fmt.Errorf("--webhook-retry-waits: %s is not a positive duration", d)
		}
	}
	return nil
}

// positive reports whether f is a number above 0 and finite.
func positive(f float64) bool { return f > 0 && !math.IsInf(f, 1) }

// checkLimits checks the windows, rates, sizes and durations.
func (s *Serve) checkLimits() error {
	if err := summary.CheckWindow(s.InfoWindow); err != nil {
		return fmt.Errorf("--info-window: %w", err)
	}
	// A rate or factor is a positive finite number: NaN compares false
	// with everything, so "<= 0" let it through, and it refused every
	// request for good.
	for _, c := range []struct {
		flag string
		bad  bool
	}{
		{"--api-rate-limit", !positive(s.APIRateLimit)}, {"--api-rate-burst", s.APIRateBurst < 1},
		{"--ingest-rate-limit", !positive(s.IngestRateLimit)}, {"--ingest-rate-burst", s.IngestRateBurst < 1},
		{"--sentry-rate-limit", !positive(s.SentryRateLimit)}, {"--sentry-rate-burst", s.SentryRateBurst < 1},
		{"--retention-days", s.RetentionDays < 1}, {"--group-samples", s.GroupSamples < 1}, {"--spike-min", s.SpikeMin < 1},
		{"--spike-factor", !positive(s.SpikeFactor)},
	} {
		if c.bad {
			return errors.New(c.flag + " must be a positive number")
		}
	}
	if s.RetentionDays > MaxRetentionDays {
		return fmt.Errorf("--retention-days: %d is more than %d (100 years)", s.RetentionDays, MaxRetentionDays)
	}
	if s.SlowTxWarn < 0 {
		return errors.New("--slow-tx-warn must not be negative (0 turns the warning off)")
	}
	if s.CountsLag < 0 || s.CountsLag > time.Minute {
		return fmt.Errorf("--counts-lag: %s is not from 0 to 1m", s.CountsLag)
	}
	if s.WorkerLease < time.Second {
		return errors.New("--worker-lease must be at least 1s")
	}
	if s.DeliveryLease < 20*time.Second {
		return errors.New("--delivery-lease must be at least 20s (longer than one attempt's time-outs)")
	}
	if s.ShutdownTimeout <= 0 {
		return errors.New("--shutdown-timeout must be positive")
	}
	if s.DBTimeout != 0 && s.DBTimeout < time.Second {
		return errors.New("--db-timeout must be 0 (no bound) or at least 1s")
	}
	if s.ReadTimeout < time.Second {
		return errors.New("--read-timeout must be at least 1s")
	}
	if s.MaxConnections < 1 {
		return errors.New("--max-connections must be positive")
	}
	if s.IngestMemory < 1<<20 {
		return errors.New("--ingest-memory must be at least 1MiB")
	}
	if s.IPv6Prefix < 32 || s.IPv6Prefix > 128 {
		return fmt.Errorf("--ipv6-prefix: %d is not a prefix length from 32 to 128", s.IPv6Prefix)
	}
	return nil
}

// parseTrustedProxies reads --trusted-proxies into TrustedPrefixes.
func (s *Serve) parseTrustedProxies() error {
	s.TrustedPrefixes = s.TrustedPrefixes[:0]
	for _, c := range s.TrustedProxies {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		p, err := netip.ParsePrefix(c)
		if err != nil {
			a, aerr := netip.ParseAddr(c)
			if aerr != nil {
				return fmt.Errorf("--trusted-proxies: %q is not a CIDR range or an address", c)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		s.TrustedPrefixes = append(s.TrustedPrefixes, p.Masked())
	}
	return nil
}

// Has reports whether the process takes role r.
func (s *Serve) Has(r string) bool {
	for _, x := range s.Roles {
		if x == r {
			return true
		}
	}
	return false
}

// Validate checks the store settings.
func (s *Store) Validate() error {
	if s.DatabaseURL == "" {
		if s.DataDir == "" {
			return errors.New("--data-dir: must not be empty when no --database-url is set")
		}
		return nil
	}
	u, err := url.Parse(s.DatabaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql" && u.Scheme != "sqlite") {
		return errors.New("--database-url: want postgres://user@host:port/db or sqlite:path")
	}
	return nil
}

func checkAddr(flag, v string) error {
	i := strings.LastIndexByte(v, ':')
	if i < 0 || i == len(v)-1 {
		return fmt.Errorf("%s: %q is not host:port", flag, v)
	}
	if port, err := strconv.Atoi(v[i+1:]); err != nil || port < 0 || port > 65535 {
		return fmt.Errorf("%s: %q: the port must be a number from 0 to 65535", flag, v)
	}
	return nil
}

func checkHTTPURL(flag, v string) error {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s: %q is not an http(s) URL", flag, v)
	}
	return nil
}

// AutoJoin is one ERRATA_OIDC_AUTO_JOIN entry: OIDC users whose email is at
// Domain join OrgID with Role.
type AutoJoin struct{ Domain, OrgID, Role string }

// MaxRetentionDays bounds --retention-days: a day count whose duration
// overflowed would put the cut-off in the future, and the first pass would
// delete everything it prunes.
const MaxRetentionDays = 36500

// ParseAutoJoin parses domain=org_…:role.
func ParseAutoJoin(entry string) (AutoJoin, error) {
	domain, rest, ok := strings.Cut(strings.TrimSpace(entry), "=")
	orgID, role, ok2 := strings.Cut(rest, ":")
	j := AutoJoin{Domain: strings.ToLower(strings.TrimSpace(domain)), OrgID: strings.TrimSpace(orgID), Role: strings.TrimSpace(role)}
	if !ok || !ok2 || j.Domain == "" || !strings.HasPrefix(j.OrgID, "org_") {
		return AutoJoin{}, fmt.Errorf("--oidc-auto-join: %q: want domain=org_…:role", entry)
	}
	// As sign-in compares it with a normalised address's domain:
	// bücher.de is xn--bcher-kva.de.
	ascii, valid := emailaddr.Domain(j.Domain)
	if !valid {
		return AutoJoin{}, fmt.Errorf("--oidc-auto-join: %q: %q is not an email domain (example.com, without @)", entry, j.Domain)
	}
	j.Domain = ascii
	switch j.Role {
	case "viewer", "member", "admin":
	default:
		return AutoJoin{}, fmt.Errorf("--oidc-auto-join: %q: the role must be viewer, member or admin", entry)
	}
	return j, nil
}

func (s *Serve) checkOIDC() error {
	if s.OIDCIssuer == "" {
		switch {
		case s.OIDCClientID != "":
			return errors.New("--oidc-client-id needs --oidc-issuer")
		case len(s.OIDCAutoJoin) > 0:
			return errors.New("--oidc-auto-join needs --oidc-issuer")
		case s.OIDCClientSecret != "":
			return errors.New("--oidc-client-secret needs --oidc-issuer")
		}
		return nil
	}
	if err := checkHTTPURL("--oidc-issuer", s.OIDCIssuer); err != nil {
		return err
	}
	if s.OIDCClientID == "" {
		return errors.New("--oidc-issuer needs --oidc-client-id")
	}
	seen := map[string]string{}
	for _, e := range s.OIDCAutoJoin {
		j, err := ParseAutoJoin(e)
		if err != nil {
			return err
		}
		if first, ok := seen[j.Domain]; ok {
			return fmt.Errorf("--oidc-auto-join: %q and %q both name %s: one rule a domain", first, e, j.Domain)
		}
		seen[j.Domain] = e
	}
	return nil
}
