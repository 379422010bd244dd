package web

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/errata-dev/errata/internal/search"
	"github.com/errata-dev/errata/internal/store"
)

// facetTop is how many values of a key the group page shows, as the API's
// facets answer (CONTRACT 8: the top 10).
const facetTop = 10

// facetView is one key's most frequent values on the group page: a bar
// for each value's share of the key's events.
type facetView struct {
	Key    string
	Total  int64
	Values []facetValueView
}

// facetValueView is one value with its events and share (0 to 1, for the
// meter; Percent for its label). Search is the groups list searching for
// it, "" for (other), which no term names.
type facetValueView struct {
	Value   string
	Count   int64
	Share   float64
	Percent string
	Search  string
}

// facetKeys bounds the keys the group page shows.
const facetKeys = 20

// groupFacets reads the top values of group g's keys: the default keys
// first (those its events carried), then its other keys by name, at most
// facetKeys.
func (d *Dashboard) groupFacets(ctx context.Context, g store.Group) ([]facetView, error) {
	db := d.db.Read()
	own, err := db.FacetKeys(ctx, g.ID, 2*facetKeys)
	if err != nil {
		return nil, err
	}
	keys := slices.Clone(store.DefaultFacetKeys)
	for _, k := range own {
		if len(keys) < facetKeys+len(store.DefaultFacetKeys) && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	fs, err := db.GroupFacets(ctx, g.ID, keys, facetTop)
	if err != nil {
		return nil, err
	}
	var out []facetView
	for _, f := range fs {
		if f.Total == 0 {
			continue
		}
		v := facetView{Key: f.Key, Total: f.Total}
		// A key the query language cannot name (a space, an emoji:
		// ingestion takes any key), or names as something else (is, has,
		// events), gets no links that would 422 or find another thing.
		linked := search.SearchesAttribute(f.Key, search.Groups)
		for _, fv := range f.Values {
			share := float64(fv.Count) / float64(f.Total)
			vv := facetValueView{Value: fv.Value, Count: fv.Count, Share: share, Percent: strconv.FormatFloat(100*share, 'f', 0, 64) + " %"}
			if linked && fv.Value != store.FacetOther {
				vv.Search = "/projects/" + g.ProjectID + "/groups?query=" + url.QueryEscape(f.Key+":"+search.Quote(fv.Value))
			}
			v.Values = append(v.Values, vv)
		}
		if out = append(out, v); len(out) == facetKeys {
			break
		}
	}
	return out, nil
}

// Bounds of the search box's suggestions of a project's own keys: the keys
// its suggestKeyGroups newest groups count, at most suggestKeyLimit.
const (
	suggestKeyGroups = 200
	suggestKeyLimit  = 50
)

// queryKeys are the search box's suggestions (a datalist) on a list of
// kind: the language's keys with a typical value, the attribute keys every
// group counts, then the project's own keys (those of its newest groups,
// store.ProjectFacetKeys) that the language can name as attributes.
func (d *Dashboard) queryKeys(ctx context.Context, projectID string, kind search.Kind) ([]string, error) {
	out := []string{"is:unresolved", "is:resolved", "is:ignored", "is:assigned", "is:unassigned", "assigned:me", "assigned:none",
		"level:error", "level:fatal", "level:>=warn", "service:", "environment:", "release:", "first_seen:-24h", "last_seen:-1h",
		"events:>100", "users:>10", "has:", "trace_id:"}
	if kind == search.Tickets {
		out = append([]string{"is:open", "is:resolved", "severity:critical", "severity:high", "severity:medium", "reason:regression", "reason:spike"},
			slices.DeleteFunc(out, func(k string) bool { return strings.HasPrefix(k, "is:") })...)
	}
	own, err := d.db.Read().ProjectFacetKeys(ctx, projectID, suggestKeyGroups, suggestKeyLimit)
	if err != nil {
		return nil, err
	}
	for _, k := range append(slices.Clone(store.DefaultFacetKeys), own...) {
		if s := k + ":"; search.SearchesAttribute(k, kind) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}
