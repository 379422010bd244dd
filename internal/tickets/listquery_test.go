package tickets

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

var listNow = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func TestParseListQueryRefusesNamingTheField(t *testing.T) {
	cases := []struct{ query, field, detail string }{
		{"status=closed", "status", "status must be open or resolved"},
		{"severity=low", "severity", "severity must be critical, high or medium"},
		{"sort=title", "sort", "sort must be newest, last_seen, event_count or users"},
		{"limit=0", "limit", "limit must be a whole number from 1 to 100"},
		{"limit=101", "limit", "limit must be a whole number from 1 to 100"},
		{"limit=ten", "limit", "limit must be a whole number from 1 to 100"},
		{"query=nosuchkey:", "query", "query: term 'nosuchkey:': no value after the colon"},
		{"query=reason:bogus", "query", "reason: takes new, regression, spike, unignored, merged"},
	}
	for _, tc := range cases {
		v, _ := url.ParseQuery(tc.query)
		_, err := ParseListQuery(v, listNow, "usr_1")
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Fatalf("%s: got %v, want a FieldError", tc.query, err)
		}
		if fe.Field != tc.field {
			t.Errorf("%s: field got %q, want %q", tc.query, fe.Field, tc.field)
		}
		var p *problem.Problem
		if !errors.As(err, &p) || p.Code() != "validation-failed" {
			t.Errorf("%s: got %v, want the validation-failed problem", tc.query, err)
		}
		if tc.field != "query" && p != nil && p.Detail != tc.detail {
			t.Errorf("%s: detail got %q, want %q", tc.query, p.Detail, tc.detail)
		}
		if tc.field == "query" && p != nil && !strings.Contains(p.Detail, tc.detail) {
			t.Errorf("%s: detail got %q, want it to say %q", tc.query, p.Detail, tc.detail)
		}
	}
}

func TestParseGroupListQuery(t *testing.T) {
	v := url.Values{"status": {"ignored"}, "service": {"api"}, "query": {"is:assigned level:error"}, "sort": {"users"}, "limit": {"20"}, "cursor": {"c"}}
	q, err := ParseGroupListQuery(v, listNow, "usr_1")
	if err != nil {
		t.Fatal(err)
	}
	if q.Filter.Status != "ignored" || q.Filter.Service != "api" || q.Order != store.OrderUsers || q.Limit != 20 || q.Cursor != "c" || q.Filter.Query.Me != "usr_1" {
		t.Fatalf("got %+v", q)
	}
	if got := q.Values().Encode(); got != "limit=20&query=is%3Aassigned+level%3Aerror&service=api&sort=users&status=ignored" {
		t.Errorf("values got %s", got)
	}
	if _, err := ParseGroupListQuery(url.Values{"status": {"open"}}, listNow, ""); err == nil || err.Error() != "status must be unresolved, resolved or ignored" {
		t.Errorf("status open: got %v", err)
	}
}

func TestListScopesSeparateOrdersAndFilters(t *testing.T) {
	plain, _ := ParseListQuery(url.Values{}, listNow, "")
	byUsers, _ := ParseListQuery(url.Values{"sort": {"users"}}, listNow, "")
	open, _ := ParseListQuery(url.Values{"status": {"open"}}, listNow, "")
	groups, _ := ParseGroupListQuery(url.Values{}, listNow, "")
	newest, err := ParseListQuery(url.Values{"sort": {"newest"}}, listNow, "")
	if err != nil || newest.Order != store.OrderNewest || newest.Scope("prj_1") != plain.Scope("prj_1") {
		t.Errorf("sort=newest: got %+v, %v; want the default order and scope", newest.Page, err)
	}
	if plain.Limit != DefaultLimit || plain.Order != store.OrderNewest {
		t.Fatalf("defaults got %+v", plain.Page)
	}
	scopes := map[string]bool{}
	for _, s := range []string{plain.Scope("prj_1"), byUsers.Scope("prj_1"), open.Scope("prj_1"), plain.Scope("prj_2"), groups.Scope("prj_1")} {
		if scopes[s] {
			t.Errorf("scope %q made twice", s)
		}
		scopes[s] = true
	}
}

func TestKeysetRoundTrip(t *testing.T) {
	q, _ := ParseListQuery(url.Values{"sort": {"event_count"}}, listNow, "")
	g := store.Group{EventCount: 42}
	k, err := q.Keyset(q.KeysetText(g, "tkt_1"))
	if err != nil || k.Value != 42 || k.ID != "tkt_1" {
		t.Fatalf("got %+v, %v", k, err)
	}
	if _, err := q.Keyset("tkt_1"); !errors.Is(err, badCursor) {
		t.Errorf("an id alone in a sorted order: got %v, want the cursor error", err)
	}
}

// TestEveryTicketReasonIsSearchable: the reasons a ticket is given are the
// ones a reason: term takes (search cannot import them), in any case.
func TestEveryTicketReasonIsSearchable(t *testing.T) {
	for _, r := range []string{store.ReasonNew, store.ReasonRegression, store.ReasonSpike, store.ReasonMerged, ReasonUnignored} {
		for _, v := range []string{r, strings.ToUpper(r)} {
			q, err := ParseListQuery(url.Values{"query": {"reason:" + v}}, listNow, "usr_1")
			if err != nil {
				t.Errorf("reason:%s: %v", v, err)
			} else if terms := q.Filter.Query.Terms; len(terms) != 1 || terms[0].Value != r {
				t.Errorf("reason:%s reads as %+v, want the value %s", v, terms, r)
			}
		}
	}
}
