package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestErrorPagesWithoutSlash: /docs/errors, as the README names the error
// pages, leads to /docs/errors/ (it led to /errors/, a 404).
func TestErrorPagesWithoutSlash(t *testing.T) {
	s := apitest.Start(t, "sqlite")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(s.URL + "/docs/errors")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, err := res.Request.URL.Parse(res.Header.Get("Location"))
	if err != nil || res.StatusCode != http.StatusMovedPermanently || loc.Path != "/docs/errors/" {
		t.Fatalf("GET /docs/errors: %d to %v (%v), want 301 to /docs/errors/", res.StatusCode, loc, err)
	}
	page, err := http.Get((&url.URL{Scheme: "http", Host: res.Request.URL.Host, Path: loc.Path}).String())
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if page.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, want 200", loc.Path, page.StatusCode)
	}
}

// TestErrorPagesHeaders: the error-code pages carry the headers every
// other HTML page of the server does (a policy that allows their inline
// style and nothing else, no framing, no sniffing).
func TestErrorPagesHeaders(t *testing.T) {
	s := apitest.Start(t, "sqlite")
	for _, path := range []string{"/docs/errors/", "/docs/errors/validation-failed"} {
		res, err := http.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		h := res.Header
		if res.StatusCode != http.StatusOK || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") ||
			!strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || h.Get("X-Content-Type-Options") != "nosniff" ||
			h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: %d, headers %v; want the security headers", path, res.StatusCode, h)
		}
	}
}
