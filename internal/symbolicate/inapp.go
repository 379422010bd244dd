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

// demoteDependencies marks not in-app the mapped frames whose original
// file is a dependency's (node_modules, a vendor bundle) in the SDK's flags
// of e's attributes, as Sentry decides in_app again from the original path:
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
	var top struct {
		Flags string `json:"sentry.in_app"`
	}
	if json.Unmarshal(attrs, &top) != nil || top.Flags == "" || strings.Trim(top.Flags, "yn?") != "" {
		return attrs
	}
	st := grouping.ParseStack(strings.Join(lines, "\n"))
	if len(st.Frames) != len(top.Flags) || len(st.Lines) != len(st.Frames) {
		return attrs
	}
	flags := []byte(top.Flags)
	for _, line := range deps {
		if k := slices.Index(st.Lines, line); k >= 0 && flags[k] == 'y' {
			flags[k] = 'n'
		}
	}
	if string(flags) == top.Flags {
		return attrs
	}
	// The attribute as the Sentry mapper writes it, once: anything else (a
	// copy nested in another attribute, spaces) leaves the event alone.
	old := []byte(`"` + inAppKey + `":"` + top.Flags + `"`)
	at := bytes.Index(attrs, old)
	if at < 0 || bytes.Count(attrs, old) != 1 {
		return attrs
	}
	out := slices.Clone(attrs)
	copy(out[at+len(old)-1-len(flags):], flags)
	return out
}
