package process

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
)

// Bounds of the per-group value counts (CONTRACT 8): at most
// maxFacetKeys keys an event, values cut to maxFacetValue characters; the
// store caps the distinct values a key a group (store.MaxFacetValues).
const (
	maxFacetKeys  = 50
	maxFacetValue = 200
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
		var attrs map[string]json.RawMessage
		// goccy/go-json (as the Sentry decoder uses): this runs for every
		// error event, about three times faster than encoding/json here.
		if gojson.Unmarshal(e.Attributes, &attrs) == nil {
			out = flatten(out, "", attrs, 0)
			if raw, ok := attrs["sentry.event_id"]; ok {
				_ = json.Unmarshal(raw, &sdkID)
			}
			userID = attrs[userIDKey]
		}
	}
	return deriveAgent(out), sdkID, userID
}

// userIDKey is the attribute whose values are an event's user (the ignore
// conditions' users; the value counts' store.UserKey).
const userIDKey = "user.id"

// flatten appends the scalar values of attrs under prefix, at most
// maxFacetKeys in all.
func flatten(out []facetKV, prefix string, attrs map[string]json.RawMessage, depth int) []facetKV {
	for k, raw := range attrs {
		if len(out) >= maxFacetKeys {
			return out
		}
		key := prefix + k
		if depth == 0 && (k == "fingerprint" || strings.HasPrefix(k, "sentry.") || k == "message_template") {
			continue
		}
		key = strings.TrimPrefix(key, "tags.")
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || key == "" || len(key) > 200 {
			continue
		}
		switch raw[0] {
		case '{':
			var sub map[string]json.RawMessage
			if depth < 3 && gojson.Unmarshal(raw, &sub) == nil {
				out = flatten(out, key+".", sub, depth+1)
			}
		case '"':
			var s string
			if json.Unmarshal(raw, &s) == nil && s != "" {
				out = appendFacet(out, key, s)
			}
		case '[', 'n': // lists and null are not values one filters on
		default: // numbers and booleans, as written
			out = appendFacet(out, key, string(raw))
		}
	}
	return out
}

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

// addFacets adds an event's values to its group's counts.
func (g *groupAgg) addFacets(kvs []facetKV) {
	if g.facets == nil {
		g.facets = map[facetKV]int{}
	}
	for _, kv := range kvs {
		g.facets[kv]++
	}
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
	for kv, n := range g.facets {
		out = append(out, store.FacetCount{GroupID: groupID, Key: kv.key, Value: kv.value, N: int64(n)})
	}
	return out
}
