package web

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// The ticket and group lists sort by newest (the API's order, the
// default), last seen or event count, named by ?sort= and kept in the
// filters, the column headers and the paging links. A page boundary is a
// keyset (the last row's sort value and id) carried in the API's signed
// cursor, signed for the list, its filter and its order, so a cursor of one
// order is the API's 422 under another.

// sortParams are the values of ?sort=, by order.
var sortParams = map[store.Order]string{store.OrderNewest: "newest", store.OrderLastSeen: "last_seen", store.OrderEventCount: "event_count"}

// parseSort reads ?sort= ("" and "newest" are the default); any other value
// is 422.
func parseSort(v string) (store.Order, error) {
	if v == "" {
		return store.OrderNewest, nil
	}
	for o, p := range sortParams {
		if p == v {
			return o, nil
		}
	}
	return "", problem.New("validation-failed", "sort must be newest, last_seen or event_count")
}

// sortParam is the ?sort= value of an order, "" for the default (so the
// default list's addresses stay as they were).
func sortParam(o store.Order) string {
	if o == store.OrderNewest {
		return ""
	}
	return sortParams[o]
}

// sortedScope is the cursor scope of a list in order o: the API's own scope
// in the default order, so its next_cursor pages the dashboard and the
// other way round; a scope of its own in any other. The API's scopes end
// with a query-encoded filter, where ':' cannot appear, so no filter's
// scope equals a sorted one.
func sortedScope(scope string, o store.Order) string {
	if o == store.OrderNewest {
		return scope
	}
	return scope + ":sort=" + string(o)
}

// pageCursor is the signed cursor of the page after the row with id and
// group g: the id alone in the default order (as the API writes it), the
// sort value and the id in any other.
func (d *Dashboard) pageCursor(scope string, o store.Order, g store.Group, id string) string {
	last := id
	if o != store.OrderNewest {
		last = strconv.FormatInt(store.SortValue(o, g), 10) + " " + id
	}
	return d.api.EncodeCursor(sortedScope(scope, o), last)
}

// pageKeyset checks a cursor of the list scope in order o and returns where
// its page starts; a tampered cursor, or one of another list, filter or
// order, is the API's 422.
func (d *Dashboard) pageKeyset(scope string, o store.Order, cursor string) (store.Keyset, error) {
	last, err := d.api.DecodeCursor(sortedScope(scope, o), cursor)
	if err != nil || o == store.OrderNewest || last == "" {
		return store.Keyset{ID: last}, err
	}
	// Signed by this server, so well formed; checked all the same.
	v, id, ok := strings.Cut(last, " ")
	n, err := strconv.ParseInt(v, 10, 64)
	if !ok || err != nil {
		return store.Keyset{}, problem.New("validation-failed", "cursor: not a cursor of this list; pass next_cursor back unchanged")
	}
	return store.Keyset{Value: n, ID: id}, nil
}

// listQuery is a list's filters and sort as its address carries them, the
// empty ones left out.
type listQuery struct {
	path   string
	values url.Values
}

// newListQuery keeps the non-empty pairs of kv (name, value, name, value…)
// and the sort.
func newListQuery(path string, o store.Order, kv ...string) listQuery {
	q := listQuery{path: path, values: url.Values{}}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.values.Set(kv[i], kv[i+1])
		}
	}
	if s := sortParam(o); s != "" {
		q.values.Set("sort", s)
	}
	return q
}

// with is the list's address with name set to value ("" removes it).
func (q listQuery) with(name, value string) string {
	v := url.Values{}
	for k, vs := range q.values {
		v[k] = vs
	}
	if value == "" {
		v.Del(name)
	} else {
		v.Set(name, value)
	}
	if len(v) == 0 {
		return q.path
	}
	return q.path + "?" + v.Encode()
}

// sortHeader is a column header that sorts its list.
type sortHeader struct {
	Label, Href string
	// Class is the header cell's class: "num" for a count column.
	Class string
	// Sorted marks the list's current order (aria-sort="descending").
	Sorted bool
}

// sortLinks are the headers of the sortable columns; a table without them
// (the overview's latest tickets) shows plain headers.
type sortLinks struct {
	Newest, LastSeen, EventCount sortHeader
}

// newSortLinks makes the headers of a list now in order cur: each links to
// the list with its filters in that column's order, from the first page.
func newSortLinks(q listQuery, cur store.Order, newest string) *sortLinks {
	h := func(label, class string, o store.Order) sortHeader {
		return sortHeader{Label: label, Class: class, Href: q.with("sort", sortParam(o)), Sorted: o == cur}
	}
	return &sortLinks{Newest: h(newest, "", store.OrderNewest), LastSeen: h("Last seen", "", store.OrderLastSeen),
		EventCount: h("Events", "num", store.OrderEventCount)}
}

// sortOption is one choice of the filters' "Sort by" select.
type sortOption struct {
	Value, Label string
	Selected     bool
}

// sortOptions are the filters' choices with cur selected.
func sortOptions(cur store.Order, newest string) []sortOption {
	return []sortOption{
		{"newest", newest, cur == store.OrderNewest},
		{"last_seen", "Last seen", cur == store.OrderLastSeen},
		{"event_count", "Most events", cur == store.OrderEventCount},
	}
}
