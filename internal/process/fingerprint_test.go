package process

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestCustomFingerprint: an event's own attributes.fingerprint counts only
// for its values that are not blank; [""] or ["", null] is no fingerprint,
// so that events of different errors carrying it are not one group.
func TestCustomFingerprint(t *testing.T) {
	for raw, want := range map[string][]string{
		``:                        nil,
		`""`:                      nil,
		`"  "`:                    nil,
		`"checkout"`:              {"checkout"},
		`[""]`:                    nil,
		`["", null, " "]`:         nil,
		`["a", null]`:             {"a"},
		`["a", "", "b"]`:          {"a", "b"},
		`["{{ default }}", "db"]`: {"{{ default }}", "db"},
		`[1, 2.5, true]`:          {"1", "2.5", "true"},
		`["a", {"b": 1}]`:         nil,
		`["a", ["b"]]`:            nil,
		`5`:                       nil,
		`{}`:                      nil,
		`[]`:                      nil,
	} {
		if got := customFingerprint(json.RawMessage(raw)); !slices.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("customFingerprint(%s) = %q, want %q", raw, got, want)
		}
	}
}
