package process

import (
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
)

// Bounds of the per-group value counts (CONTRACT 8): at most
// maxFacetKeys attribute keys an event (environment, release and service,
// and browser and os derived from a user agent, come on top), values cut to maxFacetValue characters; the
// store caps the distinct values a key a group (store.MaxFacetValues).
const (
	maxFacetKeys  = 50
	maxFacetValue = store.MaxFacetValueRunes
)

// facetKV is one attribute value of an event.
type facetKV struct{ key, value string }

// facets returns the values an event contributes to its group's counts:
// environment, release and service, then its attributes, flattened
// ({"user": {"id": 7}} is user.id "7") and with a Sentry tag's "tags."
// left out (tags.region is region), then browser and os from a user agent
// when the event has none. Grouping's own attributes (fingerprint,
// sentry.*) are not counted; sdkID is the id the Sentry SDK was answered
// (attribute sentry.event_id), "" for other events; userID is the
// attribute user.id as written, nil when there is none. The attributes are
// decoded once, here, for all three.
func facets(e *ingest.Event, out []facetKV) (kvs []facetKV, sdkID string, userID json.RawMessage) {
	out = out[:0]
	for _, kv := range [...]facetKV{{"environment", e.Environment}, {"release", e.Release}, {"service", e.Service}} {
		if kv.value != "" {
			out = append(out, kv)
		}
	}
	if len(e.Attributes) > 2 {
		w := attrWalker{s: e.Attributes, fields: len(out)}
		out, sdkID, userID = w.attrFacets(out, "", 0)
	}
	return deriveAgent(out), sdkID, userID
}

// userIDKey is the attribute whose values are an event's user (the ignore
// conditions' users; the value counts' store.UserKey).
const userIDKey = "user.id"

func appendFacet(out []facetKV, key, value string) []facetKV {
	for i := range out {
		if out[i].key == key { // a flat key and a nested one that flattens the same
			return out
		}
	}
	return append(out, facetKV{key, cutRunes(value, maxFacetValue)})
}

// cutRunes cuts s to at most n characters.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s[:i]
}

// facetTally is a group's value counts in a part. Events of a group mostly
// repeat the previous event's values at the same places (environment,
// release, service, region, host…), so each event's values are first
// compared with the previous event's, and only those that differ are
// looked up in the map: half the map look-ups of the counting, and their
// hashing, were of values the previous event had at the same place.
type facetTally struct {
	index map[facetKV]int // position in kvs and n
	kvs   []facetKV
	n     []int
	// prev holds the positions (in kvs) of the previous event's values,
	// in that event's order.
	prev []int
}

// add counts an event's values.
func (t *facetTally) add(kvs []facetKV) {
	for i, kv := range kvs {
		if i < len(t.prev) && t.kvs[t.prev[i]] == kv {
			t.n[t.prev[i]]++
			continue
		}
		j, ok := t.index[kv]
		if !ok {
			j = len(t.kvs)
			t.index[kv] = j
			t.kvs = append(t.kvs, kv)
			t.n = append(t.n, 0)
		}
		t.n[j]++
		if i < len(t.prev) {
			t.prev[i] = j
		} else {
			t.prev = append(t.prev, j)
		}
	}
	t.prev = t.prev[:len(kvs)]
}

// reset empties t, keeping its room.
func (t *facetTally) reset() {
	clear(t.index)
	clear(t.kvs) // drop the strings for the garbage collector
	t.kvs, t.n, t.prev = t.kvs[:0], t.n[:0], t.prev[:0]
}

// addFacets adds an event's values to its group's counts, in a tally of
// m's the first time.
func (g *groupAgg) addFacets(kvs []facetKV, m *memos) {
	if g.facets == nil {
		g.facets = m.facetTally()
	}
	g.facets.add(kvs)
}

// addRefs records the ids an event carried (store.EventRef).
func (g *groupAgg) addRefs(traceID, sdkID string, at int64) {
	if g.refs == nil {
		g.refs = map[[2]string]int64{}
	}
	if traceID != "" {
		g.refs[[2]string{store.RefTrace, traceID}] = at
	}
	if sdkID != "" {
		g.refs[[2]string{store.RefEvent, sdkID}] = at
	}
}

// eventRefs lists a group's ids for the store.
func (g *groupAgg) eventRefs(groupID string, out []store.EventRef) []store.EventRef {
	for k, at := range g.refs {
		out = append(out, store.EventRef{Kind: k[0], Ref: k[1], ProjectID: g.projectID, GroupID: groupID, LastSeen: time.UnixMilli(at).UTC()})
	}
	return out
}

// facetCounts lists a group's counts for the store.
func (g *groupAgg) facetCounts(groupID string, out []store.FacetCount) []store.FacetCount {
	if g.facets == nil {
		return out
	}
	for i, kv := range g.facets.kvs {
		out = append(out, store.FacetCount{GroupID: groupID, Key: kv.key, Value: kv.value, N: int64(g.facets.n[i])})
	}
	return out
}
