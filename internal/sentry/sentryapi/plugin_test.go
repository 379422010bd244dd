package sentryapi_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/testtool"
)

// pluginVersion is the @sentry/esbuild-plugin the test builds with (.ci/run
// installs it); it runs its own sentry-cli 2.x.
const pluginVersion = "5.4.0"

// pluginBuild is an esbuild build script with Sentry's plugin, configured
// only by what docs/sourcemaps.md tells users to set.
const pluginBuild = `const path = require("path");
const cache = process.env.NPM_CACHE + "/node_modules/";
const esbuild = require(cache + "esbuild");
const { sentryEsbuildPlugin } = require(cache + "@sentry/esbuild-plugin");
esbuild.build({
  entryPoints: [path.join(process.argv[1], "app.js")], bundle: true, minify: true, sourcemap: true,
  format: "iife", globalName: "app", outdir: path.join(process.argv[1], "out"), logLevel: "warning",
  plugins: [sentryEsbuildPlugin({ url: process.env.SENTRY_URL, org: "acme", project: "web",
    authToken: process.env.SENTRY_AUTH_TOKEN, telemetry: false,
    release: { name: "2.0.0", setCommits: false, deploy: { env: "staging" } },
    errorHandler: (err) => { throw err; } })],
}).catch((err) => { console.error(err); process.exit(1); });
`

var uuidRe = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestEsbuildPluginUploads builds with the real @sentry/esbuild-plugin,
// which makes the release, injects debug ids and uploads the bundle and
// its map through its sentry-cli.
func TestEsbuildPluginUploads(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		tok := token(t, s, w.Member.Token, "project:releases")
		testtool.NPMPackage(t, "@sentry/esbuild-plugin", pluginVersion)
		testtool.NPMPackage(t, "esbuild", esbuildVersion)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "app.js"), []byte(appSource), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(testtool.Program(t, "node"), "-e", pluginBuild, dir)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "NPM_CACHE="+testtool.NPMCache(), "SENTRY_URL="+s.URL, "SENTRY_AUTH_TOKEN="+tok,
			"SENTRY_DISABLE_UPDATE_CHECK=true", "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("esbuild with the Sentry plugin: %v\n%s", err, out)
		}
		js, err := os.ReadFile(filepath.Join(dir, "out", "app.js"))
		if err != nil {
			t.Fatal(err)
		}
		// The plugin's snippet carries the debug id as a string literal.
		m := uuidRe.Find(js)
		if m == nil {
			t.Fatalf("the plugin injected no debug id:\n%s", out)
		}
		ctx := context.Background()
		a, err := s.App.DB.Read().ArtifactByDebugID(ctx, w.ProjectID, string(m), "source_map")
		if err != nil {
			t.Fatalf("source map of debug id %s: %v\nbuild output:\n%s", m, err, out)
		}
		rel, err := s.App.DB.Read().ReleaseByVersion(ctx, w.ProjectID, "2.0.0")
		if err != nil || a.ReleaseID != rel.ID || rel.DateReleased == nil {
			t.Errorf("release = %+v, %v; artifact release %q; want 2.0.0 finalized with the map", rel, err, a.ReleaseID)
		}
		if ds, err := s.App.DB.Read().DeploysOf(ctx, rel.ID); err != nil || len(ds) != 1 || ds[0].Environment != "staging" {
			t.Errorf("deploys = %+v, %v; want one to staging", ds, err)
		}
	})
}
