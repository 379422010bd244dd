package httpapi_test

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestChannelFilters: a channel is sent at once the tickets its filters
// want (severity at least its minimum, environment and service among its
// lists); digests go to every channel.
func TestChannelFilters(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		type ch struct {
			name    string
			filters map[string]any
			want    []string // messages of the tickets it gets at once
		}
		chans := []ch{
			{"default", nil, []string{"fatal checkout prod", "error checkout prod", "error search staging"}},
			{"medium", map[string]any{"min_severity": "medium"}, []string{"fatal checkout prod", "error checkout prod", "warn checkout prod", "error search staging"}},
			{"critical", map[string]any{"min_severity": "critical"}, []string{"fatal checkout prod"}},
			{"production", map[string]any{"environments": []string{"production"}, "min_severity": "medium"}, []string{"fatal checkout prod", "error checkout prod", "warn checkout prod"}},
			{"search", map[string]any{"services": []string{"search", "billing"}}, []string{"error search staging"}},
			{"search in production", map[string]any{"services": []string{"search"}, "environments": []string{"production"}}, nil},
		}
		receivers, secrets := map[string]*receiver{}, map[string]string{}
		for _, c := range chans {
			rc := newReceiver(t, http.StatusOK)
			body := webhookChannel(w.Admin.MemberID, c.name, rc.URL)
			if c.filters != nil {
				body["filters"] = c.filters
			}
			created := createChannel(t, s, w.Admin.Token, w.ProjectID, body)
			got := created["filters"].(map[string]any)
			if want, _ := c.filters["min_severity"].(string); got["min_severity"] != cmp.Or(want, "high") {
				t.Fatalf("%s: created filters = %v", c.name, got)
			}
			receivers[c.name], secrets[c.name] = rc, created["signing_secret"].(string)
		}
		feedEnv := func(service, env string, events ...map[string]any) {
			b := batchOf(service, events...)
			b["environment"] = env
			feed(t, s, w.Key, b)
		}
		feedEnv("checkout", "production", fpEv("fatal checkout prod", "fatal"), fpEv("error checkout prod", "error"), fpEv("warn checkout prod", "warn"))
		feedEnv("search", "staging", fpEv("error search staging", "error"))
		deliverDue(t, s)
		for _, c := range chans {
			var got []string
			for _, h := range receivers[c.name].got() {
				body := verified(t, h, "ticket", secrets[c.name])
				got = append(got, strings.TrimPrefix(body["ticket"].(map[string]any)["title"].(string), "failure "))
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(c.want))
			if !slices.Equal(got, want) {
				t.Errorf("channel %s got tickets %q, want %q", c.name, got, want)
			}
		}

		// Digests are not filtered.
		sendDigest(t, s, w.Admin.Token, w.ProjectID)
		deliverDue(t, s)
		for _, c := range chans {
			n := 0
			for _, h := range receivers[c.name].got() {
				if h.Header.Get("Service-Event") == "digest" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("channel %s got %d digests, want 1", c.name, n)
			}
		}
	}, allowPrivate)
}
