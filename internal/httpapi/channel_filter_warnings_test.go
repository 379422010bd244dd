package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
)

// warnings maps a channel's filter_warnings by "filter value" to their
// messages.
func warnings(t *testing.T, ch map[string]any) map[string]string {
	t.Helper()
	list, ok := ch["filter_warnings"].([]any)
	if !ok {
		t.Fatalf("channel without a filter_warnings list: %v", ch)
	}
	out := map[string]string{}
	for _, x := range list {
		w := x.(map[string]any)
		out[w["filter"].(string)+" "+w["value"].(string)] = w["message"].(string)
	}
	return out
}

// TestChannelFilterWarnings: filter values are saved trimmed, and the
// channel shows a warning for each value no event of the project has had
// in the last 30 days, suggesting the value the events carry when it
// differs only by case or spaces (CONTRACT 8).
func TestChannelFilterWarnings(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		documentsFilterWarnings(t, s)
		prod := batchOf("checkout", fpEv("boom", "error"), ev("started", "info"))
		prod["environment"] = "production"
		feed(t, s, w.Key, prod)
		staging := batchOf("search", ev("indexed", "info")) // INFO events count too
		staging["environment"] = "staging"
		feed(t, s, w.Key, staging)

		body := emailChannel(w.Admin.MemberID, "ops")
		body["filters"] = map[string]any{"environments": []string{" production\t", "Production", "staging", "qa"}, "services": []string{"checkout", "Check out ", "billing"}}
		ch := createChannel(t, s, w.Admin.Token, w.ProjectID, body)
		f := ch["filters"].(map[string]any)
		if got := toStrings(f["environments"]); strings.Join(got, "|") != "production|Production|staging|qa" {
			t.Errorf("environments saved as %q, want trimmed", got)
		}
		if got := toStrings(f["services"]); strings.Join(got, "|") != "checkout|Check out|billing" {
			t.Errorf("services saved as %q, want trimmed", got)
		}
		check := func(ch map[string]any, want map[string]string) {
			t.Helper()
			got := warnings(t, ch)
			if len(got) != len(want) {
				t.Errorf("filter warnings = %v, want %d: %v", got, len(want), want)
			}
			for k, sub := range want {
				if msg, ok := got[k]; !ok || !strings.Contains(msg, sub) {
					t.Errorf("warning %q = %q, want one containing %q", k, msg, sub)
				}
			}
		}
		want := map[string]string{
			"environments Production": `its events say "production"`,
			"environments qa":         `no event of this project has had the environment "qa" in the last 30 days`,
			"services Check out":      `its events say "checkout"`,
			"services billing":        `the service "billing"`,
		}
		check(ch, want)
		if msg := warnings(t, ch)["environments qa"]; strings.Contains(msg, "its events say") {
			t.Errorf("a warning suggests a value nothing is near: %q", msg)
		}
		id := ch["id"].(string)
		check(getJSON(t, s, w.Viewer.Token, "/v1/channels/"+id), want)
		listed := items(t, s, w.Viewer.Token, channelsPath(w.ProjectID))
		if len(listed) != 1 {
			t.Fatalf("channels listed = %d, want 1", len(listed))
		}
		check(listed[0], want)

		// The trimmed value takes the production tickets.
		feed(t, s, w.Key, map[string]any{"service": "checkout", "environment": "production", "events": []any{fpEv("crash", "fatal")}})
		if n := len(items(t, s, w.Admin.Token, "/v1/channels/"+id+"/deliveries")); n != 1 {
			t.Errorf("deliveries to the channel filtering on %q = %d, want 1", " production\t", n)
		}

		// A value that is blank once trimmed, or holds a control character,
		// is refused naming it.
		for _, tc := range []struct {
			envs []string
			want string
		}{
			{[]string{"production", " \t"}, "filters.environments: each value must be 1 to 64 characters, not blank"},
			{[]string{"pro\x00duction"}, "filters.environments[0]: must not contain control characters"},
			{[]string{"production", "qa\u0085"}, "filters.environments[1]: must not contain control characters"},
			{[]string{"a\tb"}, "filters.environments[0]: must not contain control characters"},
			{[]string{"production", " qa\nstaging "}, "filters.environments[1]: must not contain control characters"},
		} {
			r := patchJSON(s, w.Admin.Token, "/v1/channels/"+id, map[string]any{"filters": map[string]any{"environments": tc.envs}})
			if r.Expect(t, http.StatusUnprocessableEntity, "validation-failed"); !strings.HasPrefix(r.Str(t, "detail"), tc.want) {
				t.Errorf("environments %q: detail %q, want it to start %q", tc.envs, r.Str(t, "detail"), tc.want)
			}
		}

		// Lengths count characters, as ingestion does: any service an event
		// can carry can be filtered on.
		patchJSON(s, w.Admin.Token, "/v1/channels/"+id, map[string]any{"filters": map[string]any{"services": []string{strings.Repeat("é", 128)}}}).Expect(t, http.StatusOK, "")
		patchJSON(s, w.Admin.Token, "/v1/channels/"+id, map[string]any{"filters": map[string]any{"services": []string{strings.Repeat("é", 129)}}}).
			Expect(t, http.StatusUnprocessableEntity, "validation-failed")

		fixed := patchJSON(s, w.Admin.Token, "/v1/channels/"+id, map[string]any{"filters": map[string]any{"environments": []string{"production", "staging"}, "services": []string{}}})
		check(fixed.Expect(t, http.StatusOK, "").JSON(t), map[string]string{})

		// Thirty days without events: every value is warned about. (The
		// session is used halfway, so that it does not expire.)
		s.Clock.Advance(20 * 24 * time.Hour)
		check(getJSON(t, s, w.Admin.Token, "/v1/channels/"+id), map[string]string{})
		s.Clock.Advance(11 * 24 * time.Hour)
		check(getJSON(t, s, w.Admin.Token, "/v1/channels/"+id), map[string]string{
			"environments production": `"production" in the last 30 days`,
			"environments staging":    `"staging" in the last 30 days`,
		})
	})
}

// documentsFilterWarnings checks that the served document shows
// filter_warnings on the channel, required, with its three fields.
func documentsFilterWarnings(t *testing.T, s *apitest.Server) {
	t.Helper()
	type schema struct {
		Type       any               `json:"type"`
		Required   []string          `json:"required"`
		Properties map[string]schema `json:"properties"`
		Items      *schema           `json:"items"`
		Ref        string            `json:"$ref"`
		Enum       []string          `json:"enum"`
	}
	var doc struct {
		Components struct{ Schemas map[string]schema } `json:"components"`
	}
	r := s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Expect(t, http.StatusOK, "")
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	ch := doc.Components.Schemas["ChannelView"]
	fw, ok := ch.Properties["filter_warnings"]
	if !ok || fw.Items == nil || !slices.Contains(ch.Required, "filter_warnings") {
		t.Fatalf("ChannelView.filter_warnings = %+v (required %v), want a required array", fw, ch.Required)
	}
	item := doc.Components.Schemas[strings.TrimPrefix(fw.Items.Ref, "#/components/schemas/")]
	for _, p := range []string{"filter", "value", "message"} {
		if _, ok := item.Properties[p]; !ok || !slices.Contains(item.Required, p) {
			t.Errorf("a filter warning (%s) lacks the required %s: %+v", fw.Items.Ref, p, item)
		}
	}
	if enum := item.Properties["filter"].Enum; !slices.Equal(enum, []string{"environments", "services"}) {
		t.Errorf("filter enum = %v, want environments and services", enum)
	}
}
