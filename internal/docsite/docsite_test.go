package docsite_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/errata-dev/errata/docs"
	"github.com/errata-dev/errata/internal/docsite"
)

func serve(t *testing.T, o docsite.Options) *httptest.Server {
	t.Helper()
	if o.Docs == nil {
		o.Docs = docs.Files
	}
	if o.OpenAPI == nil {
		o.OpenAPI = func() ([]byte, error) { return []byte(`{"openapi":"3.1.0","info":{"title":"T","version":"1"}}`), nil }
	}
	errs := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "errors page") })
	o.Errors, o.NotFound = errs, http.NotFoundHandler()
	h, err := docsite.Handler(o)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /docs/", http.StripPrefix("/docs", h))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, u string) (int, http.Header, string) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, string(b)
}

var (
	hrefRE = regexp.MustCompile(`href="([^"]*)"`)
	idRE   = regexp.MustCompile(`id="([^"]*)"`)
)

// TestEveryDocServedAndLinked: the index lists every docs/*.md, each renders
// to a page with its title, and every link between documents, anchors
// included, leads to a page the site serves and an id on it (issue 29).
func TestEveryDocServedAndLinked(t *testing.T) {
	t.Parallel()
	srv := serve(t, docsite.Options{})
	status, _, index := get(t, srv.URL+"/docs/")
	if status != http.StatusOK {
		t.Fatalf("/docs/: %d", status)
	}
	names, err := docsFiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 10 {
		t.Fatalf("only %d documents embedded: %v", len(names), names)
	}
	pages := map[string]string{}
	for _, name := range names {
		if !strings.Contains(index, `href="/docs/`+name+`"`) {
			t.Errorf("the index does not link %s", name)
		}
		status, h, body := get(t, srv.URL+"/docs/"+name)
		if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			t.Fatalf("/docs/%s: %d %s", name, status, h.Get("Content-Type"))
		}
		if !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") || strings.Contains(body, "<script") {
			t.Errorf("/docs/%s: CSP %q, or a script on the page", name, h.Get("Content-Security-Policy"))
		}
		pages["/docs/"+name] = body
	}
	base, _ := url.Parse(srv.URL + "/docs/")
	links := 0
	for from, body := range pages {
		for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
			ref, err := url.Parse(m[1])
			if err != nil {
				t.Errorf("%s: bad link %q", from, m[1])
				continue
			}
			page, _ := url.Parse(srv.URL + from)
			u := page.ResolveReference(ref)
			if u.Host != base.Host || !strings.HasPrefix(u.Path, "/docs/") {
				continue // the web, or the dashboard and API (the browser test follows those)
			}
			links++
			target, ok := pages[u.Path]
			if !ok {
				status, _, b := get(t, u.String())
				if status != http.StatusOK {
					t.Errorf("%s links %q: %d", from, m[1], status)
					continue
				}
				target = b
			}
			if u.Fragment != "" && !hasID(target, u.Fragment) {
				t.Errorf("%s links %q: no id %q on %s", from, m[1], u.Fragment, u.Path)
			}
		}
	}
	if links < 20 {
		t.Errorf("only %d links between documents were checked", links)
	}
	if status, h, _ := get(t, srv.URL+"/docs/sentry"); status != http.StatusOK || h.Get("Content-Type") == "" {
		t.Errorf("/docs/sentry (redirected to sentry.md): %d", status)
	}
	if status, _, _ := get(t, srv.URL+"/docs/nothing.md"); status != http.StatusNotFound {
		t.Errorf("/docs/nothing.md: %d, want 404", status)
	}
	if status, _, body := get(t, srv.URL+"/docs/errors/"); status != http.StatusOK || body != "errors page" {
		t.Errorf("/docs/errors/ is not the error pages: %d %q", status, body)
	}
}

func hasID(body, id string) bool {
	for _, m := range idRE.FindAllStringSubmatch(body, -1) {
		if m[1] == id {
			return true
		}
	}
	return false
}

func docsFiles() ([]string, error) {
	entries, err := docs.Files.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names, nil
}

// TestMarkdownIsEscaped: raw HTML and dangerous links in a document do not
// reach the page; text is escaped.
func TestMarkdownIsEscaped(t *testing.T) {
	t.Parallel()
	srv := serve(t, docsite.Options{Docs: fstest.MapFS{"evil.md": {Data: []byte(
		"# Evil <b>bold</b>\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n" +
			"[click](javascript:alert(3)) and [ok](other.md) & `<code>` 1 < 2\n")}}})
	status, _, body := get(t, srv.URL+"/docs/evil.md")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	for _, bad := range []string{"<script>alert", "onerror", "javascript:", "<b>bold"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page carries %q:\n%s", bad, body)
		}
	}
	for _, want := range []string{`href="other.md"`, "&lt;code&gt;", "1 &lt; 2", "&amp;", "<title>Evil &lt;b&gt;bold&lt;/b&gt; · Errata docs</title>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
}
