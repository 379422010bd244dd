package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
)

// insightIngest sends events to projectID with a new key of the owner's and
// processes them.
func insightIngest(t *testing.T, s *apitest.Server, ownerToken, projectID, service string, events ...map[string]any) {
	t.Helper()
	_, key := s.CreateKey(t, ownerToken, projectID)
	list := make([]any, len(events))
	for i, e := range events {
		list[i] = e
	}
	s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: map[string]any{"service": service, "environment": "prod", "events": list}}).
		Expect(t, http.StatusAccepted, "")
	if err := s.App.Processor.Drain(context.Background()); err != nil {
		t.Fatalf("drain: %v", err)
	}
}

// insightEvent is one event of a batch.
func insightEvent(level, message string) map[string]any {
	return map[string]any{"level": level, "message": message}
}

// insightFailingChannel stores a webhook channel of projectID that has
// failed store.FailingAfter deliveries in a row.
func insightFailingChannel(t *testing.T, s *apitest.Server, projectID, memberID, name string) string {
	t.Helper()
	now := time.Now().UTC()
	ch := store.Channel{ID: id.New(id.Channel), ProjectID: projectID, MemberID: memberID, Name: name, Type: store.ChannelWebhook,
		URL: "https://hooks.example.com/errata", Enabled: true, Secret: "whsec_test", Health: store.HealthFailing,
		ConsecutiveFailures: store.FailingAfter, LastDeliveryAt: &now, CreatedAt: now, UpdatedAt: now}
	if err := s.App.DB.Write().CreateChannel(context.Background(), ch); err != nil {
		t.Fatalf("CreateChannel: %v", err)
	}
	return ch.ID
}

// insightFigure returns the <figure> of the chart with id from body.
func insightFigure(t *testing.T, body, id string) string {
	t.Helper()
	i := strings.Index(body, `<figure class="chart-fig" id="`+id+`">`)
	if i < 0 {
		t.Fatalf("no chart %s in: %s", id, body)
	}
	return body[i : i+strings.Index(body[i:], "</figure>")]
}

func TestOverviewChartsSummaryAndFailingChannels(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		insightIngest(t, s, w.Owner.Token, w.ProjectID, "checkout",
			insightEvent("error", "payment gateway timeout"), insightEvent("error", "payment gateway timeout"),
			insightEvent("fatal", "out of memory"),
			insightEvent("info", "user 17 signed in"), insightEvent("info", "user 42 signed in"), insightEvent("info", "user 99 signed in"),
			insightEvent("info", "cache warmed"), insightEvent("debug", "tick"))
		insightIngest(t, s, w.Outsider.Token, w.OtherProjectID, "other", insightEvent("error", "elsewhere"), insightEvent("info", "elsewhere"))
		healthy := store.Channel{ID: id.New(id.Channel), ProjectID: w.ProjectID, MemberID: w.Owner.MemberID, Name: "Fine hook", Type: store.ChannelWebhook,
			URL: "https://hooks.example.com/fine", Enabled: true, Secret: "whsec_x", Health: store.HealthOK, CreatedAt: time.Now(), UpdatedAt: time.Now()}
		if err := s.App.DB.Write().CreateChannel(context.Background(), healthy); err != nil {
			t.Fatal(err)
		}
		failing := insightFailingChannel(t, s, w.ProjectID, w.Owner.MemberID, "Ops <pager>")

		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		page := b.get("/projects/"+w.ProjectID).expect(t, http.StatusOK,
			"1 failing channel", `<a href="/channels/`+failing+`">Ops &lt;pager&gt;</a>`, "3 failed deliveries in a row",
			"<strong>1</strong> critical", "<strong>1</strong> high",
			`role="img"`, "Latest INFO summary", "<strong>4</strong> info events and 1 debug event.",
			"user &lt;int&gt; signed in", `<small class="sample"><span class="sr-only">Sample: </span>user `, `<td class="num">3</td>`, `href="/projects/`+w.ProjectID+`/summaries"`, `href="/summaries/ism_`)
		if strings.Contains(page.Body, "Fine hook") {
			t.Errorf("a healthy channel is called out as failing")
		}
		if strings.Contains(page.Body, "Nothing received yet") {
			t.Errorf("a project with events shows the empty state")
		}
		if i, j := strings.Index(page.Body, "failing channel"), strings.Index(page.Body, "Open tickets"); i < 0 || j < i {
			t.Errorf("failing channels are not called out before the tickets")
		}
		// Both charts count this project's 3 errors and 4 INFO events (info
		// only: debug events are not charted), not the other project's.
		for _, chart := range []string{"chart-24h", "chart-14d"} {
			fig := insightFigure(t, page.Body, chart)
			for _, want := range []string{">3 errors and warnings</span>", ">4 INFO events</span>", "max 3", "max 4", "Errors and warnings: 3 in total",
				"INFO: 4 in total", `<svg class="chart"`, `<title>3 errors and warnings, `, `<title>4 INFO events, `, "<details",
				`<th scope="col">Errors and warnings</th>`} {
				if !strings.Contains(fig, want) {
					t.Errorf("%s lacks %q: %s", chart, want, fig)
				}
			}
			if n := strings.Count(fig, "<rect"); n != 2 {
				t.Errorf("%s has %d bars, want 2 (one hour or day of errors, one of INFO)", chart, n)
			}
		}
		if n := strings.Count(insightFigure(t, page.Body, "chart-24h"), "<tr><th scope=\"row\">"); n != 24 {
			t.Errorf("24-hour table has %d rows", n)
		}
		if n := strings.Count(insightFigure(t, page.Body, "chart-14d"), "<tr><th scope=\"row\">"); n != 14 {
			t.Errorf("14-day table has %d rows", n)
		}
		// The outsider sees neither the page nor its channels.
		o := newBrowser(t, s)
		o.signIn(w.Outsider.Email)
		if p := o.get("/projects/"+w.ProjectID).expect(t, http.StatusNotFound); strings.Contains(p.Body, "Ops") {
			t.Errorf("another organization's channel leaks into a 404")
		}
	})
}

func TestOverviewEmptyStateShowsSnippets(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		page := b.get("/projects/"+w.ProjectID).expect(t, http.StatusOK, "Nothing received yet",
			"curl -X POST "+s.URL+"/v1/ingest", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT="+s.URL+"/v1/logs",
			`create a key under <a href="/projects/`+w.ProjectID+`/keys">API keys</a>`, `<a href="/docs/sentry.md">`)
		if strings.Contains(page.Body, "<svg") || strings.Contains(page.Body, "Latest tickets") {
			t.Errorf("an empty project shows charts or tickets: %s", page.Body)
		}
		// An INFO event alone is enough to leave the empty state.
		insightIngest(t, s, w.Owner.Token, w.ProjectID, "api", insightEvent("info", "started"))
		page = b.get("/projects/"+w.ProjectID).expect(t, http.StatusOK, `<svg class="chart"`, "No errors or warnings in this period", ">1 INFO event</span>")
		if strings.Contains(page.Body, "Nothing received yet") {
			t.Errorf("a project with an INFO summary still shows the empty state")
		}
	})
}
