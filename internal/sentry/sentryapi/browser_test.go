package sentryapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/testtool"
)

// browserVersion is the @sentry/browser SDK the page reports with.
const browserVersion = "11.12.0"

// page is the application's entry: the real browser SDK, then the bug
// one tick after load, uncaught, as a user's click would raise it.
const page = `import * as Sentry from "@sentry/browser";
import { checkout } from "./app.js";
Sentry.init({ dsn: DSN, release: "5.0.0" });
setTimeout(() => { checkout([{ price: "12" }, { price: "twelve" }]); }, 50);
`

// chrome finds a Chromium as the dashboard's browser tests do.
func chrome(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ERRATA_TEST_CHROME"); p != "" {
		return p
	}
	for _, c := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	testtool.Missing(t, "no Chromium found (apt-get install chromium)")
	return ""
}

// TestBrowserErrorIsSymbolicated: a minified esbuild bundle of an
// application with the real @sentry/browser, its debug ids injected and its
// maps uploaded by sentry-cli, throws in headless Chromium; the error the
// SDK sends shows the original function and file.
func TestBrowserErrorIsSymbolicated(t *testing.T) {
	t.Parallel()
	chromePath := chrome(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		tok := token(t, s, w.Member.Token, "project:releases")
		_, _, dsn := s.CreateKeyDSN(t, w.Owner.Token, w.ProjectID)
		testtool.NPMPackage(t, "@sentry/browser", browserVersion)
		esbuild := filepath.Join(testtool.NPMPackage(t, "esbuild", esbuildVersion), "bin", "esbuild")

		dir := t.TempDir()
		for name, src := range map[string]string{"app.js": appSource, "main.js": page} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(dir, "static")
		cmd := exec.Command(esbuild, filepath.Join(dir, "main.js"), "--bundle", "--minify", "--sourcemap", "--format=iife",
			"--define:DSN="+fmt.Sprintf("%q", dsn), "--outfile="+filepath.Join(out, "main.js"))
		cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(testtool.NPMCache(), "node_modules"))
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("esbuild: %v\n%s", err, b)
		}
		sentryCLI(t, s, tok, "sourcemaps", "inject", out)
		sentryCLI(t, s, tok, "sourcemaps", "upload", "--release", "5.0.0", "--url-prefix", "~/static", out)

		// The application's own server, on another loopback port than Errata's.
		mux := http.NewServeMux()
		mux.Handle("/static/", http.StripPrefix("/static/", http.FileServer(http.Dir(out))))
		mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `<!doctype html><title>shop</title><script src="/static/main.js"></script>`)
		})
		app := httptest.NewServer(mux)
		defer app.Close()

		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		actx, stop := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(chromePath), chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir()))...)
		defer stop()
		bctx, closeBrowser := chromedp.NewContext(actx)
		defer closeBrowser()
		if _, err := chromedp.Run(bctx, chromedp.Navigate(app.URL+"/")); err != nil {
			t.Fatalf("open the page: %v", err)
		}

		var culprit, trace string
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if err := s.App.Processor.Drain(ctx); err != nil {
				t.Fatal(err)
			}
			groups, _ := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups", Token: w.Owner.Token}).JSON(t)["data"].([]any)
			if len(groups) > 0 {
				g := groups[0].(map[string]any)
				culprit, _ = g["culprit"].(string)
				evs, err := s.App.DB.Read().ListGroupEvents(ctx, g["id"].(string), 0, 1)
				if err == nil && len(evs) > 0 {
					trace = evs[0].StackTrace
				}
				break
			}
		}
		if trace == "" {
			t.Fatal("the browser's error never arrived")
		}
		t.Logf("culprit %q, trace:\n%s", culprit, trace)
		if !strings.Contains(culprit, "parseAmount") || !strings.Contains(trace, "at parseAmount (app.js:4:") {
			t.Errorf("culprit %q, trace:\n%s\nwant the original parseAmount at app.js:4", culprit, trace)
		}
	})
}
