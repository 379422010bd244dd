package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/store"
)

// TestBaseURLWarning: a dashboard whose base URL (ERRATA_BASE_URL) is a
// loopback or unspecified address warns a person who opened it from another
// machine, through a host name or a proxy's forwarded address that is not
// loopback (issue 29), and nobody on the server's own machine or when the
// base URL is public.
func TestBaseURLWarning(t *testing.T) {
	t.Parallel()
	const warning = `id="base-url-warning"`
	for _, tc := range []struct {
		name    string
		opt     func(*config.Serve)
		host    string
		forward string
		warn    bool
	}{
		{name: "loopback, asked on loopback", warn: false},
		{name: "loopback, asked through a host name", host: "errata.lan:8080", warn: true},
		{name: "loopback, asked through a LAN address", host: "192.168.1.20:8080", warn: true},
		{name: "loopback, asked as localhost", host: "localhost:8080", warn: false},
		{name: "loopback, forwarded from elsewhere", forward: "203.0.113.9", warn: true,
			opt: func(c *config.Serve) { c.TrustedProxies = []string{"127.0.0.0/8"} }},
		{name: "unspecified", host: "errata.lan:8080", warn: true,
			opt: func(c *config.Serve) { c.BaseURL = "http://0.0.0.0:8080" }},
		{name: "public", host: "errata.lan:8080", forward: "203.0.113.9", warn: false,
			opt: func(c *config.Serve) {
				c.BaseURL, c.AppURL = "https://errata.example.com", "http://"+c.Addr
				c.TrustedProxies = []string{"127.0.0.0/8"}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []func(*config.Serve)
			if tc.opt != nil {
				opts = append(opts, tc.opt)
			}
			s := apitest.Start(t, store.SQLite, opts...)
			w := s.NewWorld(t)
			b := newBrowser(t, s)
			b.signIn(w.Owner.Email)
			req, err := http.NewRequest("GET", s.URL+"/projects/"+w.ProjectID+"/keys", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.forward != "" {
				req.Header.Set("X-Forwarded-For", tc.forward)
			}
			for _, c := range b.client.Jar.Cookies(req.URL) {
				req.AddCookie(c)
			}
			res, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			body := string(raw)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", res.StatusCode, body)
			}
			if got := strings.Contains(body, warning); got != tc.warn {
				t.Fatalf("warning shown = %v, want %v (base URL %s); body: %s", got, tc.warn, s.Config.BaseURL, body)
			}
			if tc.warn {
				for _, want := range []string{"<code>" + s.Config.BaseURL + "</code>", "ERRATA_BASE_URL", `href="/docs/configuration.md"`} {
					if !strings.Contains(body, want) {
						t.Errorf("the warning lacks %q", want)
					}
				}
			}
		})
	}
}
