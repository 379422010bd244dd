package sentryhttp_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestSentryGrouping: logentry templates group, a Python exception's
// culprit is where it was raised (Sentry sends frames oldest call first),
// and a project's rules match Sentry tags (CONTRACT 8).
func TestSentryGrouping(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		store := withKey(w.storePath, w.key)
		for k, carrier := range []string{"DHL", "UPS", "FedEx Ground"} {
			ev := fmt.Sprintf(`{"level":"error","platform":"python","logger":"shop.shipping","logentry":{"message":"order %%s could not be shipped: carrier %%s unreachable","params":[%d,%q]}}`,
				4000+k, carrier)
			w.send(t, store, []byte(ev)).expect(t, http.StatusOK)
		}
		frames := `[{"filename":"app/jobs.py","abs_path":"/srv/app/app/jobs.py","module":"app.jobs","function":"run_nightly","lineno":71,"in_app":true},` +
			`{"filename":"app/ledger.py","abs_path":"/srv/app/app/ledger.py","module":"app.ledger","function":"post_entry","lineno":40,"in_app":true},` +
			`{"filename":"sqlalchemy/orm/session.py","abs_path":"/srv/app/.venv/lib/python3.12/site-packages/sqlalchemy/orm/session.py","module":"sqlalchemy.orm.session","function":"execute","lineno":2306,"in_app":false}]`
		exc := `{"level":"error","platform":"python","tags":{"region":"%s"},"exception":{"values":[{"type":"LedgerError","module":"app.ledger","value":"entry %d does not balance","stacktrace":{"frames":` + frames + `}}]}}`
		w.send(t, store, []byte(fmt.Sprintf(exc, "us", 1))).expect(t, http.StatusOK)
		groups := w.groups(t)
		tpl := "order %s could not be shipped: carrier %s unreachable"
		if g, ok := groups[tpl]; !ok || g["event_count"] != float64(3) {
			t.Errorf("template group = %v; groups %v", g, keys(groups))
		}
		ledger, ok := groups["app.ledger.LedgerError: entry <int> does not balance"]
		if !ok || ledger["culprit"] != "app/ledger.py in post_entry" {
			t.Fatalf("exception group = %v; groups %v", ledger, keys(groups))
		}

		// A rule on a Sentry tag takes the events processed after it.
		s.Do(apitest.Request{Method: "PUT", Path: "/v1/projects/" + w.projectID + "/grouping-rules", Token: w.token,
			Body: map[string]any{"fingerprint": `tags.region:eu error.type:LedgerError -> ledger-eu title="Ledger in {{ tags.region }}"`}}).Expect(t, http.StatusOK, "")
		w.send(t, store, []byte(fmt.Sprintf(exc, "eu", 2))).expect(t, http.StatusOK)
		w.send(t, store, []byte(fmt.Sprintf(exc, "us", 3))).expect(t, http.StatusOK)
		groups = w.groups(t)
		if g := groups["Ledger in eu"]; g == nil || g["fingerprint_rule"] != "custom" || g["event_count"] != float64(1) {
			t.Errorf("rule group = %v; groups %v", g, keys(groups))
		}
		if g := groups["app.ledger.LedgerError: entry <int> does not balance"]; g["event_count"] != float64(2) {
			t.Errorf("default group = %v, want the us events", g)
		}
	})
}

// TestSentryRuleMatchesTheExceptionAsSent: error.type and error.value match
// a Sentry exception whose stack trace names no type: one sent without
// frames, and sentry-go's error (its frames carry no exception header).
func TestSentryRuleMatchesTheExceptionAsSent(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		store := withKey(w.storePath, w.key)
		s.Do(apitest.Request{Method: "PUT", Path: "/v1/projects/" + w.projectID + "/grouping-rules", Token: w.token,
			Body: map[string]any{"fingerprint": "error.type:LedgerError -> ledger title=\"Ledger\"\n" +
				`error.value:"card declined*" -> declined title="Declined"`}}).Expect(t, http.StatusOK, "")
		for _, ev := range []string{
			`{"platform":"python","exception":{"values":[{"type":"LedgerError","value":"entry 5 does not balance"}]}}`,
			`{"platform":"go","exception":{"values":[{"type":"*main.LedgerError","value":"entry 6 does not balance","stacktrace":{"frames":[` +
				`{"function":"main","module":"main","abs_path":"/app/main.go","lineno":12,"in_app":true}]}}]}}`,
			`{"platform":"go","exception":{"values":[{"type":"*errors.errorString","value":"card declined: 1999 cents","stacktrace":{"frames":[` +
				`{"function":"charge","module":"main","abs_path":"/app/main.go","lineno":30,"in_app":true}]}}]}}`,
		} {
			w.send(t, store, []byte(ev)).expect(t, http.StatusOK)
		}
		groups := w.groups(t)
		if g := groups["Ledger"]; g == nil || g["event_count"] != float64(2) {
			t.Errorf("error.type rule group = %v; groups %v", g, keys(groups))
		}
		if g := groups["Declined"]; g == nil || g["event_count"] != float64(1) {
			t.Errorf("error.value rule group = %v; groups %v", g, keys(groups))
		}
	})
}
