package httpapi_test

import (
	"net/http"
	"net/url"
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
