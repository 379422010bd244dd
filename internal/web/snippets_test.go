package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// snippetBlocks are the <pre><code> blocks of a page, unescaped.
var snippetBlocks = regexp.MustCompile(`(?s)<pre><code>(.*?)</code></pre>`)

// TestIngestSnippetsWork runs the two snippets the key-created page shows,
// exactly as printed: the curl command with the real curl, and the
// OpenTelemetry environment with the real OTLP/HTTP log exporter, which reads
// those variables itself. Both events must arrive in the project.
func TestIngestSnippetsWork(t *testing.T) {
	// No t.Parallel: the OpenTelemetry variables are set with t.Setenv.
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		b := newBrowser(t, s)
		b.signIn(w.Admin.Email)
		page := b.post("/projects/"+w.ProjectID+"/keys", url.Values{"name": {"snippets"}}).expect(t, http.StatusCreated)
		ingest, sentrySDKs, _ := strings.Cut(page.Body, `id="sentry-snippets"`)
		blocks := snippetBlocks.FindAllStringSubmatch(ingest, -1)
		if len(blocks) != 2 {
			t.Fatalf("key page has %d ingest snippets, want 2 (curl, OpenTelemetry): %s", len(blocks), page.Body)
		}
		if n := len(snippetBlocks.FindAllStringSubmatch(sentrySDKs, -1)); n != 4 {
			t.Errorf("key page has %d Sentry SDK snippets, want 4 (JavaScript, Python, Go, Java)", n)
		}
		curl, otel := html.UnescapeString(blocks[0][1]), html.UnescapeString(blocks[1][1])

		if _, err := exec.LookPath("curl"); err != nil {
			t.Log("curl is not installed: the curl snippet is not run")
		} else {
			out, err := exec.Command("bash", "-c", curl+" --silent --show-error --fail-with-body").CombinedOutput()
			if err != nil {
				t.Fatalf("the curl snippet failed: %v\n%s\n%s", err, curl, out)
			}
		}

		for _, line := range strings.Split(otel, "\n") {
			k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
			if !ok {
				t.Fatalf("snippet line %q is not an export", line)
			}
			t.Setenv(k, strings.Trim(v, "'"))
		}
		ctx := context.Background()
		exp, err := otlploghttp.New(ctx, otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}))
		if err != nil {
			t.Fatal(err)
		}
		lp := sdklog.NewLoggerProvider(sdklog.WithProcessor(sdklog.NewSimpleProcessor(exp)))
		var rec otellog.Record
		rec.SetTimestamp(time.Now())
		rec.SetSeverity(otellog.SeverityError)
		rec.SetBody(attribute.StringValue("payment provider unreachable"))
		lp.Logger("snippet-test").Emit(ctx, rec)
		if err := lp.Shutdown(ctx); err != nil {
			t.Fatalf("the OpenTelemetry snippet's exporter failed: %v", err)
		}

		if err := s.App.Processor.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		groups, err := s.App.DB.Read().ListGroups(ctx, w.ProjectID, store.GroupFilter{}, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, g := range groups {
			seen[g.Title] = true
		}
		wantTitles := []string{"payment provider unreachable"}
		if _, err := exec.LookPath("curl"); err == nil {
			wantTitles = append(wantTitles, "card declined for order") // the number is a variable part
		}
		for _, want := range wantTitles {
			found := false
			for title := range seen {
				found = found || strings.HasPrefix(title, want)
			}
			if !found {
				t.Errorf("no error group for %q after running the snippets; groups: %v", want, seen)
			}
		}
	})
}
