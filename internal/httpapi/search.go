package httpapi

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/search"
	"github.com/errata-dev/errata/internal/store"
)

// ParseQuery parses a list's query parameter for the list kind; a malformed
// query is the 422 validation-failed that names query and the term. me is
// the caller's user id, what assigned:me means.
func (s *Server) ParseQuery(text string, kind search.Kind, me string) (search.Query, error) {
	return ParseQueryAt(text, kind, me, s.now())
}

// ParseQueryAt is ParseQuery with relative times counted back from now
// (the dashboard's lists).
func ParseQueryAt(text string, kind search.Kind, me string, now time.Time) (search.Query, error) {
	q, err := search.Parse(text, kind, now)
	q.Me = me
	var e *search.Error
	if errors.As(err, &e) {
		return search.Query{}, problem.New("validation-failed", e.Error())
	}
	return q, err
}

// sortOrders are the values of the lists' sort parameter.
var sortOrders = map[string]store.Order{"": store.OrderNewest, "newest": store.OrderNewest, "last_seen": store.OrderLastSeen,
	"event_count": store.OrderEventCount, "users": store.OrderUsers}

// ParseSort reads a list's sort parameter ("" and newest are the default).
func ParseSort(v string) (store.Order, error) {
	o, ok := sortOrders[v]
	if !ok {
		return "", problem.New("validation-failed", "sort must be newest, last_seen, event_count or users")
	}
	return o, nil
}

// SortedScope is the cursor scope of a list in order o: the list's own
// scope in the default order, a scope of its own in any other. The list
// scopes end with a query-encoded filter, where ':' cannot appear, so no
// filter's scope equals a sorted one.
func SortedScope(scope string, o store.Order) string {
	if o == store.OrderNewest {
		return scope
	}
	return scope + ":sort=" + string(o)
}

// KeysetText is what a cursor of a list in order o carries after a row:
// the id alone in the default order, else the sort value and the id.
func KeysetText(o store.Order, value int64, id string) string {
	if o == store.OrderNewest {
		return id
	}
	return strconv.FormatInt(value, 10) + " " + id
}

// ParseKeyset reads KeysetText back; "" is the first page.
func ParseKeyset(o store.Order, last string) (store.Keyset, error) {
	if o == store.OrderNewest || last == "" {
		return store.Keyset{ID: last}, nil
	}
	// Signed by this server, so well formed; checked all the same.
	v, id, ok := strings.Cut(last, " ")
	n, err := strconv.ParseInt(v, 10, 64)
	if !ok || err != nil {
		return store.Keyset{}, problem.New("validation-failed", "cursor: not a cursor of this list; pass next_cursor back unchanged")
	}
	return store.Keyset{Value: n, ID: id}, nil
}
