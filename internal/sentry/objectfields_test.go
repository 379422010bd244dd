package sentry

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// objectFieldsDecoder is what objectFields did before it scanned by hand:
// encoding/json's Decoder, token by token. On valid JSON both agree.
func objectFieldsDecoder(raw json.RawMessage) []field {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	if _, err := dec.Token(); err != nil {
		return nil
	}
	var out []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return out
		}
		if k, ok := tok.(string); ok {
			out = append(out, field{k, v})
		}
	}
	return out
}

var objectFieldsSeeds = []string{
	`{}`, ` { } `, `{"a":"1"}`, `{"a": 1, "b": true, "c": null, "d": -1.5e3}`,
	`{"service":"checkout","region":"eu","nested":{"x":[1,{"y":"}"}]},"after":"z"}`,
	`{"k\u0000":"v\u0000","esc\"aped":"q\\\"","emoji":"\ud83d\ude00"}`,
	"{\n\t\"a\" :\r\n \"b\" ,\"c\":[]\n}", `{"a":"]","b":"{","c":"\\"}`,
	`{"dup":"1","dup":"2"}`, `[1,2]`, `"str"`, ``,
	// Faults: the members before one are kept.
	`{"a":"1","b":tru}`, `{"a":"1",}`, `{"a":"1" "b":"2"}`, `{"a":`, `{"a":"unterminated}`, `{1:2}`, `{"a":{"b":[1,2}`,
}

func TestObjectFieldsMatchesDecoder(t *testing.T) {
	t.Parallel()
	for _, in := range objectFieldsSeeds {
		got, want := objectFields(json.RawMessage(in)), objectFieldsDecoder(json.RawMessage(in))
		if json.Valid([]byte(in)) && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
		for _, f := range got {
			if !json.Valid(f.value) {
				t.Errorf("%s: member %q has invalid value %s", in, f.key, f.value)
			}
		}
	}
}

// FuzzObjectFields: on valid JSON the scanner agrees with encoding/json;
// on anything, it does not panic and keeps only valid members.
func FuzzObjectFields(f *testing.F) {
	for _, s := range objectFieldsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got := objectFields(in)
		if json.Valid(in) {
			if want := objectFieldsDecoder(in); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: got %q, want %q", in, got, want)
			}
		}
		for _, f := range got {
			if !json.Valid(f.value) && !bytes.ContainsAny(f.value, "{[\"") {
				t.Fatalf("%q: member %q has invalid scalar %q", in, f.key, f.value)
			}
		}
	})
}
