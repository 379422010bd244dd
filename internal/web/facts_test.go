package web

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
	"github.com/errata-dev/errata/internal/view"
)

// TestReadableFactsLabelEveryFact: every fact the API's ticket carries has a
// label of its own (none falls back to its key), times become <time>
// values, counts get separators and the group is linked.
func TestReadableFactsLabelEveryFact(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	g := store.Group{ID: "grp_1", Service: "checkout", Fingerprint: "abc", Title: "order <int> failed", ExceptionType: "ValueError", Culprit: "app.pay",
		Level: 4, LastSeen: at.Add(time.Hour), EventCount: 1234567, FirstRelease: "v1", LastRelease: "v2", LastEnvironment: "prod",
		SampleMessage: "order 42 failed", LastTraceID: "4bf9", MergedInto: "grp_2"}
	tk := store.Ticket{ID: "tkt_1", GroupID: g.ID, Reason: store.ReasonRegression, FirstSeen: at}
	raw := tickets.Facts(tk, g, view.TimeFormat)
	facts := readableFacts(raw)
	if len(facts) != len(raw) {
		t.Fatalf("%d facts shown of %d", len(facts), len(raw))
	}
	for k := range raw {
		if !slices.ContainsFunc(factLabels, func(l factName) bool { return l.key == k }) {
			t.Errorf("fact %q has no label of its own", k)
		}
	}
	byLabel := map[string]fact{}
	for _, f := range facts {
		byLabel[f.Label] = f
	}
	for label, want := range map[string]fact{
		"First seen":     {Label: "First seen", Text: "2026-11-22T08:00:00.000Z", Time: at},
		"Last seen":      {Label: "Last seen", Text: "2026-11-22T09:00:00.000Z", Time: at.Add(time.Hour)},
		"Event count":    {Label: "Event count", Text: "1,234,567"},
		"Error group":    {Label: "Error group", Text: "grp_1", Href: "/groups/grp_1", Code: true},
		"Merged into":    {Label: "Merged into", Text: "grp_2", Href: "/groups/grp_2", Code: true},
		"Sample message": {Label: "Sample message", Text: "order 42 failed", Code: true},
		"Reason":         {Label: "Reason", Text: "regression"},
		"Trace ID":       {Label: "Trace ID", Text: "4bf9", Code: true},
	} {
		if got := byLabel[label]; got != want {
			t.Errorf("%s = %+v, want %+v", label, got, want)
		}
	}
	if facts[0].Label != "Reason" || facts[len(facts)-1].Label != "Merged into" {
		t.Errorf("facts run from %q to %q, want Reason to Merged into", facts[0].Label, facts[len(facts)-1].Label)
	}
	// A fact the API gains later is shown, labelled from its key, last.
	raw["deploy_ring"] = "canary"
	if f := readableFacts(raw); f[len(f)-1] != (fact{Label: "Deploy ring", Text: "canary"}) {
		t.Errorf("an unknown fact is shown as %+v", f[len(f)-1])
	}
}

func TestCountAndSample(t *testing.T) {
	t.Parallel()
	for n, want := range map[any]string{0: "0", 999: "999", int64(1000): "1,000", int64(12345): "12,345", -1234567: "-1,234,567",
		int64(9223372036854775807): "9,223,372,036,854,775,807"} {
		if got := count(n); got != want {
			t.Errorf("count(%v) = %q, want %q", n, got, want)
		}
	}
	if got := countNoun(1, "event", "events") + "; " + countNoun(12345, "event", "events"); got != "1 event; 12,345 events" {
		t.Errorf("countNoun = %q", got)
	}
	for _, tc := range []struct{ title, sample, want string }{
		{"order <int>-<int>-<int> failed", "order 1234-5678-90 failed\nat line 2", "order 1234-5678-90 failed"},
		{"database timeout", "database timeout after 30s", ""},                       // a title without placeholders reads alone
		{"user <email> locked", "", ""},                                              // no sample
		{"user <email> locked", "user <email> locked", ""},                           // nothing more to say
		{"at <anonymous>", "at <anonymous>", ""},                                     // a JavaScript frame, sent as is
		{"job <uuid> ran", strings.Repeat("x", 300), strings.Repeat("x", 119) + "…"}, // cut
		// A sender's own template: printf's and brace placeholders.
		{"order %s shipped via %s", "order o-77 shipped via DHL", "order o-77 shipped via DHL"},
		{"user %(name)s left", "user ada left", "user ada left"},
		{"parcel {id} left hub {hub}", "parcel 9 left hub Oslo", "parcel 9 left hub Oslo"},
		{"retry {0} of {1}", "retry 2 of 5", "retry 2 of 5"},
		{"disk 95% full", "disk 95% full on /var", ""}, // "% f" is no placeholder
	} {
		if got := sampleOf(tc.title, tc.sample); got != tc.want {
			t.Errorf("sampleOf(%q, %q) = %q, want %q", tc.title, tc.sample, got, tc.want)
		}
	}
}

// TestTitleOf: a title made of placeholders reads as the latest sample's
// message with the title as its template; Python's __main__. prefix is
// dropped from titles, culprits and exception types (issue 29).
func TestTitleOf(t *testing.T) {
	for _, tc := range []struct {
		title, sample string
		want          shownTitle
	}{
		{"order <int> failed", "order 42 failed", shownTitle{Text: "order 42 failed", Template: "order <int> failed"}},
		{"database timeout", "database timeout after 30s", shownTitle{Text: "database timeout"}},
		{"order <int> failed", "", shownTitle{Text: "order <int> failed"}},
		{"__main__.PaymentError: card <int> declined", "__main__.PaymentError: card 7 declined",
			shownTitle{Text: "PaymentError: card 7 declined", Template: "PaymentError: card <int> declined"}},
		{"__main__.LedgerError: out of balance", "", shownTitle{Text: "LedgerError: out of balance"}},
	} {
		if got := titleOf(tc.title, tc.sample); got != tc.want {
			t.Errorf("titleOf(%q, %q) = %+v, want %+v", tc.title, tc.sample, got, tc.want)
		}
	}
	facts := readableFacts(map[string]any{"culprit": "__main__.charge", "exception_type": "__main__.PaymentError", "service": "__main__.svc"})
	got := map[string]string{}
	for _, f := range facts {
		got[f.Label] = f.Text
	}
	if got["Culprit"] != "charge" || got["Exception type"] != "PaymentError" || got["Service"] != "__main__.svc" {
		t.Errorf("facts %v: want __main__. dropped from the culprit and exception type only", got)
	}
}
