package config

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{"4GiB": 4 << 30, "512MB": 512e6, "1048576": 1 << 20, "1 KiB": 1024, "0": 0, "10B": 10} {
		var b ByteSize
		if err := b.UnmarshalText([]byte(in)); err != nil || int64(b) != want {
			t.Errorf("ByteSize(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1", "4XB", "1.5GiB", "16777216TiB", "8388608TiB", "18446744073709552KB"} { // the last three wrapped
		var b ByteSize
		if err := b.UnmarshalText([]byte(in)); err == nil {
			t.Errorf("ByteSize(%q) = %d, want an error", in, b)
		}
	}
}

func valid() Serve {
	return Serve{Roles: []string{"api"}, Addr: "127.0.0.1:8080", GRPCAddr: "off", MailFrom: "e@example.com",
		WebhookRetryWaits: make([]time.Duration, 7), InfoWindow: time.Hour,
		APIRateLimit: 1, APIRateBurst: 1, IngestRateLimit: 1, IngestRateBurst: 1, SentryRateLimit: 1, SentryRateBurst: 1, ShutdownTimeout: time.Second, WorkerLease: time.Minute, DeliveryLease: time.Minute,
		RetentionDays: 90, GroupSamples: 10, SpikeMin: 50, SpikeFactor: 10,
		ReadTimeout: time.Minute, MaxConnections: 100, IngestMemory: 256 << 20, IPv6Prefix: 64}
}

func TestServeDefaultsDerivedURLs(t *testing.T) {
	s := valid()
	for i := range s.WebhookRetryWaits {
		s.WebhookRetryWaits[i] = time.Second
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if s.BaseURL != "http://127.0.0.1:8080" || s.AppURL != s.BaseURL || s.DocsURL != s.BaseURL+"/docs" {
		t.Fatalf("derived URLs = %q %q %q", s.BaseURL, s.AppURL, s.DocsURL)
	}
}

func TestServeValidateNamesTheSetting(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Serve)
		flag string
	}{
		{"role", func(s *Serve) { s.Roles = []string{"janitor"} }, "--roles"},
		{"role twice", func(s *Serve) { s.Roles = []string{"api", "worker", "api"} }, "--roles: api is named twice"},
		{"addr", func(s *Serve) { s.Addr = "nope" }, "--addr"},
		{"grpc", func(s *Serve) { s.GRPCAddr = "4317" }, "--grpc-addr"},
		{"base", func(s *Serve) { s.BaseURL = "ftp://x" }, "--base-url"},
		{"smtp", func(s *Serve) { s.SMTPURL = "http://mail" }, "--smtp-url"},
		{"from", func(s *Serve) { s.MailFrom = "nobody" }, "--mail-from"},
		{"waits", func(s *Serve) { s.WebhookRetryWaits = s.WebhookRetryWaits[:2] }, "--webhook-retry-waits"},
		{"window", func(s *Serve) { s.InfoWindow = 7 * time.Minute }, "--info-window"},
		{"counts lag negative", func(s *Serve) { s.CountsLag = -time.Second }, "--counts-lag"},
		{"counts lag long", func(s *Serve) { s.CountsLag = 2 * time.Minute }, "--counts-lag"},
		{"read timeout", func(s *Serve) { s.ReadTimeout = 0 }, "--read-timeout"},
		{"connections", func(s *Serve) { s.MaxConnections = 0 }, "--max-connections"},
		{"memory", func(s *Serve) { s.IngestMemory = 1000 }, "--ingest-memory"},
		{"sentry rate", func(s *Serve) { s.SentryRateLimit = 0 }, "--sentry-rate-limit"},
		{"sentry burst", func(s *Serve) { s.SentryRateBurst = 0 }, "--sentry-rate-burst"},
		{"ingest rate NaN", func(s *Serve) { s.IngestRateLimit = math.NaN() }, "--ingest-rate-limit"},
		{"api rate infinite", func(s *Serve) { s.APIRateLimit = math.Inf(1) }, "--api-rate-limit"},
		{"ingest burst", func(s *Serve) { s.IngestRateBurst = 0 }, "--ingest-rate-burst must"},
		{"spike factor NaN", func(s *Serve) { s.SpikeFactor = math.NaN() }, "--spike-factor must"},
		{"proxies", func(s *Serve) { s.TrustedProxies = []string{"10.0.0.0/33"} }, "--trusted-proxies"},
		{"ipv6 prefix too short", func(s *Serve) { s.IPv6Prefix = 31 }, "--ipv6-prefix"},
		{"ipv6 prefix too long", func(s *Serve) { s.IPv6Prefix = 129 }, "--ipv6-prefix"},
		{"port out of range", func(s *Serve) { s.Addr = "127.0.0.1:99999" }, "--addr: \"127.0.0.1:99999\": the port"},
		{"group samples", func(s *Serve) { s.GroupSamples = -3 }, "--group-samples must"},
		{"spike factor", func(s *Serve) { s.SpikeFactor = 0 }, "--spike-factor must"},
		{"auto join alone", func(s *Serve) { s.OIDCAutoJoin = []string{"example.com=org_1"} }, "--oidc-auto-join needs"},
		{"client secret alone", func(s *Serve) { s.OIDCClientSecret = "s" }, "--oidc-client-secret needs"},
		{"ipv6 prefix unset", func(s *Serve) { s.IPv6Prefix = 0 }, "--ipv6-prefix"},
		{"oidc issuer", func(s *Serve) { s.OIDCIssuer, s.OIDCClientID = "accounts.example.com", "x" }, "--oidc-issuer"},
		{"oidc client", func(s *Serve) { s.OIDCIssuer = "https://accounts.example.com" }, "--oidc-client-id"},
		{"oidc alone", func(s *Serve) { s.OIDCClientID = "x" }, "--oidc-issuer"},
		{"auto join", func(s *Serve) {
			s.OIDCIssuer, s.OIDCClientID, s.OIDCAutoJoin = "https://accounts.example.com", "x", []string{"example.com=org_1"}
		}, "--oidc-auto-join"},
		{"auto join owner", func(s *Serve) {
			s.OIDCIssuer, s.OIDCClientID, s.OIDCAutoJoin = "https://accounts.example.com", "x", []string{"example.com=org_1:owner"}
		}, "--oidc-auto-join"},
		{"retention overflowing", func(s *Serve) { s.RetentionDays = 1_000_000 }, "--retention-days"},
		{"auto join at", func(s *Serve) {
			s.OIDCIssuer, s.OIDCClientID, s.OIDCAutoJoin = "https://accounts.example.com", "x", []string{"@example.com=org_1:member"}
		}, "is not an email domain"},
		{"auto join wildcard", func(s *Serve) {
			s.OIDCIssuer, s.OIDCClientID, s.OIDCAutoJoin = "https://accounts.example.com", "x", []string{"*.example.com=org_1:member"}
		}, "is not an email domain"},
		{"auto join port", func(s *Serve) {
			s.OIDCIssuer, s.OIDCClientID, s.OIDCAutoJoin = "https://accounts.example.com", "x", []string{"example.com:8080=org_1:member"}
		}, "is not an email domain"},
		{"auto join IDN twice", func(s *Serve) {
			s.OIDCIssuer, s.OIDCClientID, s.OIDCAutoJoin = "https://accounts.example.com", "x", []string{"bücher.de=org_1:member", "xn--bcher-kva.de=org_2:admin"}
		}, "one rule a domain"},
		{"auto join twice", func(s *Serve) {
			s.OIDCIssuer, s.OIDCClientID, s.OIDCAutoJoin = "https://accounts.example.com", "x", []string{"a.example=org_1:member", "A.example=org_2:admin"}
		}, "one rule a domain"},
	} {
		s := valid()
		for i := range s.WebhookRetryWaits {
			s.WebhookRetryWaits[i] = time.Second
		}
		tc.edit(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%s: Validate() = %v, want an error naming %s", tc.name, err, tc.flag)
		}
	}
}

func TestTrustedProxiesParse(t *testing.T) {
	s := valid()
	for i := range s.WebhookRetryWaits {
		s.WebhookRetryWaits[i] = time.Second
	}
	s.TrustedProxies = []string{"10.0.0.0/8", " 192.168.1.7 ", "fd00::/8", ""}
	if err := s.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	var got []string
	for _, p := range s.TrustedPrefixes {
		got = append(got, p.String())
	}
	if want := "10.0.0.0/8 192.168.1.7/32 fd00::/8"; strings.Join(got, " ") != want {
		t.Fatalf("TrustedPrefixes = %v, want %s", got, want)
	}
}

// TestParseAutoJoinDomain: a rule's domain takes the form sign-in gives an
// address's (lower case, an IDN in punycode), or a rule for bücher.de
// would never match.
func TestParseAutoJoinDomain(t *testing.T) {
	for in, want := range map[string]string{"bücher.de": "xn--bcher-kva.de", "ACME.com": "acme.com", "localhost": "localhost"} {
		j, err := ParseAutoJoin(in + "=org_1:member")
		if err != nil || j.Domain != want {
			t.Errorf("ParseAutoJoin(%s=…) = %+v, %v; want the domain %s", in, j, err, want)
		}
	}
}
