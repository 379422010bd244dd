package web_test

// A real browser for the dashboard's end-to-end tests: headless Chromium
// driven by chromedp over the DevTools protocol, against a real Errata
// server (apitest.Start) on loopback. Each test gets its own browser
// process (a fresh profile, so no cookies leak between tests) and a time
// limit; screenshots go to t.ArtifactDir() (kept under test-artifacts/ by
// `make test`, which passes -artifacts).

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/errata-dev/errata/internal/apitest"
)

// chromeTimeout bounds one browser test from start to end. A test takes
// 5 to 20 seconds; the margin is for a loaded CI machine running every
// package at once under the race detector.
const chromeTimeout = 90 * time.Second

// chromeCandidates are the browser commands looked for, in order; the
// environment variable ERRATA_TEST_CHROME names another.
var chromeCandidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// chromePath finds the browser. Without one the test fails when CI=true
// (CI installs Debian's chromium: .ci/run) and is skipped elsewhere, as the
// PostgreSQL tests are.
func chromePath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ERRATA_TEST_CHROME"); p != "" {
		return p
	}
	for _, c := range chromeCandidates {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("no Chromium found (%s): browser tests must run in CI; .ci/run installs Debian's chromium", strings.Join(chromeCandidates, ", "))
	}
	t.Skipf("browser tests skipped: no Chromium found (%s); install it (apt-get install chromium) or set ERRATA_TEST_CHROME", strings.Join(chromeCandidates, ", "))
	return ""
}

// chromeTab is one tab of a fresh headless Chromium, with what the pages
// did on the side: every request's URL, and console errors, uncaught
// exceptions and Content-Security-Policy violations.
type chromeTab struct {
	t   *testing.T
	s   *apitest.Server
	ctx context.Context

	mu       sync.Mutex
	requests []string // URLs of every request the pages sent
	problems []string // console errors, exceptions, CSP violations
	dialogs  []string // messages of the JavaScript dialogs answered
	dismiss  bool     // answer the next dialogs with Cancel
}

// chromeShots numbers each test's screenshots (*testing.T to
// *atomic.Int32), shared by the test's browsers.
var chromeShots sync.Map

// chromeZone is the browser's time zone: not the server's UTC, so the
// tests see app.js turn times local.
const chromeZone = "Asia/Tokyo"

// cspProbe runs in every document before the page's own scripts (DevTools
// injects it, so the page's policy does not apply to it) and reports each
// violation of the Content-Security-Policy to the console, where the
// listener sees it.
const cspProbe = `document.addEventListener("securitypolicyviolation", (e) => {
  console.error("CSP violation: " + e.violatedDirective + " blocked " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber);
});`

// newChrome starts a browser for s. It is closed when the test ends; a
// failed test leaves a screenshot of where it stopped.
func newChrome(t *testing.T, s *apitest.Server) *chromeTab {
	t.Helper()
	return newChromeFor(t, s, chromeTimeout)
}

// newChromeFor is newChrome for a test that may take up to limit.
func newChromeFor(t *testing.T, s *apitest.Server, limit time.Duration) *chromeTab {
	t.Helper()
	exe := chromePath(t)
	c := &chromeTab{t: t, s: s}
	base, cancelBase := context.WithTimeout(context.Background(), limit)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox, // the tests run as root in CI, where the sandbox refuses to start
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("lang", "en-US"),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(base, opts...)
	ctx, cancelTab := chromedp.NewContext(alloc, chromedp.WithListener(c.listen))
	c.ctx = ctx
	t.Cleanup(func() {
		if t.Failed() && ctx.Err() == nil {
			c.shotQuietly("failed")
		}
		_ = chromedp.Cancel(ctx)
		cancelTab()
		cancelAlloc()
		cancelBase()
		chromeShots.Delete(t)
	})
	// Start the browser, install the CSP probe for every page to come and
	// move the browser to chromeZone.
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: cspProbe}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: chromeZone})
		return err
	})); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	// Answer confirm() (data-confirm forms) as the test says: a dialog
	// blocks the page until someone does.
	dialogs := chromedp.Events(ctx, cdppage.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			c.mu.Lock()
			c.dialogs = append(c.dialogs, ev.Message)
			accept := !c.dismiss
			c.mu.Unlock()
			_, _ = chromedp.Call(ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: accept})
		}
	}()
	return c
}

// answerDialogs sets how the next JavaScript dialogs are answered (OK by
// default) and returns the messages of the dialogs answered so far.
func (c *chromeTab) answerDialogs(ok bool) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dismiss = !ok
	return slices.Clone(c.dialogs)
}

// listen runs in the tab's event loop (it must return fast and send no
// command): it records requests and problems.
func (c *chromeTab) listen(ev any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		c.requests = append(c.requests, ev.Request.URL)
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			c.problems = append(c.problems, "console."+string(ev.Type)+": "+consoleArgs(ev.Args))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text += " " + d.Exception.Description
		}
		c.problems = append(c.problems, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, text))
	case *cdplog.EventEntryAdded:
		e := ev.Entry
		// Answers with an error status are logged by the network source;
		// tests that provoke a 403 or 404 check those statuses themselves.
		if e.Source != cdplog.EntrySourceNetwork && (e.Level == cdplog.EntryLevelError || strings.Contains(e.Text, "Content Security Policy")) {
			c.problems = append(c.problems, fmt.Sprintf("log %s/%s: %s (%s)", e.Source, e.Level, e.Text, e.URL))
		}
	}
}

func consoleArgs(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		switch {
		case len(a.Value) > 0:
			parts = append(parts, strings.Trim(string(a.Value), `"`))
		case a.Description != "":
			parts = append(parts, a.Description)
		default:
			parts = append(parts, string(a.Type))
		}
	}
	return strings.Join(parts, " ")
}

// run runs steps and fails the test on the first error.
func (c *chromeTab) run(what string, steps ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	if err := chromedp.Do(c.ctx, steps...); err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
}

// open loads path of the server (or an absolute URL) and returns the
// document's HTTP status.
func (c *chromeTab) open(path string) int64 {
	c.t.Helper()
	u := path
	if strings.HasPrefix(path, "/") {
		u = c.s.URL + path
	}
	res, err := chromedp.Run(c.ctx, chromedp.NavigateResponse(u))
	if err != nil {
		c.t.Fatalf("open %s: %v", path, err)
	}
	return res.Status
}

// follow runs steps that start a navigation (a click on a submit button, a
// link) and waits for the new document; it returns its status and address
// (after redirects, as the address bar shows it).
func (c *chromeTab) follow(what string, steps ...chromedp.Action[chromedp.Void]) (int64, string) {
	c.t.Helper()
	res, err := chromedp.RunResponse(c.ctx, steps...)
	if err != nil {
		c.t.Fatalf("%s: %v", what, err)
	}
	return res.Status, c.location()
}

// click presses the button or link sel and waits for the page it leads to.
func (c *chromeTab) click(sel string) (int64, string) {
	c.t.Helper()
	return c.follow("click "+sel, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// location is the current address, relative to the server when on it.
func (c *chromeTab) location() string {
	c.t.Helper()
	loc, err := chromedp.Run(c.ctx, chromedp.Location())
	if err != nil {
		c.t.Fatalf("location: %v", err)
	}
	return strings.TrimPrefix(loc, c.s.URL)
}

// text is the rendered text of the first element matching sel, waiting for
// it to be there.
func (c *chromeTab) text(sel string) string {
	c.t.Helper()
	s, err := chromedp.Run(c.ctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeReady))
	if err != nil {
		c.t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// count is how many elements match sel now (no waiting).
func (c *chromeTab) count(sel string) int {
	c.t.Helper()
	n, err := chromedp.Run(c.ctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
	if err != nil {
		c.t.Fatalf("count %s: %v", sel, err)
	}
	return n
}

// expectText fails unless the element sel shows every want.
func (c *chromeTab) expectText(sel string, want ...string) string {
	c.t.Helper()
	got := c.text(sel)
	for _, w := range want {
		if !strings.Contains(got, w) {
			c.t.Errorf("%s on %s shows %q, lacking %q", sel, c.location(), got, w)
		}
	}
	return got
}

// eval evaluates a JavaScript expression in the page (a promise is awaited)
// and decodes its value.
func eval[T any](c *chromeTab, expr string) T {
	c.t.Helper()
	v, err := chromedp.Run(c.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		c.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// shot saves a full-page PNG screenshot named name into the test's
// artifact directory and logs where.
func (c *chromeTab) shot(name string) {
	c.t.Helper()
	if p, err := c.screenshot(name); err != nil {
		c.t.Fatalf("screenshot %s: %v", name, err)
	} else {
		c.t.Logf("screenshot %s", p)
	}
}

func (c *chromeTab) shotQuietly(name string) {
	if p, err := c.screenshot(name); err == nil {
		c.t.Logf("screenshot at failure: %s", p)
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// screenshot writes <test name>-<nn>-<name>.png: the test's name is in the
// file's, since -artifacts names the directories at random.
func (c *chromeTab) screenshot(name string) (string, error) {
	buf, err := chromedp.Run(c.ctx, chromedp.FullScreenshot(100)) // 100: PNG
	if err != nil {
		return "", err
	}
	counter, _ := chromeShots.LoadOrStore(c.t, new(atomic.Int32))
	n := counter.(*atomic.Int32).Add(1)
	file := fmt.Sprintf("%s-%02d-%s.png", unsafeName.ReplaceAllString(c.t.Name(), "_"), n, unsafeName.ReplaceAllString(name, "_"))
	p := filepath.Join(c.t.ArtifactDir(), file)
	return p, os.WriteFile(p, buf, 0o644)
}

// requested returns the URLs requested so far and forgets them.
func (c *chromeTab) requested() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.requests
	c.requests = nil
	return r
}

// expectOnlyOwnOrigin fails if any request so far left the server's
// origin (data: URLs, which never reach the network, aside).
func (c *chromeTab) expectOnlyOwnOrigin() {
	c.t.Helper()
	own, err := url.Parse(c.s.URL)
	if err != nil {
		c.t.Fatal(err)
	}
	reqs := c.requested()
	if len(reqs) == 0 {
		c.t.Error("no request was recorded: the network listener is not working")
	}
	for _, r := range reqs {
		u, err := url.Parse(r)
		if err != nil {
			c.t.Errorf("unparsable request URL %q", r)
			continue
		}
		if u.Scheme == "data" {
			continue
		}
		if u.Scheme != own.Scheme || u.Host != own.Host {
			c.t.Errorf("a page requested %s, outside %s", r, c.s.URL)
		}
	}
}

// expectNoProblems fails if a page logged a console error, threw an
// uncaught exception or violated the Content-Security-Policy.
func (c *chromeTab) expectNoProblems() {
	c.t.Helper()
	c.mu.Lock()
	ps := slices.Clone(c.problems)
	c.problems = nil
	c.mu.Unlock()
	for _, p := range ps {
		c.t.Errorf("browser reported: %s", p)
	}
}

// fill types value into the field with id, as a person does.
func (c *chromeTab) fill(id, value string) {
	c.t.Helper()
	c.run("fill #"+id, chromedp.WaitVisible(chromedp.ID(id)), chromedp.SendKeys(chromedp.ID(id), value))
}

// replace clears the field with id and types value into it.
func (c *chromeTab) replace(id, value string) {
	c.t.Helper()
	c.run("replace #"+id, chromedp.WaitVisible(chromedp.ID(id)), chromedp.Clear(chromedp.ID(id)), chromedp.SendKeys(chromedp.ID(id), value))
}

// postActions lists the paths the page's submit buttons post to (a button's
// formmethod and formaction win over its form's), the header's sign-out
// aside: the changes the page offers.
func (c *chromeTab) postActions() []string {
	c.t.Helper()
	return eval[[]string](c, `[...document.querySelectorAll("main form button, main form input[type=submit]")]
  .filter((b) => b.type === "submit")
  .filter((b) => (b.getAttribute("formmethod") || b.form.getAttribute("method") || "get").toLowerCase() === "post")
  .map((b) => new URL(b.getAttribute("formaction") || b.form.getAttribute("action") || location.href, location.href).pathname)`)
}

// waitScript waits for static/app.js to have run on the page (it marks
// <html data-js="ready">).
func (c *chromeTab) waitScript() {
	c.t.Helper()
	c.run("wait for app.js", chromedp.WaitReady(chromedp.CSS(`html[data-js="ready"]`)))
}
