package intake

import (
	"net/http/httptest"
	"testing"

	"github.com/errata-dev/errata/internal/auth"
)

// TestBrowserOrigin: a request that carries an Origin header is checked
// against a key's allowed_origins whatever the header's form: an empty
// one, or two that differ, pass only a key that allows every origin.
func TestBrowserOrigin(t *testing.T) {
	allowed := []string{"https://app.example.com"}
	for _, tc := range []struct {
		name    string
		values  []string
		allowed bool
	}{
		{"none", nil, true},
		{"listed", []string{"https://app.example.com"}, true},
		{"listed twice", []string{"https://app.example.com", "https://app.example.com"}, true},
		{"not listed", []string{"https://evil.example"}, false},
		{"listed, then another", []string{"https://app.example.com", "https://evil.example"}, false},
		{"another, then listed", []string{"https://evil.example", "https://app.example.com"}, false},
		{"empty", []string{""}, false},
	} {
		r := httptest.NewRequest("POST", "/api/1/envelope/", nil)
		for _, v := range tc.values {
			r.Header.Add("Origin", v)
		}
		o := browserOrigin(r)
		if got := auth.OriginAllowed(allowed, o); got != tc.allowed {
			t.Errorf("%s: origin %q allowed %v, want %v", tc.name, o, got, tc.allowed)
		}
		if !auth.OriginAllowed([]string{"*"}, o) {
			t.Errorf("%s: origin %q refused by a key that allows every origin", tc.name, o)
		}
	}
}
