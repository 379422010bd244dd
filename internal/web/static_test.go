package web_test

import (
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/testtool"

	"github.com/errata-dev/errata/internal/apitest"
)

// These tests guard the Content-Security-Policy and the no-other-origin rule
// at the source: they read static/ and templates/ as text.

// staticJSBudget is the most JavaScript the dashboard may ship, in bytes.
const staticJSBudget = 20 << 10

// layoutScript is the one <script> element the templates may carry.
const layoutScript = `<script src="/static/app.js" defer></script>`

// staticFiles returns the text of every file under dirs, by slash path.
func staticFiles(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			raw, err := os.ReadFile(p)
			out[filepath.ToSlash(p)] = string(raw)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no files under %v", dirs)
	}
	return out
}

func TestStaticScriptBudget(t *testing.T) {
	t.Parallel()
	js, err := filepath.Glob("static/*.js")
	if err != nil || len(js) == 0 {
		t.Fatalf("static/*.js: %v %v", js, err)
	}
	var total int64
	for _, f := range js {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		total += st.Size()
	}
	if total > staticJSBudget {
		t.Errorf("static/*.js is %d bytes, over the %d-byte budget", total, staticJSBudget)
	}
}

var (
	absoluteURL = regexp.MustCompile(`(?i)https?://[^\s"'<>)]*`)
	// Documentation hosts (RFC 2606) and XML namespaces name no origin the
	// page contacts.
	harmlessURL = regexp.MustCompile(`(?i)^https?://(([a-z0-9-]+\.)*example(\.(com|org|net))?([:/]|$)|www\.w3\.org/)`)
	// Protocol-relative references load from another origin too.
	protocolRelative = regexp.MustCompile(`(?i)((src|href|action|formaction|poster|data)\s*=\s*["']?|url\(\s*["']?|@import\s+["'])//`)
)

func TestStaticNoOtherOrigin(t *testing.T) {
	t.Parallel()
	for name, text := range staticFiles(t, "static", "templates") {
		for _, u := range absoluteURL.FindAllString(text, -1) {
			if !harmlessURL.MatchString(u) {
				t.Errorf("%s references another origin: %q", name, u)
			}
		}
		if m := protocolRelative.FindString(text); m != "" {
			t.Errorf("%s has a protocol-relative reference: %q", name, m)
		}
	}
}

var (
	tag = regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	// Attributes the policy refuses: inline handlers and inline style.
	inlineAttr = regexp.MustCompile(`(?i)\s(on[a-z]+|style)\s*=`)
	scriptOpen = regexp.MustCompile(`(?i)<script\b[^>]*>`)
	styleElem  = regexp.MustCompile(`(?i)<style\b`)
)

func TestTemplatesKeepThePolicy(t *testing.T) {
	t.Parallel()
	for name, text := range staticFiles(t, "templates") {
		scripts := scriptOpen.FindAllStringIndex(text, -1)
		want := 0
		if name == "templates/layout.html" {
			want = 1
		}
		if len(scripts) != want {
			t.Errorf("%s has %d <script> elements, want %d", name, len(scripts), want)
		}
		for _, s := range scripts {
			if !strings.HasPrefix(text[s[0]:], layoutScript) {
				t.Errorf("%s: script %q, want only %s", name, text[s[0]:s[1]], layoutScript)
			}
		}
		if styleElem.MatchString(text) {
			t.Errorf("%s has a <style> element", name)
		}
		if strings.Contains(strings.ToLower(text), "javascript:") {
			t.Errorf("%s has a javascript: URL", name)
		}
		for _, el := range tag.FindAllString(text, -1) {
			for _, m := range inlineAttr.FindAllString(el, -1) {
				t.Errorf("%s: inline %q in %s", name, strings.TrimSpace(m), el)
			}
		}
	}
}

// The guards above must be able to fail: each bad line trips its pattern.
func TestStaticGuardsCatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		re   *regexp.Regexp
		text string
	}{
		{absoluteURL, `<img src="https://cdn.evil.test/x.png">`},
		{protocolRelative, `<script src="//cdn.evil.test/x.js">`},
		{protocolRelative, `background: url(//cdn.evil.test/x.png)`},
		{inlineAttr, `<button onclick="go()">`},
		{inlineAttr, `<p style="color: red">`},
		{scriptOpen, `<SCRIPT>alert(1)</SCRIPT>`},
	} {
		if !c.re.MatchString(c.text) {
			t.Errorf("%v does not catch %q", c.re, c.text)
		}
	}
	for _, ok := range []string{"https://hooks.example.com/errata", "http://www.w3.org/2000/svg"} {
		if !harmlessURL.MatchString(ok) {
			t.Errorf("%q should be allowed", ok)
		}
	}
	if harmlessURL.MatchString("https://example.com.evil.test/") || harmlessURL.MatchString("https://notexample.com/") {
		t.Error("harmlessURL allows a lookalike host")
	}
}

func TestStaticScriptSyntax(t *testing.T) {
	t.Parallel()
	node := testtool.Program(t, "node")
	if out, err := exec.Command(node, "--check", "static/app.js").CombinedOutput(); err != nil {
		t.Fatalf("node --check static/app.js: %v\n%s", err, out)
	}
}

func TestStaticScriptServed(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile("static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		b := newBrowser(t, s)
		js := b.get("/static/app.js").expect(t, http.StatusOK, `dataset.js = "ready"`)
		if js.Body != string(want) {
			t.Errorf("/static/app.js is not static/app.js (%d bytes, want %d)", len(js.Body), len(want))
		}
		// The type comes from Go's mime table (a system table may drop the
		// charset): JavaScript it must be, with nosniff.
		if ct := js.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
			t.Errorf("/static/app.js Content-Type = %q, want text/javascript", ct)
		}
		for k, v := range map[string]string{
			"Cache-Control":          "public, max-age=3600",
			"X-Content-Type-Options": "nosniff",
		} {
			if got := js.Header.Get(k); got != v {
				t.Errorf("/static/app.js %s = %q, want %q", k, got, v)
			}
		}
		b.get("/sign-up").expect(t, http.StatusOK, layoutScript) // no account yet: the first-account form
		s.SignUp(t, "owner@example.com")
		b.get("/sign-in").expect(t, http.StatusOK, layoutScript)
		if listing := b.get("/static/"); listing.Status != http.StatusNotFound || strings.Contains(listing.Body, "app.js") {
			t.Errorf("GET /static/ = %d %q, want a 404 and no directory listing", listing.Status, listing.Body)
		}
	})
}
