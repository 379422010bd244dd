package tickets

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/search"
	"github.com/errata-dev/errata/internal/store"
)

// A project's ticket list and group list take the same parameters in the
// API (GET /v1/projects/{project_id}/tickets, …/groups) and the dashboard
// (/projects/{project_id}/tickets, …/groups): filters, a search query
// (internal/search), sort, cursor and limit. ListQuery and GroupListQuery
// are those parameters parsed once, by one Parse each, so both front ends
// accept and refuse exactly the same things and sign their cursors for the
// same scope (a next_cursor of the API pages the dashboard and back).

// The list limits: the page size without ?limit=, and the largest one.
const (
	DefaultLimit = 50
	MaxLimit     = 100
	// MaxQuery is the longest ?query= in characters.
	MaxQuery = 1000
)

// FieldError is a list parameter that is not valid. Field names the
// parameter; Detail says what is wrong and starts with the field's name.
// It unwraps to the 422 validation-failed problem with Detail, so the API
// and the dashboard answer it the same way.
type FieldError struct {
	Field, Detail string
}

// Error returns Detail.
func (e *FieldError) Error() string { return e.Detail }

// Unwrap is the problem the error answers as.
func (e *FieldError) Unwrap() error { return problem.New("validation-failed", e.Detail) }

// badCursor is the answer to a cursor that is not one of the list's, in
// the list's order and under its filter.
var badCursor = &FieldError{"cursor", "cursor: not a cursor of this list; pass next_cursor back unchanged"}

// sortOrders are the values of ?sort=, "" the default.
var sortOrders = []struct {
	param string
	order store.Order
}{{"newest", store.OrderNewest}, {"last_seen", store.OrderLastSeen}, {"event_count", store.OrderEventCount}, {"users", store.OrderUsers}}

// SortParam is the ?sort= value of an order, "" for the default (so the
// default list's addresses carry none).
func SortParam(o store.Order) string {
	for _, s := range sortOrders {
		if s.order == o && o != store.OrderNewest {
			return s.param
		}
	}
	return ""
}

// Page is what every list query holds besides its filter: the order, the
// opaque cursor as given (the server's cursor codec checks it against
// Scope) and the page size.
type Page struct {
	Order  store.Order
	Cursor string
	Limit  int
}

// parsePage reads sort, cursor and limit.
func parsePage(v url.Values) (Page, error) {
	p := Page{Order: store.OrderNewest, Cursor: v.Get("cursor"), Limit: DefaultLimit}
	if s := v.Get("sort"); s != "" {
		found := false
		for _, o := range sortOrders {
			if o.param == s {
				p.Order, found = o.order, true
			}
		}
		if !found {
			return Page{}, &FieldError{"sort", "sort must be newest, last_seen, event_count or users"}
		}
	}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxLimit {
			return Page{}, &FieldError{"limit", "limit must be a whole number from 1 to 100"}
		}
		p.Limit = n
	}
	return p, nil
}

// values adds the page's sort and limit, when not the default, to v.
func (p Page) values(v url.Values) url.Values {
	if s := SortParam(p.Order); s != "" {
		v.Set("sort", s)
	}
	if p.Limit != DefaultLimit && p.Limit != 0 {
		v.Set("limit", strconv.Itoa(p.Limit))
	}
	return v
}

// scope is the cursor scope of a list in the page's order: the list's own
// scope in the default order, a scope of its own in any other. The list
// scopes end with a query-encoded filter, where ':' cannot appear, so no
// filter's scope equals a sorted one.
func (p Page) scope(list string) string {
	if p.Order == store.OrderNewest {
		return list
	}
	return list + ":sort=" + string(p.Order)
}

// Keyset reads what a cursor of the list carried (KeysetText) back: where
// the page starts; "" is the first page.
func (p Page) Keyset(last string) (store.Keyset, error) {
	if p.Order == store.OrderNewest || last == "" {
		return store.Keyset{ID: last}, nil
	}
	// Signed by this server, so well formed; checked all the same.
	v, id, ok := strings.Cut(last, " ")
	n, err := strconv.ParseInt(v, 10, 64)
	if !ok || err != nil {
		return store.Keyset{}, badCursor
	}
	return store.Keyset{Value: n, ID: id}, nil
}

// KeysetText is what a cursor carries after the row id of group g: the id
// alone in the default order, else the sort value and the id.
func (p Page) KeysetText(g store.Group, id string) string {
	if p.Order == store.OrderNewest {
		return id
	}
	return strconv.FormatInt(store.SortValue(p.Order, g), 10) + " " + id
}

// ParseSearch parses a list's ?query= for the list kind; a malformed query
// is a FieldError naming query and the term. me is the caller's user id,
// what assigned:me means; relative times count back from now.
func ParseSearch(text string, kind search.Kind, now time.Time, me string) (search.Query, error) {
	if utf8.RuneCountInString(text) > MaxQuery {
		return search.Query{}, &FieldError{"query", "query: at most 1000 characters"}
	}
	q, err := search.Parse(text, kind, now)
	q.Me = me
	var e *search.Error
	if errors.As(err, &e) {
		return search.Query{}, &FieldError{"query", e.Error()}
	}
	return q, err
}

// ListQuery is the parameters of a project's ticket list.
type ListQuery struct {
	Filter store.TicketFilter
	Page
}

// ParseListQuery reads a ticket list's parameters: status, severity,
// service, environment, query, sort, cursor and limit.
func ParseListQuery(v url.Values, now time.Time, me string) (ListQuery, error) {
	f := store.TicketFilter{Status: v.Get("status"), Severity: v.Get("severity"), Service: v.Get("service"), Environment: v.Get("environment")}
	switch {
	case f.Status != "" && f.Status != store.TicketOpen && f.Status != store.TicketResolved:
		return ListQuery{}, &FieldError{"status", "status must be open or resolved"}
	case f.Severity != "" && !validSeverity(f.Severity):
		return ListQuery{}, &FieldError{"severity", "severity must be critical, high or medium"}
	}
	var err error
	if f.Query, err = ParseSearch(v.Get("query"), search.Tickets, now, me); err != nil {
		return ListQuery{}, err
	}
	p, err := parsePage(v)
	return ListQuery{f, p}, err
}

// Scope is the scope the list's cursors are signed for: the project, the
// filter and the order.
func (q ListQuery) Scope(projectID string) string {
	f := q.Filter
	return q.scope("tickets:" + projectID + ":" + url.Values{"status": {f.Status}, "severity": {f.Severity}, "service": {f.Service},
		"environment": {f.Environment}, "query": {f.Query.String()}}.Encode())
}

// Values are the list's parameters without the cursor, the empty and
// default ones left out: what a link to the list in another order, or to
// its next page, keeps.
func (q ListQuery) Values() url.Values {
	f := q.Filter
	return q.values(nonEmpty("status", f.Status, "severity", f.Severity, "service", f.Service, "environment", f.Environment, "query", f.Query.String()))
}

// GroupStatuses are the statuses of a group.
var GroupStatuses = []string{store.GroupUnresolved, store.GroupResolved, store.GroupIgnored}

// GroupListQuery is the parameters of a project's group list.
type GroupListQuery struct {
	Filter store.GroupFilter
	Page
}

// ParseGroupListQuery reads a group list's parameters: status, service,
// environment, query, sort, cursor and limit.
func ParseGroupListQuery(v url.Values, now time.Time, me string) (GroupListQuery, error) {
	f := store.GroupFilter{Status: v.Get("status"), Service: v.Get("service"), Environment: v.Get("environment")}
	if f.Status != "" && !slices.Contains(GroupStatuses, f.Status) {
		return GroupListQuery{}, &FieldError{"status", "status must be unresolved, resolved or ignored"}
	}
	var err error
	if f.Query, err = ParseSearch(v.Get("query"), search.Groups, now, me); err != nil {
		return GroupListQuery{}, err
	}
	p, err := parsePage(v)
	return GroupListQuery{f, p}, err
}

// Scope is the scope the list's cursors are signed for: the project, the
// filter and the order.
func (q GroupListQuery) Scope(projectID string) string {
	f := q.Filter
	return q.scope("groups:" + projectID + ":" + url.Values{"status": {f.Status}, "service": {f.Service}, "environment": {f.Environment},
		"query": {f.Query.String()}}.Encode())
}

// Values are the list's parameters without the cursor, the empty and
// default ones left out.
func (q GroupListQuery) Values() url.Values {
	f := q.Filter
	return q.values(nonEmpty("status", f.Status, "service", f.Service, "environment", f.Environment, "query", f.Query.String()))
}

// nonEmpty is the pairs of kv (name, value, name, value…) whose value is
// not empty.
func nonEmpty(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			v.Set(kv[i], kv[i+1])
		}
	}
	return v
}

func validSeverity(name string) bool {
	_, ok := ParseSeverity(name)
	return ok
}
