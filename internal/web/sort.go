package web

import (
	"net/url"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// The ticket and group lists sort by newest (the API's order, the
// default), last seen, event count or users, named by ?sort= and kept in
// the filters, the column headers and the paging links. Their parameters
// are parsed by the API's own Parse (tickets.ParseListQuery,
// tickets.ParseGroupListQuery), and a page boundary is a keyset carried in
// the API's signed cursor, signed for the same scope, so the API's
// next_cursor pages the dashboard and the other way round, and a cursor of
// one order is the API's 422 under another.

// pageKeyset checks a cursor of the list scope and returns where its page
// starts; a tampered cursor, or one of another list, filter or order, is
// the API's 422.
func (d *Dashboard) pageKeyset(scope string, p tickets.Page) (store.Keyset, error) {
	last, err := d.api.DecodeCursor(scope, p.Cursor)
	if err != nil {
		return store.Keyset{}, err
	}
	return p.Keyset(last)
}

// pageCursor is the signed cursor of the page after the row with id and
// group g.
func (d *Dashboard) pageCursor(scope string, p tickets.Page, g store.Group, id string) string {
	return d.api.EncodeCursor(scope, p.KeysetText(g, id))
}

// listQuery is a list's filters and sort as its address carries them, the
// empty ones left out.
type listQuery struct {
	path   string
	values url.Values
}

// newListQuery is the list at path with the parameters v.
func newListQuery(path string, v url.Values) listQuery { return listQuery{path: path, values: v} }

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
		return sortHeader{Label: label, Class: class, Href: q.with("sort", tickets.SortParam(o)), Sorted: o == cur}
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
		{"users", "Most users", cur == store.OrderUsers},
	}
}
