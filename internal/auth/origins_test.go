package auth

import (
	"slices"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/problem"
)

// TestCheckOrigins normalises allowed origins and refuses what a browser
// never sends as an Origin, naming the entry.
func TestCheckOrigins(t *testing.T) {
	got, err := CheckOrigins([]string{"https://App.Example.com", "https://app.example.com:443", " http://localhost:3000 ", "https://*.Example.org", "*", "http://[::1]:8080"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://app.example.com", "http://localhost:3000", "https://*.example.org", "*", "http://[::1]:8080"}
	if !slices.Equal(got, want) {
		t.Fatalf("CheckOrigins = %q, want %q", got, want)
	}
	for i, bad := range []string{"example.com", "https://example.com/path", "https://example.com?q", "https://user@example.com",
		"https://*", "https://a.*.example.com", "", "https://", "*.example.com", "https://example.com#x", strings.Repeat("a", 400)} {
		_, err := CheckOrigins([]string{"https://fine.example.com", bad})
		pr, _ := err.(*problem.Problem)
		if pr == nil || pr.Status != 422 || !strings.HasPrefix(pr.Detail, "allowed_origins[1]: ") {
			t.Errorf("%d: CheckOrigins(%q) = %v, want 422 naming allowed_origins[1]", i, bad, err)
		}
	}
	if _, err := CheckOrigins([]string{"https://a.example.com", "https://b\x00.example.com"}); err == nil || !strings.Contains(err.Error(), "allowed_origins[1]: must not contain control characters") {
		t.Errorf("a NUL: %v", err)
	}
	if _, err := CheckOrigins(make([]string, MaxAllowedOrigins+1)); err == nil {
		t.Error("more than the most origins accepted")
	}
}

// TestOriginAllowed matches Origin headers against a key's list.
func TestOriginAllowed(t *testing.T) {
	list := []string{"https://app.example.com", "https://*.example.org", "http://localhost:3000"}
	for origin, want := range map[string]bool{
		"":                                 true, // no Origin: not a browser
		"https://app.example.com":          true,
		"HTTPS://APP.EXAMPLE.COM":          true,
		"https://app.example.com:443":      true,
		"http://app.example.com":           false,
		"https://evil.com":                 false,
		"https://app.example.com.evil.com": false,
		"https://a.example.org":            true,
		"https://a.b.example.org":          true,
		"https://example.org":              false,
		"https://notexample.org":           false,
		"http://localhost:3000":            true,
		"http://localhost:3001":            false,
		"null":                             false,
	} {
		if got := OriginAllowed(list, origin); got != want {
			t.Errorf("OriginAllowed(%q) = %v, want %v", origin, got, want)
		}
	}
	if !OriginAllowed([]string{"*"}, "https://anything.example") {
		t.Error(`["*"] refused an origin`)
	}
	if OriginAllowed([]string{}, "https://anything.example") {
		t.Error("an empty list allowed a browser")
	}
}
