package symbolicate

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/errata-dev/errata/internal/grouping"
)

// inAppKey is the attribute of a Sentry SDK's in_app flags, one character
// per frame of the rendered trace ('y', 'n', '?'): internal/sentry's
// render.go.
const inAppKey = "sentry.in_app"

// demoteDependencies marks not in-app ('d', grouping.Input.InApp) the
// mapped frames whose original file is a dependency's (node_modules, a
// vendor bundle) in the SDK's flags of e's attributes, as Sentry decides
// in_app again from the original path (from grouping version 6: older
// versions read 'd' as the SDK's 'y', so that a group made before keeps
// its events):
// the SDK judged the bundle, in which the application and its
// dependencies are one file. Grouping, culprit and title then read the
// application's frames. The frames are those grouping parses from the
// rewritten trace (a line that only looks like a frame, inside an
// exception's value, is none); a trace whose flags do not match them, or
// without flags (grouping judges its frames by their paths), is left
// alone. Only the flags' characters change in the attributes: the flags
// keep their length, and the rest of the document its bytes.
func demoteDependencies(attrs json.RawMessage, lines []string, done []mapped) json.RawMessage {
	var deps []int // the trace lines of mapped frames in dependencies
	for k := range done {
		if !grouping.JSInApp(done[k].File) {
			deps = append(deps, done[k].line)
		}
	}
	if len(deps) == 0 || !bytes.Contains(attrs, []byte(`"`+inAppKey+`"`)) {
		return attrs
	}
	at, old := topLevelString(attrs, inAppKey)
	if old == "" || strings.Trim(old, "yn?") != "" {
		return attrs
	}
	st := grouping.ParseStack(strings.Join(lines, "\n"))
	if len(st.Frames) != len(old) || len(st.Lines) != len(st.Frames) {
		return attrs
	}
	flags := []byte(old)
	for _, line := range deps {
		if k := slices.Index(st.Lines, line); k >= 0 && flags[k] == 'y' {
			flags[k] = 'd' // not 'n': grouping before version 6 reads the SDK's 'y'
		}
	}
	if string(flags) == old {
		return attrs
	}
	out := slices.Clone(attrs)
	copy(out[at:], flags) // y, n and ? need no escaping: same length, same place
	return out
}

// topLevelString finds the string value of the top-level key (exactly
// as written: not a nested copy, nor another case of it) in the JSON
// object attrs, and where its characters start; "" when there is none, or
// when it is escaped (its text is not its bytes) or repeated.
func topLevelString(attrs json.RawMessage, key string) (int, string) {
	dec := json.NewDecoder(bytes.NewReader(attrs))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, ""
	}
	at, found := 0, ""
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return 0, ""
		}
		keyEnd := int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, ""
		}
		if k != key {
			continue
		}
		var text string
		if found != "" || json.Unmarshal(v, &text) != nil || len(v) != len(text)+2 {
			return 0, ""
		}
		at, found = keyEnd+bytes.IndexByte(attrs[keyEnd:], '"')+1, text
	}
	return at, found
}
