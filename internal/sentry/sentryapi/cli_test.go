package sentryapi_test

import (
	"context"
	"github.com/errata-dev/errata/internal/store"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/testtool"
)

// Versions of the real tools these tests run (.ci/run installs them).
const (
	cliVersion     = "3.8.0"
	esbuildVersion = "0.28.2"
)

// appSource is a small application whose error comes from a named
// function, for a minified bundle with a source map.
const appSource = `export function parseAmount(input) {
  const value = Number(input);
  if (Number.isNaN(value)) {
    throw new TypeError("not a number: " + input);
  }
  return value * 100;
}

export function checkout(cart) {
  return cart.map((item) => parseAmount(item.price));
}
`

// build bundles appSource with the real esbuild into dir/out/main.js and
// main.js.map, minified.
func build(t *testing.T, dir string) string {
	t.Helper()
	return buildSource(t, dir, appSource)
}

// buildSource bundles source as build does, with esbuild's further flags.
func buildSource(t *testing.T, dir, source string, flags ...string) string {
	t.Helper()
	esbuild := filepath.Join(testtool.NPMPackage(t, "esbuild", esbuildVersion), "bin", "esbuild")
	if err := os.WriteFile(filepath.Join(dir, "app.js"), []byte(source), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(esbuild, append([]string{filepath.Join(dir, "app.js"), "--bundle", "--minify", "--sourcemap", "--format=iife",
		"--global-name=app", "--outfile=" + filepath.Join(out, "main.js")}, flags...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild: %v\n%s", err, b)
	}
	return out
}

// sentryCLI runs the real sentry-cli against s with the token.
func sentryCLI(t *testing.T, s *apitest.Server, token string, args ...string) string {
	t.Helper()
	bin := filepath.Join(testtool.NPMPackage(t, "@sentry/cli-linux-x64", cliVersion), "bin", "sentry-cli")
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "SENTRY_URL="+s.URL, "SENTRY_ORG=acme", "SENTRY_PROJECT=web", "SENTRY_AUTH_TOKEN="+token,
		"SENTRY_DISABLE_UPDATE_CHECK=true", "SENTRY_LOAD_DOTENV=0", "HOME="+t.TempDir())
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sentry-cli %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return string(b)
}

func token(t *testing.T, s *apitest.Server, session string, scopes ...string) string {
	t.Helper()
	return s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: session, Body: map[string]any{"name": "ci", "scopes": scopes}}).
		Expect(t, http.StatusCreated, "").Str(t, "token")
}

var debugIDRe = regexp.MustCompile(`debugId=([0-9a-f-]{36})`)

// TestSentryCLIUploadsSourceMaps runs the real sentry-cli as a frontend
// team's CI would: a release, debug ids injected into an esbuild bundle,
// the bundle uploaded, the release finalized and deployed.
func TestSentryCLIUploadsSourceMaps(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		tok := token(t, s, w.Member.Token, "project:releases")
		out := build(t, t.TempDir())

		sentryCLI(t, s, tok, "releases", "new", "1.2.0")
		inject := sentryCLI(t, s, tok, "sourcemaps", "inject", out)
		js, err := os.ReadFile(filepath.Join(out, "main.js"))
		if err != nil {
			t.Fatal(err)
		}
		m := debugIDRe.FindSubmatch(js)
		if m == nil {
			t.Fatalf("sentry-cli sourcemaps inject left no debugId in main.js:\n%s", inject)
		}
		debugID := string(m[1])
		up := sentryCLI(t, s, tok, "sourcemaps", "upload", "--release", "1.2.0", "--url-prefix", "~/static", out)
		t.Logf("upload: %s", up)
		if !strings.Contains(up, "File processing complete") {
			t.Errorf("upload output = %s, want processing complete", up)
		}
		// The same bundle again: every chunk is there already.
		sentryCLI(t, s, tok, "sourcemaps", "upload", "--release", "1.2.0", "--url-prefix", "~/static", out)
		sentryCLI(t, s, tok, "releases", "finalize", "1.2.0")
		sentryCLI(t, s, tok, "deploys", "new", "--release", "1.2.0", "-e", "production", "-n", "blue")

		ctx := context.Background()
		db := s.App.DB.Read()
		for _, kind := range []string{"minified_source", "source_map"} {
			a, err := db.ArtifactByDebugID(ctx, w.ProjectID, debugID, kind)
			if err != nil {
				t.Fatalf("%s of debug id %s: %v", kind, debugID, err)
			}
			if a.ReleaseID == "" || !strings.HasPrefix(a.URL, "~/static/main.js") {
				t.Errorf("%s = release %q url %q, want in release 1.2.0 at ~/static/main.js…", kind, a.ReleaseID, a.URL)
			}
		}
		rel, err := db.ReleaseByVersion(ctx, w.ProjectID, "1.2.0")
		if err != nil {
			t.Fatal(err)
		}
		if rel.DateReleased == nil || rel.ArtifactCount != 2 {
			t.Errorf("release = %+v, want finalized with 2 artifacts (the second upload adds none)", rel)
		}
		deploys, err := db.DeploysOf(ctx, rel.ID)
		if err != nil || len(deploys) != 1 || deploys[0].Environment != "production" || deploys[0].Name != "blue" {
			t.Errorf("deploys = %+v, %v; want one to production named blue", deploys, err)
		}
	})
}

// TestWebAPIAccess: the token's scope, the user's role and the
// organization's visibility hold on /api/0 as on /v1, in Sentry's error shape.
func TestWebAPIAccess(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		opts := "/api/0/organizations/acme/chunk-upload/"
		releases := "/api/0/organizations/acme/releases/"
		body := map[string]any{"version": "1.0", "projects": []string{"web"}}
		reader := token(t, s, w.Member.Token, "project:read")
		viewer := token(t, s, w.Viewer.Token, "project:releases")
		member := token(t, s, w.Member.Token, "project:releases")
		outsider := token(t, s, w.Outsider.Token, "project:releases")
		for _, c := range []struct {
			method, path, token string
			body                any
			status              int
		}{
			{"GET", opts, "", nil, http.StatusUnauthorized},
			{"GET", opts, "errata_pat_nonsense", nil, http.StatusUnauthorized},
			{"GET", opts, reader, nil, http.StatusOK},
			{"POST", releases, reader, body, http.StatusForbidden},
			{"POST", releases, viewer, body, http.StatusForbidden},
			{"GET", opts, outsider, nil, http.StatusNotFound},
			// A project named in the body is 400 (sentry-cli reads a 404 as
			// "organization not found"); one named by the path is 404.
			{"POST", releases, member, map[string]any{"version": "1.0", "projects": []string{"nope"}}, http.StatusBadRequest},
			{"POST", "/api/0/projects/acme/nope/releases/", member, map[string]any{"version": "1.0"}, http.StatusNotFound},
			{"POST", releases, member, map[string]any{"version": "a/b", "projects": []string{"web"}}, http.StatusBadRequest},
			{"POST", releases, member, body, http.StatusCreated},
			{"GET", releases + "1.0/", member, nil, http.StatusOK},
			{"GET", releases + "2.0/", member, nil, http.StatusNotFound},
			{"GET", "/api/0/organizations/" + w.OrgID + "/releases/1.0/", reader, nil, http.StatusOK},
		} {
			r := s.Do(apitest.Request{Method: c.method, Path: c.path, Token: c.token, Body: c.body})
			if r.Status != c.status {
				t.Errorf("%s %s: status %d, want %d; body %s", c.method, c.path, r.Status, c.status, r.Body)
				continue
			}
			if c.status >= 400 && r.Str(t, "detail") == "" {
				t.Errorf("%s %s: body %s, want Sentry's {\"detail\": …}", c.method, c.path, r.Body)
			}
		}
		// The dashboard's cookie is no credential here, for reads either.
		cookie := []*http.Cookie{{Name: httpserver.SessionCookie, Value: w.Member.Token}}
		if r := s.Do(apitest.Request{Method: "GET", Path: releases + "1.0/", Cookies: cookie}); r.Status != http.StatusUnauthorized {
			t.Errorf("GET with the session cookie: %d %s, want 401", r.Status, r.Body)
		}
		got := s.Do(apitest.Request{Method: "GET", Path: releases + "1.0/", Token: member}).JSON(t)
		if got["version"] != "1.0" || got["dateCreated"] == nil {
			t.Errorf("release = %v, want version 1.0 with dateCreated", got)
		}
		if ps, _ := got["projects"].([]any); len(ps) != 1 || ps[0].(map[string]any)["slug"] != "web" {
			t.Errorf("release projects = %v, want web", got["projects"])
		}

		// The organization's sign-in rules hold here too: a token (or a
		// password session) is not a single sign-on, and a user without
		// two-factor sign-in meets no require_2fa.
		ctx := context.Background()
		for _, rule := range []struct {
			code string
			set  func(o *store.Org)
		}{{"sso-required", func(o *store.Org) { o.SSORequired = true }}, {"2fa-required", func(o *store.Org) { o.Require2FA = true }}} {
			o, err := s.App.DB.Read().OrgByID(ctx, w.OrgID)
			if err != nil {
				t.Fatal(err)
			}
			rule.set(&o)
			if err := s.App.DB.Write().UpdateOrg(ctx, o); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct{ method, path, token string }{{"GET", releases + "1.0/", member}, {"GET", opts, reader}, {"GET", releases + "1.0/", w.Member.Token}} {
				r := s.Do(apitest.Request{Method: c.method, Path: c.path, Token: c.token})
				if r.Status != http.StatusForbidden || !strings.HasPrefix(r.Str(t, "detail"), rule.code) {
					t.Errorf("%s %s with %s on: %d %s, want 403 %s", c.method, c.path, rule.code, r.Status, r.Body, rule.code)
				}
			}
			o.SSORequired, o.Require2FA = false, false
			if err := s.App.DB.Write().UpdateOrg(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
	})
}
