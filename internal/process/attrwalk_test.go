package process

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// referenceFacets is what the value counts take from attributes, decoded
// with encoding/json: the oracle attrWalker is checked against. It is not
// ok for input encoding/json rejects or where two values flatten to one
// key.
func referenceFacets(attrs []byte) ([]string, bool) {
	d := json.NewDecoder(bytes.NewReader(attrs))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil {
		return nil, false
	}
	seen := map[string]bool{}
	collide := false
	var out []string
	var walk func(prefix string, m map[string]any, depth int)
	walk = func(prefix string, m map[string]any, depth int) {
		for k, v := range m {
			if depth == 0 && (k == "fingerprint" || strings.HasPrefix(k, "sentry.") || k == "message_template") {
				continue
			}
			key := strings.TrimPrefix(prefix+k, "tags.")
			if key == "" || len(key) > 200 {
				continue
			}
			var s string
			switch v := v.(type) {
			case map[string]any:
				if depth < 3 {
					walk(key+".", v, depth+1)
				}
				continue
			case string:
				s = v
			case json.Number:
				s = v.String()
			case bool:
				s = fmt.Sprint(v)
			default:
				continue
			}
			if seen[key] {
				collide = true
			}
			if s != "" && !seen[key] {
				seen[key] = true
				out = append(out, key+"="+cutRunes(s, maxFacetValue))
			}
		}
	}
	walk("", m, 0)
	sort.Strings(out)
	return out, !collide // which of two values flattened to one key comes first is map order
}

func walkedFacets(attrs []byte) []string {
	w := attrWalker{s: attrs}
	kvs, _, _ := w.attrFacets(nil, "", 0)
	var out []string
	for _, kv := range kvs {
		out = append(out, kv.key+"="+kv.value)
	}
	sort.Strings(out)
	return out
}

var attrSeeds = []string{
	`{}`, `{ }`, `{"a":"b"}`, ` { "a" : "b" , "n" : -1.5e3 , "t" : true , "f" : false , "z" : null } `,
	`{"esc\"aped":"va\\lue \u00e9 \n","k":"\"quoted\""}`,
	`{"list":[1,"x",{"a":"]"}],"after":"ok"}`,
	`{"o":{"p":{"q":{"r":{"s":"too deep"},"t":"3 deep"}}},"tags.region":"eu"}`,
	`{"sentry.event_id":"abc","fingerprint":["x"],"message_template":"t","user.id":"u1","user":{"name":"u2"}}`,
	`{"empty":"","s":"{not an object}","b":"[1]"}`,
	`{"nested":{"list":[[["deep"]]],"obj":{}},"x":"y"}`,
}

// TestAttrWalkerMatchesEncodingJSON: the walker takes from valid attributes
// exactly what a decode with encoding/json would (values as written, keys
// flattened, grouping's own keys left out).
func TestAttrWalkerMatchesEncodingJSON(t *testing.T) {
	for _, s := range attrSeeds {
		want, ok := referenceFacets([]byte(s))
		if !ok {
			t.Fatalf("seed %s is not valid JSON", s)
		}
		if got := walkedFacets([]byte(s)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n walker  %q\n encoding/json %q", s, got, want)
		}
	}
}

// FuzzAttrWalker: on any object encoding/json accepts (with at most
// maxFacetKeys scalar values and no key repeated), the walker agrees with
// it; on anything else it neither panics nor loops.
func FuzzAttrWalker(f *testing.F) {
	for _, s := range attrSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, attrs []byte) {
		got := walkedFacets(attrs)
		want, ok := referenceFacets(attrs)
		if !ok || len(want) >= maxFacetKeys || bytes.Contains(attrs, []byte(`\u0000`)) || !json.Valid(attrs) {
			return
		}
		if hasRepeatedKeys(attrs) {
			return // encoding/json keeps the last of a repeated key, the walker the first
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n walker  %q\n encoding/json %q", attrs, got, want)
		}
	})
}

// hasRepeatedKeys reports whether a key repeats at any level of attrs.
func hasRepeatedKeys(attrs []byte) bool {
	d := json.NewDecoder(bytes.NewReader(attrs))
	var stack []map[string]bool
	expectKey := false
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, map[string]bool{})
				expectKey = true
				continue
			case '}':
				stack = stack[:len(stack)-1]
			case '[':
				stack = append(stack, nil)
			case ']':
				stack = stack[:len(stack)-1]
			}
		case string:
			if expectKey && len(stack) > 0 && stack[len(stack)-1] != nil {
				if stack[len(stack)-1][v] {
					return true
				}
				stack[len(stack)-1][v] = true
				expectKey = false
				continue
			}
		}
		expectKey = len(stack) > 0 && stack[len(stack)-1] != nil
	}
}

// TestSenderTemplate: an INFO event's own template is read from the top
// level only, message_template before sentry.message.template, strings
// only, unescaped.
func TestSenderTemplate(t *testing.T) {
	for _, tc := range []struct{ attrs, want string }{
		{`{"sentry.message.template":"order %s shipped"}`, "order %s shipped"},
		{`{"a":{"message_template":"nested"},"sentry.message.template":"top"}`, "top"},
		{`{"sentry.message.template":"sentry","message_template":"own"}`, "own"},
		{`{"message_template":"  ","sentry.message.template":"sentry"}`, "sentry"},
		{`{"message_template":7,"x":[1,{"y":"z"}],"sentry.message.template":"after \"quoted\" {id}"}`, `after "quoted" {id}`},
		{`{"message_template":null}`, ""},
		{`{}`, ""},
		{`{"user":"message_template"}`, ""},
	} {
		if got := senderTemplate([]byte(tc.attrs)); got != tc.want {
			t.Errorf("senderTemplate(%s) = %q, want %q", tc.attrs, got, tc.want)
		}
	}
}

// BenchmarkSenderTemplate: what an INFO Sentry log record's template costs
// (go test -run '^$' -bench SenderTemplate ./internal/process/).
func BenchmarkSenderTemplate(b *testing.B) {
	attrs := []byte(`{"sentry.message.template":"order %s shipped by %s","sentry.message.parameter.0":"o-77","sentry.message.parameter.1":"DHL","sentry.sdk.name":"sentry.javascript.node","sentry.release":"1.2.3","server.address":"web-1"}`)
	m := newMemos()
	b.ReportAllocs()
	for b.Loop() {
		if t := m.senderTemplate(senderTemplate(attrs)); t.text == "" {
			b.Fatal("no template")
		}
	}
}
