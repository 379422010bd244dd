package process

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/ingest"
)

func TestFacetsOfAnEvent(t *testing.T) {
	long := strings.Repeat("é", 250)
	cases := []struct {
		name  string
		event ingest.Event
		want  []string // key=value, sorted
	}{
		{"fields", ingest.Event{Environment: "production", Release: "1.0", Service: "api"},
			[]string{"environment=production", "release=1.0", "service=api"}},
		{"attributes flattened, tags and grouping keys left out", ingest.Event{Service: "api", Attributes: []byte(
			`{"fingerprint":["x"],"sentry.in_app":"1","message_template":"t","tags.region":"eu","user":{"id":7,"geo":{"city":"Oslo"}},"ok":true,"n":1.5,"list":[1],"nothing":null,"empty":""}`)},
			[]string{"n=1.5", "ok=true", "region=eu", "service=api", "user.geo.city=Oslo", "user.id=7"}},
		{"long values cut to 200 characters", ingest.Event{Attributes: []byte(`{"v":"` + long + `"}`)}, []string{"v=" + long[:400]}},
		{"browser and os from a user agent", ingest.Event{Attributes: []byte(
			`{"user_agent":{"original":"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0"}}`)},
			[]string{"browser=Firefox", "os=Linux", "user_agent.original=Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0"}},
		{"an event's own browser wins", ingest.Event{Attributes: []byte(`{"browser":"Edge 1","http.user_agent":"curl/8.4"}`)},
			[]string{"browser=Edge 1", "http.user_agent=curl/8.4"}},
	}
	for _, c := range cases {
		var got []string
		kvs, _, _ := facets(&c.event, nil)
		for _, kv := range kvs {
			got = append(got, kv.key+"="+kv.value)
		}
		sort.Strings(got)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: facets = %q, want %q", c.name, got, c.want)
		}
	}
	if _, id, _ := facets(&ingest.Event{Attributes: []byte(`{"sentry.event_id":"9ec79c33ec9942838353589fcb2e04dc"}`)}, nil); id != "9ec79c33ec9942838353589fcb2e04dc" {
		t.Errorf("SDK event id = %q", id)
	}
	for attrs, want := range map[string]string{`{"user.id":"u1"}`: `"u1"`, `{"user.id": 7 }`: `7`, `{"user":{"id":7}}`: ``, `{}`: ``} {
		if _, _, u := facets(&ingest.Event{Attributes: []byte(attrs)}, nil); string(bytes.TrimSpace(u)) != want {
			t.Errorf("user.id of %s = %q, want %q", attrs, u, want)
		}
	}
	var b strings.Builder
	b.WriteString("{")
	for i := range 60 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	b.WriteString("}")
	// The cap is of the event's attribute keys: environment, release and
	// service, and a derived browser and os, come on top.
	e := &ingest.Event{Environment: "e", Release: "r", Service: "s", Attributes: []byte(strings.Replace(b.String(), `"k0":0`, `"user_agent":"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0"`, 1))}
	got, _, _ := facets(e, nil)
	if len(got) != 3+maxFacetKeys+2 {
		t.Errorf("60 attributes with environment, release, service and a user agent give %d values, want %d", len(got), 3+maxFacetKeys+2)
	}
	keys := map[string]bool{}
	for _, kv := range got {
		keys[kv.key] = true
	}
	for _, k := range []string{"environment", "release", "service", "user_agent", "k49", "browser", "os"} {
		if !keys[k] {
			t.Errorf("no %s among the values of an event with 60 attributes", k)
		}
	}
	if keys["k50"] {
		t.Errorf("k50, the 51st attribute, is counted")
	}
}

// TestFacetTallyCountsAsAMap checks the tally's shortcut (values compared
// with the previous event's at the same place) against plain map counting,
// over events whose values repeat, move, shrink and grow, and across a
// reset as a recycled tally sees it.
func TestFacetTallyCountsAsAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tally := (*memos)(nil).facetTally()
	for round := range 3 {
		want := map[facetKV]int{}
		for range 2000 {
			var kvs []facetKV
			for k := range r.IntN(8) {
				key := fmt.Sprintf("k%d", (k+r.IntN(2))%6) // a value now and then at another place
				kv := facetKV{key, fmt.Sprintf("v%d", r.IntN(3))}
				if !slices.ContainsFunc(kvs, func(x facetKV) bool { return x.key == kv.key }) {
					kvs = append(kvs, kv)
				}
			}
			for _, kv := range kvs {
				want[kv]++
			}
			tally.add(kvs)
		}
		got := map[facetKV]int{}
		for i, kv := range tally.kvs {
			if _, dup := got[kv]; dup {
				t.Fatalf("round %d: %v listed twice", round, kv)
			}
			got[kv] = tally.n[i]
		}
		if !maps.Equal(got, want) {
			t.Fatalf("round %d: tally %v, want %v", round, got, want)
		}
		tally.reset()
		if len(tally.kvs) != 0 || len(tally.index) != 0 || len(tally.prev) != 0 {
			t.Fatalf("reset left %d values, %d indexed, %d previous", len(tally.kvs), len(tally.index), len(tally.prev))
		}
	}
}
