package grouping

import "strings"

// Component is one thing grouping looked at, with whether it took part in
// the fingerprint (CONTRACT 8: GET /v1/groups/{group_id} grouping.components).
//
// Names: "error.type" (each exception type of the chain), "error.value"
// (the primary exception's message as it groups), "message" (the
// parameterised message) or "message_template" (the sender's template),
// "stack.frame" (one frame, module:function; frames that are not in-app, a
// rule took out, or repeat the one before do not contribute),
// "stack_trace_rule" (a project rule that changed frames),
// "fingerprint" and "fingerprint_rule" (a custom fingerprint, the event's
// own or a project rule's: the other components contribute only through
// {{ default }}).
type Component struct {
	Name        string `json:"name"`
	Value       string `json:"value"`
	Contributes bool   `json:"contributes"`
}

// maxFrameComponents bounds the frames listed: those that contribute
// first (at most maxFrames of them), then the others while room is left.
const (
	maxFrameComponents = 50
	maxFrames          = 200
)

// defaultComponents lists what the default fingerprint of res was made of:
// used marks the frames in its parts; source names the message
// ("message" or "message_template").
func defaultComponents(st Stack, res Result, used []bool, source string) []Component {
	var out []Component
	if res.Rule == RuleMessage {
		return append(out, Component{Name: source, Value: res.Parts[1], Contributes: true})
	}
	for _, t := range st.Types {
		out = append(out, Component{Name: "error.type", Value: t, Contributes: true})
	}
	if len(st.Types) > 0 {
		value, contributes := "", false
		for _, p := range res.Parts {
			if v, ok := strings.CutPrefix(p, "value:"); ok {
				value, contributes = v, true
			}
		}
		if !contributes {
			value = firstLines(st.Message, 1)
		}
		if value != "" {
			out = append(out, Component{Name: "error.value", Value: value, Contributes: contributes})
		}
	}
	out = append(out, Component{Name: source, Value: res.Template, Contributes: len(st.Types) == 0})
	room := maxFrameComponents
	for _, u := range used {
		if u {
			room--
		}
	}
	listed := 0
	for k, f := range st.Frames {
		if listed >= maxFrames {
			break
		}
		listed++
		if !used[k] {
			if room <= 0 {
				continue
			}
			room--
		}
		out = append(out, Component{Name: "stack.frame", Value: f.key(), Contributes: used[k]})
	}
	return out
}
