package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Rule names carried by RuleError.Rule. The first four map onto the numbered
// webhook URL rules of the interface (section 2); RuleSyntax, RuleHost and
// RuleResolve say why a URL could not even be judged by them.
const (
	RuleSyntax      = "syntax"         // not an absolute URL, or longer than MaxURLLength
	RuleScheme      = "scheme"         // rule 1: the scheme is https
	RuleCredentials = "credentials"    // rule 2: no user:pass@
	RuleFragment    = "fragment"       // rule 2: no #fragment
	RulePort        = "port"           // rule 3: 443 or 1024-65535
	RuleHost        = "host"           // the host is neither a DNS name nor a canonical IP literal
	RulePublic      = "public-address" // rule 4: the host is, or resolves to, a non-public address
	RuleResolve     = "resolve"        // rule 4: the host name does not resolve
)

// MaxURLLength is the longest webhook URL accepted, in bytes.
const MaxURLLength = 2048

// RuleError says which webhook URL rule a URL breaks. Error returns Detail, a
// short sentence fit for the detail of an invalid-webhook-url problem.
type RuleError struct {
	Rule   string // one of the Rule constants
	Detail string // human text, e.g. "webhook URL must use https"
}

// Error returns the human detail.
func (e *RuleError) Error() string { return e.Detail }

func ruleErr(rule, format string, args ...any) *RuleError {
	return &RuleError{Rule: rule, Detail: fmt.Sprintf(format, args...)}
}

// target is a URL that passed the rules that need no DNS.
type target struct {
	host      string     // lower case, no brackets, no trailing dot
	addr      netip.Addr // the address an IP-literal host really reaches; invalid for names
	canonical bool       // an IP literal written the one way every resolver agrees on
	localhost bool       // "localhost" or a name under it (RFC 6761: always loopback)
}

// CheckURL applies the webhook URL rules (interface section 2) to raw and
// returns a *RuleError naming the first rule broken, or nil. Rules are checked
// in order and the DNS look-up comes last, so a URL failing an earlier rule
// causes no look-up. IP-literal hosts are judged by the address they really
// reach, whatever their spelling (2130706433, 0x7f000001, 0177.0.0.1, 127.1,
// ::ffff:127.0.0.1); non-canonical spellings of otherwise acceptable addresses
// are refused too, because resolvers disagree on them. When ctx ends during
// the look-up CheckURL returns an error wrapping ctx.Err() rather than a
// RuleError, so callers can tell "bad URL" from "gave up".
func CheckURL(ctx context.Context, raw string, opts Options) error {
	t, err := parseTarget(raw)
	if err != nil {
		return err
	}
	if t.addr.IsValid() {
		if !opts.AllowPrivate && !publicAddr(t.addr) {
			if t.canonical {
				return ruleErr(RulePublic, "address %s is %s, not public", t.addr, addrKind(t.addr))
			}
			return ruleErr(RulePublic, "host %s is the address %s, which is %s, not public", t.host, t.addr, addrKind(t.addr))
		}
		if !t.canonical {
			return ruleErr(RuleHost, "host %s is an ambiguous spelling of %s: write the address as %s", t.host, t.addr, t.addr)
		}
		return nil
	}
	if t.localhost && !opts.AllowPrivate {
		return ruleErr(RulePublic, "host %s always means loopback, not a public address", t.host)
	}
	addrs, err := opts.resolver().LookupNetIP(ctx, "ip", t.host)
	if err == nil && ctx.Err() != nil {
		// The resolver may answer a canceled look-up (from its cache, or
		// before it looks at ctx): the check was still canceled.
		err = ctx.Err()
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("webhook: resolve %s: %w", t.host, ctx.Err())
		}
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && !dnsErr.IsNotFound {
			return ruleErr(RuleResolve, "host %s could not be resolved: %s", t.host, dnsErr.Err)
		}
		return ruleErr(RuleResolve, "host %s does not resolve", t.host)
	}
	if len(addrs) == 0 {
		return ruleErr(RuleResolve, "host %s does not resolve", t.host)
	}
	if !opts.AllowPrivate {
		for _, a := range addrs {
			if !publicAddr(a) {
				a = a.Unmap()
				return ruleErr(RulePublic, "host %s resolves to %s address %s", t.host, addrKind(a), a)
			}
		}
	}
	return nil
}

// parseTarget applies every rule that needs no DNS: length, syntax, scheme,
// credentials, fragment, port and the shape of the host. Send uses it too, so
// a URL stored before a rule tightened is never sent.
func parseTarget(raw string) (target, error) {
	var t target
	if len(raw) > MaxURLLength {
		return t, ruleErr(RuleSyntax, "webhook URL is longer than %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return t, ruleErr(RuleSyntax, "webhook URL is not a valid URL")
	}
	if u.Scheme != "https" {
		return t, ruleErr(RuleScheme, "webhook URL must use https")
	}
	if u.Opaque != "" || u.Host == "" {
		return t, ruleErr(RuleSyntax, "webhook URL must be absolute: https://host/path")
	}
	if u.User != nil {
		return t, ruleErr(RuleCredentials, "webhook URL must not contain credentials (user:password@)")
	}
	// url.URL forgets an empty fragment ("https://x/#"), so look at the raw text.
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return t, ruleErr(RuleFragment, "webhook URL must not contain a fragment (#...)")
	}
	if _, err := checkPort(u); err != nil {
		return t, err
	}
	return parseHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
}

func checkPort(u *url.URL) (uint16, error) {
	p := u.Port()
	if p == "" {
		if strings.HasSuffix(u.Host, ":") {
			return 0, ruleErr(RulePort, "port is empty: use 443 or 1024-65535")
		}
		return 443, nil
	}
	n, err := strconv.ParseUint(p, 10, 32)
	if err != nil || p[0] == '0' && p != "0" {
		return 0, ruleErr(RulePort, "port %s is not a plain decimal number", p)
	}
	if n > 65535 || !portAllowed(uint16(n)) {
		return 0, ruleErr(RulePort, "port %d is not allowed: use 443 or 1024-65535", n)
	}
	return uint16(n), nil
}

// portAllowed is rule 3, also applied to every dial.
func portAllowed(p uint16) bool { return p == 443 || p >= 1024 }

// parseHost judges the shape of a host as written in a URL (without
// brackets); bracketed says it was written as [IPv6].
func parseHost(host string, bracketed bool) (target, error) {
	var t target
	h := strings.ToLower(host)
	if bracketed {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() {
			return t, ruleErr(RuleHost, "host %s is not a valid IPv6 address", h)
		}
		// A zone (fe80::1%eth0) only exists for link-local addresses: judged below.
		t.host, t.addr, t.canonical = h, a.Unmap(), true
		return t, nil
	}
	t.host = strings.TrimSuffix(h, ".")
	if t.host == "" {
		return t, ruleErr(RuleSyntax, "webhook URL has no host")
	}
	if endsInNumber(t.host) {
		a, ok := parseIPv4(t.host)
		if !ok {
			return t, ruleErr(RuleHost, "host %s is neither a valid IPv4 address nor a DNS name", h)
		}
		t.addr, t.canonical = a, h == a.String()
		return t, nil
	}
	if t.host == "localhost" || strings.HasSuffix(t.host, ".localhost") {
		t.localhost = true
		return t, nil
	}
	if err := checkDNSName(t.host); err != "" {
		return t, ruleErr(RuleHost, "host %s is not a valid DNS name: %s", h, err)
	}
	return t, nil
}

// checkDNSName enforces letters-digits-hyphen labels and at least two labels
// (a single label would be completed from the local search domains).
func checkDNSName(h string) string {
	if len(h) > 253 {
		return "longer than 253 characters"
	}
	labels := strings.Split(h, ".")
	if len(labels) < 2 {
		return "use a fully qualified name"
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "labels are 1 to 63 characters"
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return "labels do not start or end with a hyphen"
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return "only letters, digits and hyphens (use the xn-- form for other characters)"
			}
		}
	}
	return ""
}
