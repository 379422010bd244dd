package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// browser is a cookie-keeping client that does not follow redirects, so
// tests see each 303.
type browser struct {
	t      *testing.T
	s      *apitest.Server
	client *http.Client
}

func newBrowser(t *testing.T, s *apitest.Server) *browser {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, s: s, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// page is a read answer.
type page struct {
	Status int
	Header http.Header
	Body   string
}

func (b *browser) do(method, path string, form url.Values, headers map[string]string) *page {
	b.t.Helper()
	if form == nil {
		return b.send(method, path, nil, headers)
	}
	return b.send(method, path, strings.NewReader(form.Encode()), headers)
}

// send is do with a body as it is (a form's, url-encoded or not).
func (b *browser) send(method, path string, body io.Reader, headers map[string]string) *page {
	b.t.Helper()
	req, err := http.NewRequest(method, b.s.URL+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8") // as browsers do
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return &page{Status: res.StatusCode, Header: res.Header, Body: string(raw)}
}

func (b *browser) get(path string) *page { b.t.Helper(); return b.do("GET", path, nil, nil) }

// post sends a form as a same-origin browser would.
func (b *browser) post(path string, form url.Values) *page {
	b.t.Helper()
	return b.do("POST", path, form, map[string]string{"Origin": b.s.URL, "Sec-Fetch-Site": "same-origin"})
}

// signIn signs in through the form and fails the test unless it worked.
func (b *browser) signIn(email string) {
	b.t.Helper()
	p := b.post("/sign-in", url.Values{"email": {email}, "password": {apitest.Password}, "next": {"/"}})
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/" {
		b.t.Fatalf("sign in as %s: status %d location %q; body: %s", email, p.Status, p.Header.Get("Location"), p.Body)
	}
}

// expect fails the test unless the page has status and contains every want.
func (p *page) expect(t *testing.T, status int, want ...string) *page {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status = %d, want %d; body: %s", p.Status, status, p.Body)
	}
	for _, w := range want {
		if !strings.Contains(p.Body, w) {
			t.Errorf("page lacks %q; body: %s", w, p.Body)
		}
	}
	return p
}

// seedTicket ingests an error event of its own group into projectID with a
// new key of owner's, processes it and returns the ticket opened.
func seedTicket(t *testing.T, s *apitest.Server, ownerToken, projectID, message, level string) string {
	t.Helper()
	_, key := s.CreateKey(t, ownerToken, projectID)
	s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: map[string]any{"service": "checkout", "environment": "prod",
		"events": []any{map[string]any{"message": message, "level": level, "attributes": map[string]any{"fingerprint": message}}}}}).
		Expect(t, http.StatusAccepted, "")
	if err := s.App.Processor.Drain(context.Background()); err != nil {
		t.Fatalf("drain: %v", err)
	}
	r := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + projectID + "/tickets?limit=1", Token: ownerToken}).Expect(t, http.StatusOK, "")
	data := r.JSON(t)["data"].([]any)
	if len(data) == 0 {
		t.Fatalf("no ticket opened for %q", message)
	}
	return data[0].(map[string]any)["id"].(string)
}
