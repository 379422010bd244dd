package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
	"github.com/errata-dev/errata/internal/testproxy"
)

// TestDashboardDuringDatabaseOutage: the dashboard answers a database
// outage as the API does (503 unavailable with Retry-After), through the
// one mapping from errors to answers, never as a logged 500; and it
// recovers without a restart.
func TestDashboardDuringDatabaseOutage(t *testing.T) {
	dbURL := storetest.URL(t, store.Postgres)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := testproxy.Start(t, u.Host)
	s := apitest.StartOn(t, proxy.URL(t, dbURL))
	w := s.NewWorld(t)
	b := newBrowser(t, s)
	b.signIn(w.Owner.Email)
	path := "/projects/" + w.ProjectID
	b.get(path).expect(t, http.StatusOK)

	proxy.Cut()
	p := b.get(path)
	if p.Status != http.StatusServiceUnavailable || p.Header.Get("Retry-After") == "" || !strings.Contains(p.Body, "unavailable") {
		t.Fatalf("page during the outage: status %d, Retry-After %q; body: %s", p.Status, p.Header.Get("Retry-After"), p.Body)
	}
	proxy.Restore()
	for i := 0; ; i++ {
		if p := b.get(path); p.Status == http.StatusOK {
			break
		} else if p.Status != http.StatusServiceUnavailable || i > 100 {
			t.Fatalf("page after the database came back: %d", p.Status)
		}
	}
}
