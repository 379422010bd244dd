package symbolicate

import (
	"encoding/json"
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
// application's frames. A trace whose flags do not match its frames, or
// without flags (grouping judges its frames by their paths), is left alone.
func demoteDependencies(attrs json.RawMessage, lines []string, done []mapped) json.RawMessage {
	var ordinals []int
	for k := range done {
		if grouping.JSInApp(done[k].File) {
			continue
		}
		n := 0
		for _, l := range lines[:done[k].line] {
			if strings.HasPrefix(l, "    at ") {
				n++
			}
		}
		ordinals = append(ordinals, n)
	}
	if len(ordinals) == 0 || !strings.Contains(string(attrs), inAppKey) {
		return attrs
	}
	var a map[string]json.RawMessage
	var flags string
	if json.Unmarshal(attrs, &a) != nil || json.Unmarshal(a[inAppKey], &flags) != nil {
		return attrs
	}
	frames := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "    at ") {
			frames++
		}
	}
	if len(flags) != frames {
		return attrs
	}
	b := []byte(flags)
	for _, n := range ordinals {
		if b[n] == 'y' {
			b[n] = 'n'
		}
	}
	if string(b) == flags {
		return attrs
	}
	a[inAppKey], _ = json.Marshal(string(b))
	out, err := json.Marshal(a)
	if err != nil {
		return attrs
	}
	return out
}
