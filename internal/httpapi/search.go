package httpapi

import (
	"net/url"
	"strconv"
)

// values are a list's parameters as a query string carries them, for the
// list queries' Parse (tickets.ParseListQuery, tickets.ParseGroupListQuery):
// the paging ones and the pairs of kv (name, value, name, value…). huma
// has checked each parameter's own rule (enum, range, length) before, with
// the answers the spec documents; Parse then applies the list's rules in
// the one place the dashboard shares.
func (lp ListParams) values(kv ...string) url.Values {
	v := url.Values{"cursor": {lp.Cursor}, "limit": {strconv.Itoa(lp.Limit)}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}
