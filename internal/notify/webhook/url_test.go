package webhook

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestCheckURLRefuses(t *testing.T) {
	t.Parallel()
	dns := testDNS(t)
	opts := Options{Resolver: dns.resolver()}
	long := "https://public.errata.test/" + strings.Repeat("a", MaxURLLength)
	tests := []struct {
		url  string
		rule string
		want string // substring of the detail
	}{
		{"http://93.184.215.14/hook", RuleScheme, "must use https"},
		{"ftp://93.184.215.14/hook", RuleScheme, "must use https"},
		{"//93.184.215.14/hook", RuleScheme, "must use https"},
		{"https:opaque", RuleSyntax, "absolute"},
		{"https:///path-only", RuleSyntax, "absolute"},
		{"https://exa%zzmple.com/", RuleSyntax, "not a valid URL"},
		{long, RuleSyntax, "longer than 2048"},
		{"https://user:pass@93.184.215.14/", RuleCredentials, "credentials"},
		{"https://user@93.184.215.14/", RuleCredentials, "credentials"},
		{"https://93.184.215.14/hook#frag", RuleFragment, "fragment"},
		{"https://93.184.215.14/hook#", RuleFragment, "fragment"},
		{"https://93.184.215.14:80/", RulePort, "port 80 is not allowed: use 443 or 1024-65535"},
		{"https://93.184.215.14:22/", RulePort, "port 22 is not allowed"},
		{"https://93.184.215.14:1023/", RulePort, "port 1023 is not allowed"},
		{"https://93.184.215.14:0/", RulePort, "port 0 is not allowed"},
		{"https://93.184.215.14:65536/", RulePort, "port 65536 is not allowed"},
		{"https://93.184.215.14:08443/", RulePort, "plain decimal"},
		{"https://93.184.215.14:/", RulePort, "empty"},
		{"https://127.0.0.1/", RulePublic, "127.0.0.1 is loopback"},
		{"https://127.0.0.1.:8443/", RulePublic, "127.0.0.1"},
		{"https://localhost/", RulePublic, "loopback"},
		{"https://localhost./", RulePublic, "loopback"},
		{"https://api.localhost:8443/", RulePublic, "loopback"},
		{"https://10.1.2.3/", RulePublic, "10.1.2.3 is private"},
		{"https://172.16.0.1/", RulePublic, "private"},
		{"https://172.31.255.254/", RulePublic, "private"},
		{"https://192.168.1.1/", RulePublic, "private"},
		{"https://169.254.169.254/latest/meta-data/", RulePublic, "link-local"},
		{"https://100.64.0.1/", RulePublic, "carrier-grade NAT"},
		{"https://0.0.0.0/", RulePublic, "unspecified"},
		{"https://[::1]/", RulePublic, "::1 is loopback"},
		{"https://[::]:8443/", RulePublic, "unspecified"},
		{"https://[::ffff:127.0.0.1]/", RulePublic, "127.0.0.1 is loopback"},
		{"https://[::ffff:7f00:1]/", RulePublic, "127.0.0.1 is loopback"},
		{"https://[::ffff:a9fe:a9fe]/", RulePublic, "169.254.169.254 is link-local"},
		{"https://[fe80::1]/", RulePublic, "link-local"},
		{"https://[fe80::1%25eth0]/", RulePublic, "not public"},
		{"https://[fc00::1]/", RulePublic, "private"},
		{"https://[64:ff9b::7f00:1]/", RulePublic, "not public"},
		{"https://[2001:db8::1]/", RulePublic, "not public"},
		{"https://2130706433/", RulePublic, "the address 127.0.0.1"},
		{"https://0x7f000001/", RulePublic, "the address 127.0.0.1"},
		{"https://0X7F.0.0.1/", RulePublic, "the address 127.0.0.1"},
		{"https://0177.0.0.1/", RulePublic, "the address 127.0.0.1"},
		{"https://017700000001/", RulePublic, "the address 127.0.0.1"},
		{"https://127.1/", RulePublic, "the address 127.0.0.1"},
		{"https://10.1/", RulePublic, "the address 10.0.0.1"},
		{"https://0/", RulePublic, "the address 0.0.0.0"},
		{"https://192.0.2.1/", RulePublic, "not public"},
		{"https://198.51.100.7/", RulePublic, "not public"},
		{"https://198.18.0.1/", RulePublic, "not public"},
		{"https://224.0.0.1/", RulePublic, "multicast"},
		{"https://255.255.255.255/", RulePublic, "broadcast"},
		{"https://240.0.0.1/", RulePublic, "reserved"},
		{"https://private.errata.test/", RulePublic, "host private.errata.test resolves to private address 10.0.0.5"},
		{"https://loopback.errata.test:8443/", RulePublic, "loopback address 127.0.0.1"},
		{"https://metadata.errata.test/", RulePublic, "169.254.169.254"},
		{"https://mixed.errata.test/", RulePublic, "192.168.1.20"},
		{"https://v6private.errata.test/", RulePublic, "fd00::1"},
		{"https://v6mapped.errata.test/", RulePublic, "10.0.0.1"},
		{"https://0x5db8d70e/", RuleHost, "write the address as 93.184.215.14"},
		{"https://93.184.215.014/", RuleHost, "ambiguous"},
		{"https://1.2.3.4.5/", RuleHost, "neither"},
		{"https://256.1.1.1/", RuleHost, "neither"},
		{"https://08.1.1.1/", RuleHost, "neither"},
		{"https://ex_ample.com/", RuleHost, "not a valid DNS name"},
		{"https://-bad.example.com/", RuleHost, "hyphen"},
		{"https://intranet:8443/", RuleHost, "fully qualified"},
		{"https://bücher.example/", RuleHost, "xn--"},
		{"https://a..example.com/", RuleHost, "1 to 63"},
		{"https://missing.errata.test/", RuleResolve, "does not resolve"},
		{"https://empty.errata.test/", RuleResolve, "does not resolve"},
	}
	for _, tt := range tests {
		t.Run(tt.url[:min(len(tt.url), 60)], func(t *testing.T) {
			t.Parallel()
			err := CheckURL(context.Background(), tt.url, opts)
			var re *RuleError
			if !errors.As(err, &re) {
				t.Fatalf("CheckURL(%q) = %v, want a RuleError %s", tt.url, err, tt.rule)
			}
			if re.Rule != tt.rule || !strings.Contains(re.Error(), tt.want) {
				t.Errorf("CheckURL(%q) = %s: %q, want %s containing %q", tt.url, re.Rule, re.Detail, tt.rule, tt.want)
			}
		})
	}
}

func TestCheckURLAccepts(t *testing.T) {
	t.Parallel()
	dns := testDNS(t)
	tests := []struct {
		url          string
		allowPrivate bool
	}{
		{"https://93.184.215.14:8443/x", false},
		{"https://93.184.215.14/hooks?team=a&b=c", false},
		{"https://[2606:4700:4700::1111]:8443/", false},
		{"https://public.errata.test/hook", false},
		{"https://PUBLIC.Errata.Test:443/hook", false},
		{"https://public.errata.test./hook", false},
		{"https://public.errata.test:65535/", false},
		{"https://public.errata.test:1024/", false},
		{"https://127.0.0.1:8443/hook", true},
		{"https://[::1]:8443/", true},
		{"https://10.0.0.5/", true},
		{"https://private.errata.test:8443/", true},
		{"https://mixed.errata.test/", true},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			opts := Options{Resolver: dns.resolver(), AllowPrivate: tt.allowPrivate}
			if err := CheckURL(context.Background(), tt.url, opts); err != nil {
				t.Errorf("CheckURL(%q, AllowPrivate=%v) = %v, want nil", tt.url, tt.allowPrivate, err)
			}
		})
	}
}

// AllowPrivate relaxes the public-address rule and nothing else.
func TestCheckURLAllowPrivateKeepsOtherRules(t *testing.T) {
	t.Parallel()
	opts := Options{AllowPrivate: true, Resolver: testDNS(t).resolver()}
	tests := []struct{ url, rule string }{
		{"http://127.0.0.1:8443/", RuleScheme},
		{"https://127.0.0.1:80/", RulePort},
		{"https://127.0.0.1:22/", RulePort},
		{"https://u:p@127.0.0.1:8443/", RuleCredentials},
		{"https://127.0.0.1:8443/#x", RuleFragment},
		{"https://127.1:8443/", RuleHost},
		{"https://missing.errata.test/", RuleResolve},
	}
	for _, tt := range tests {
		var re *RuleError
		if err := CheckURL(context.Background(), tt.url, opts); !errors.As(err, &re) || re.Rule != tt.rule {
			t.Errorf("CheckURL(%q, AllowPrivate) = %v, want rule %s", tt.url, err, tt.rule)
		}
	}
}

// A URL failing an earlier rule is refused without any DNS look-up.
func TestCheckURLNoLookupWhenEarlierRuleFails(t *testing.T) {
	t.Parallel()
	dns := testDNS(t)
	opts := Options{Resolver: dns.resolver()}
	for _, u := range []string{
		"http://private.errata.test/",
		"https://u:p@private.errata.test/",
		"https://private.errata.test/#x",
		"https://private.errata.test:80/",
	} {
		if err := CheckURL(context.Background(), u, opts); err == nil {
			t.Errorf("CheckURL(%q) = nil, want an error", u)
		}
	}
	if got := dns.count("private.errata.test"); got != 0 {
		t.Errorf("DNS queries for private.errata.test = %d, want 0", got)
	}
}

func TestCheckURLCanceledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := CheckURL(ctx, "https://public.errata.test/", Options{Resolver: testDNS(t).resolver()})
	var re *RuleError
	if !errors.Is(err, context.Canceled) || errors.As(err, &re) {
		t.Errorf("CheckURL with canceled ctx = %v, want context.Canceled and no RuleError", err)
	}
}
