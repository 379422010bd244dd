package process

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestCustomFingerprint: an event's own attributes.fingerprint that is
// blank ("", [""], ["", null]) is no fingerprint, so that events of
// different errors carrying it are not one group; any other reads as it
// did, so that events stay in their groups.
func TestCustomFingerprint(t *testing.T) {
	for raw, want := range map[string][]string{
		``:                        nil,
		`""`:                      nil,
		`"  "`:                    nil,
		`"checkout"`:              {"checkout"},
		`[""]`:                    nil,
		`["", null, " "]`:         nil,
		`["a", null]`:             {"a", ""}, // as read before: its events stay in their group
		`["a", "", "b"]`:          {"a", "", "b"},
		`["{{ default }}", "db"]`: {"{{ default }}", "db"},
		`[1, 2.5, true]`:          nil,
		`["a", {"b": 1}]`:         nil,
		`5`:                       nil,
		`{}`:                      nil,
		`[]`:                      nil,
	} {
		if got := customFingerprint(json.RawMessage(raw)); !slices.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("customFingerprint(%s) = %q, want %q", raw, got, want)
		}
	}
}
