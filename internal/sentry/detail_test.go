package sentry

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppendLines(t *testing.T) {
	many := make([]string, 15)
	for k := range many {
		many[k] = string(rune('a' + k))
	}
	raw := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	for _, c := range []struct {
		name string
		raw  json.RawMessage
		pre  bool
		want string
	}{
		{"kept as sent", json.RawMessage(`[ "x", "y" ]`), true, `[ "x", "y" ]`},
		{"empty", json.RawMessage(`[]`), true, `[]`},
		{"absent", nil, true, `[]`},
		{"not an array", json.RawMessage(`"x"`), false, `[]`},
		{"pre keeps the last ten", raw(many), true, `["f","g","h","i","j","k","l","m","n","o"]`},
		{"post keeps the first ten", raw(many), false, `["a","b","c","d","e","f","g","h","i","j"]`},
		{"NUL", json.RawMessage(`["a\u0000b"]`), false, "[\"a\uFFFDb\"]"},
		{"not strings", json.RawMessage(`[1, "x"]`), false, `["","x"]`},
		{"long line cut", raw([]string{strings.Repeat("x", 2000)}), false, `["` + strings.Repeat("x", maxContextBytes) + `"]`},
	} {
		got := string(appendLines(nil, c.raw, c.pre))
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s: %s is not JSON", c.name, got)
		}
	}
}
