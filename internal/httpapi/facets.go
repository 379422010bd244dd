package httpapi

import (
	"context"
	"slices"
	"strings"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/search"
	"github.com/errata-dev/errata/internal/store"
)

// Bounds of a facets request.
const (
	maxFacetKeys = 20
	facetTop     = 10
)

// FacetValueView is one value of a key with its events.
type FacetValueView struct {
	Value string  `json:"value" doc:"The value, or (other) for the values past the 1,000 distinct a key a group keeps"`
	Count int64   `json:"count" doc:"Events of the group that carried this value"`
	Share float64 `json:"share" doc:"count divided by total: the share of the key's events, 0 to 1"`
}

// FacetView is one key's most frequent values in a group.
type FacetView struct {
	Key    string           `json:"key"`
	Total  int64            `json:"total" doc:"Events of the group that carried the key"`
	Values []FacetValueView `json:"values" nullable:"false" doc:"At most 10, most events first"`
}

// FacetList is the body of GET /v1/groups/{group_id}/facets.
type FacetList struct {
	Data []FacetView `json:"data" nullable:"false" doc:"One entry a key, in the order asked"`
	// NextCursor is always null: every key asked is answered in one page
	// (at most 20), but the body has the shape of every list (CONTRACT 2).
	NextCursor *string `json:"next_cursor" nullable:"true" doc:"Always null: the keys asked are answered in one page"`
}

// GroupFacetsOutput is a group's facets.
type GroupFacetsOutput struct{ Body FacetList }

func (s *Server) groupFacets(ctx context.Context, in *struct {
	GroupPath
	Keys string `query:"keys" maxLength:"2000" doc:"Comma-separated attribute keys, answered in this order, a key named twice once; by default environment, release, service, user.id, browser, os, request.url, server_name"`
}) (*GroupFacetsOutput, error) {
	keys := store.DefaultFacetKeys
	if strings.TrimSpace(in.Keys) != "" {
		keys = nil
		for _, k := range strings.Split(in.Keys, ",") {
			k = strings.TrimSpace(k)
			if !search.ValidKey(k) {
				return nil, problem.Newf("validation-failed", "keys: %q is not a key (letters, digits and . _ - / @)", k)
			}
			if !slices.Contains(keys, k) { // a key named twice is answered once
				keys = append(keys, k)
			}
		}
		if len(keys) > maxFacetKeys {
			return nil, problem.Newf("validation-failed", "keys: at most %d keys", maxFacetKeys)
		}
	}
	if _, err := s.db.Read().GroupByID(ctx, in.GroupID); err != nil {
		return nil, err
	}
	// A Sentry tag's key (tags.region) names the attribute it is counted
	// under (region), as in a query; the answer keeps the key as asked.
	counted := make([]string, 0, len(keys))
	for _, k := range keys {
		if c := store.FacetKey(k); !slices.Contains(counted, c) {
			counted = append(counted, c)
		}
	}
	facets, err := s.db.Read().GroupFacets(ctx, in.GroupID, counted, facetTop)
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]store.Facet, len(facets))
	for _, f := range facets {
		byKey[f.Key] = f
	}
	out := &GroupFacetsOutput{}
	out.Body.Data = make([]FacetView, 0, len(keys))
	for _, k := range keys {
		f := byKey[store.FacetKey(k)]
		v := FacetView{Key: k, Total: f.Total, Values: make([]FacetValueView, 0, len(f.Values))}
		for _, fv := range f.Values {
			v.Values = append(v.Values, FacetValueView{Value: fv.Value, Count: fv.Count, Share: float64(fv.Count) / float64(f.Total)})
		}
		out.Body.Data = append(out.Body.Data, v)
	}
	return out, nil
}
