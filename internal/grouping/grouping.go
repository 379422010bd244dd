// Package grouping computes the fingerprint that decides which error group an
// event joins (CONTRACT §4). Everything here is a pure function of its input:
// no I/O, no clocks, no globals that change, so a fingerprint computed today is
// the same one computed by the next release of the same Version.
package grouping

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Rule says which input produced a fingerprint.
type Rule string

// The rules, in the order Fingerprint tries them.
const (
	RuleCustom     Rule = "custom"     // attributes.fingerprint
	RuleStackTrace Rule = "stacktrace" // exception type(s) + in-app frames
	RuleMessage    Rule = "message"    // the parameterised message
)

// maxTitle is the longest Title, in runes.
const maxTitle = 200

// Input is what an event offers to grouping. release, trace ids and other
// attributes are deliberately absent: they never take part.
type Input struct {
	Message    string
	StackTrace string
	// Fingerprint comes from attributes.fingerprint (a string becomes one
	// element); nil when absent. "{{ default }}" expands to the computed
	// fingerprint.
	Fingerprint []string
	// InApp, when it has one character per frame the stack trace parses
	// into, says which frames are the application's as the SDK that sent the
	// event knew it: 'y' in app, 'n' not, 'd' judged the application's by
	// the SDK but a dependency's by its source map (not in-app from
	// version 6, in-app before), anything else leaves the parser's own
	// judgement. Sentry events carry it (attribute sentry.in_app); a
	// count that does not match is ignored.
	InApp string
	// Template is the message's template when the sender gave one (Sentry's
	// logentry.message with params, the attribute message_template): from
	// version 3 the message groups on it, placeholders and all, not on the
	// formatted text.
	Template string
	// Level and Attributes (string values; numbers and booleans as JSON)
	// are what Rules match besides the message and the trace; read only
	// when Rules is set.
	Level      string
	Attributes map[string]string
	// Rules are the project's grouping rules; nil when it has none.
	Rules *Rules
}

// Result is a fingerprint and what a group needs to show for it.
type Result struct {
	Fingerprint   string // hex SHA-256 of the parts
	Rule          Rule
	Version       int
	Title         string // short and specific, at most 200 runes
	ExceptionType string // the primary exception type, "" when unknown
	Template      string // the parameterised message (first two non-empty lines)
	Frames        []Frame
	// Culprit names the innermost in-app frame, where the error was raised
	// ("app/jobs.py in charge", "com.acme.Billing.charge"); the innermost
	// frame when none is in-app, "" when there are no frames.
	Culprit string
	// Parts are the values hashed into Fingerprint, for debugging and goldens.
	Parts []string
	// Components say what made the fingerprint, for people: the
	// dashboard's "Why these events are grouped".
	Components []Component
}

// Fingerprint groups one event: the first of the project's fingerprint
// rules that matches it; else attributes.fingerprint if present; else the
// exception type(s) and normalised in-app frames when a stack trace parses
// (after the project's stack trace rules); else the message's template or
// the parameterised message.
func Fingerprint(in Input) Result {
	return fingerprint(in, current)
}

// fingerprint is Fingerprint under algorithm a.
func fingerprint(in Input, a *algorithm) Result {
	res := Result{Version: a.version}
	st, msg := parseInput(in, a)
	source := "message"
	if a.templates && strings.TrimSpace(in.Template) != "" {
		res.Template, source = TemplateText(in.Template), "message_template"
	} else {
		res.Template = parameterize(msg, &a.params)
	}
	applyInApp(st.Frames, in.InApp, a.dependencies)
	skip := make([]bool, len(st.Frames))
	var ev *facts
	var stackRules []string
	if in.Rules != nil {
		ev = newFacts(in, &st)
		stackRules = in.Rules.applyStack(ev, skip)
	}
	res.Frames = st.Frames
	if len(st.Types) > 0 {
		res.ExceptionType = st.Types[0]
	}
	var used []bool
	if len(st.Frames) > 0 {
		res.Rule = RuleStackTrace
		res.Parts, used = stackParts(st, res.Template, a, skip)
	} else {
		res.Rule = RuleMessage
		res.Parts = []string{"message", res.Template}
		if a.wrappers {
			res.Parts[1] = trimTimePrefix(res.Template)
		}
	}
	res.Components = defaultComponents(st, res, used, source)
	for _, text := range stackRules {
		res.Components = append(res.Components, Component{Name: "stack_trace_rule", Value: text, Contributes: true})
	}
	crash := culpritIndex(&st)
	var crashFrame *Frame
	if crash >= 0 {
		crashFrame = &st.Frames[crash]
		res.Culprit = culpritName(*crashFrame, st.Language)
	} else if len(st.Frames) > 0 {
		// No frame is in-app (a library's error, or an SDK that marks
		// none): the culprit is the innermost frame, as Sentry shows it.
		// Rules' frame variables still take no frame.
		res.Culprit = culpritName(st.Frames[innermostIndex(&st)], st.Language)
	}
	titleLine := res.Template
	if a.stackTitle && len(st.Types) > 0 {
		// The trace's own exception, not a log or framework wrapper
		// ("Internal Server Error: /x", "Servlet.service() … threw exception").
		titleLine = parameterize(st.Message, &a.params)
	}
	res.Title = title(st, res.ExceptionType, titleLine)
	if res.Title == "" {
		res.Title = frameTitle(st.Frames)
	}
	customFingerprint(&res, in, a, ev, &st, crashFrame)
	res.Fingerprint = hashParts(res.Parts)
	return res
}

// customFingerprint replaces the default fingerprint parts of res by a
// project rule's fingerprint (and title), else by the event's own
// attributes.fingerprint, "{{ default }}" in either standing for the
// default's hash (and, from version 4, the event's own taking every
// variable a rule may, and a fingerprint of {{ default }} alone being the
// default itself). ev is the event's facts when rules were read, nil
// otherwise.
func customFingerprint(res *Result, in Input, a *algorithm, ev *facts, st *Stack, crashFrame *Frame) {
	var rule *fpRule
	if ev != nil {
		rule = in.Rules.matchFingerprint(ev)
	}
	var values []fpValue
	switch {
	case rule != nil:
		values = rule.values
		if rule.title != nil {
			var b strings.Builder
			for _, v := range rule.title {
				b.WriteString(ev.expand(v, res.Title, crashFrame))
			}
			if t := strings.TrimSpace(b.String()); t != "" { // variables the event lacks leave the default
				res.Title = truncate(t, maxTitle)
			}
		}
	case len(in.Fingerprint) > 0:
		values = make([]fpValue, len(in.Fingerprint))
		for k, p := range in.Fingerprint {
			values[k] = ownValue(p, a)
		}
	default:
		return
	}
	if a.ownVariables && len(values) == 1 && values[0].variable && values[0].text == "default" {
		return // Sentry's ["{{ default }}"]: the default fingerprint
	}
	def := hashParts(res.Parts)
	custom := make([]string, len(values))
	for k, v := range values {
		switch {
		case !v.variable:
			custom[k] = v.text
		case v.text == "default":
			custom[k] = def
		default:
			if ev == nil {
				ev = newFacts(in, st)
			}
			custom[k] = ev.expand(v, def, crashFrame)
		}
	}
	text := ""
	if rule != nil {
		text = rule.text
	}
	setCustom(res, custom, values, text)
}

// ownValue reads one value of an event's own fingerprint: "{{ default }}"
// in any spacing is the default; from version 4 any variable a rule may
// use ("{{ transaction }}", "{{ tags.region }}") is that variable, and
// anything else is literal text.
func ownValue(p string, a *algorithm) fpValue {
	t := strings.TrimSpace(p)
	if len(t) < 4 || !strings.HasPrefix(t, "{{") || !strings.HasSuffix(t, "}}") {
		return fpValue{text: p}
	}
	name := strings.TrimSpace(t[2 : len(t)-2])
	if name == "default" {
		return fpValue{text: "default", variable: true}
	}
	if v, known := variable(name); a.ownVariables && known {
		return fpValue{text: v, variable: true}
	}
	return fpValue{text: p}
}

// parseInput finds the stack trace of in (its own, or one a logger put in
// the message) and the message that names the error.
func parseInput(in Input, a *algorithm) (Stack, string) {
	var st Stack
	msg := in.Message
	if in.StackTrace != "" {
		st = parseStack(in.StackTrace, a)
		if st.Language == "rust" && st.Message != "" {
			return st, rustMessage(st)
		}
		if msg == "" {
			msg = st.Message
			if msg == "" && len(st.Types) == 0 && a.wrappers {
				// No message and no exception type: the trace's first line
				// ("connect ECONNREFUSED 127.0.0.1:5432") says what failed.
				msg = firstLines(in.StackTrace, 1)
			}
		}
	} else if strings.IndexByte(in.Message, '\n') >= 0 {
		// Loggers often put the whole trace in the message.
		if s := parseStack(in.Message, a); len(s.Frames) > 0 || s.Language == "rust" && s.Message != "" {
			st = s
			if s.Language == "rust" {
				msg = rustMessage(s)
			} else if s.Message != "" || len(s.Types) > 0 {
				msg = s.Message
			}
		}
	}
	return st, msg
}

// rustMessage is what a Rust panic's message rule reads: its place and its
// message, not the thread of the "thread 'main' panicked at …" line a
// sender often puts first (the place keeps its line: without a backtrace
// it is what tells two unwraps of a program apart).
func rustMessage(st Stack) string {
	if st.place == "" {
		return st.Message
	}
	return "panicked at " + st.place + ":\n" + st.Message
}

// setCustom makes res's fingerprint the custom values (their sources in
// values: a {{ default }} keeps the default components contributing); rule
// is the project's rule that gave them, "" for the event's own.
func setCustom(res *Result, custom []string, values []fpValue, rule string) {
	res.Rule = RuleCustom
	res.Parts = append([]string{"custom"}, custom...)
	keepDefault := false
	shown := make([]string, len(values))
	for k, v := range values {
		shown[k] = v.text
		switch {
		case v.variable && v.text == "default":
			shown[k] = "{{ default }}"
			keepDefault = true
		case v.variable:
			// What the variable gave: "{{ tags.region }}" shows as "eu", so
			// that two groups of one rule read apart.
			shown[k] = custom[k]
		}
	}
	if !keepDefault {
		for k := range res.Components {
			res.Components[k].Contributes = false
		}
		// {{ error.type }}, {{ error.value }} and {{ message }} put in
		// what their components show, as the variable gave it: the value
		// as sent, not as the default fingerprint parameterises it.
		for i, v := range values {
			for k := range res.Components {
				if v.variable && res.Components[k].Name == v.text && (v.text == "error.type" || v.text == "error.value" || v.text == "message") {
					res.Components[k].Contributes = true
					res.Components[k].Value = custom[i]
					break
				}
			}
		}
	}
	head := []Component{{Name: "fingerprint", Value: strings.Join(shown, ", "), Contributes: true}}
	if rule != "" {
		head = append(head, Component{Name: "fingerprint_rule", Value: rule, Contributes: true})
	}
	res.Components = append(head, res.Components...)
}

// TemplateText is a sender's message template as it groups: its first two
// non-empty lines, at most 1,000 characters, placeholders kept.
func TemplateText(t string) string {
	return truncate(firstLines(strings.TrimSpace(t), 2), 1000)
}

// ApplyInApp is applyInApp for the frames of ParseStack, so that what shows
// a trace's frames (the event detail) shows the SDK's flags as grouping
// read them (Input.InApp).
func ApplyInApp(frames []Frame, flags string) { applyInApp(frames, flags, current.dependencies) }

// applyInApp overrides the frames' in-app judgement with flags, one per
// frame ('y', 'n', 'd': n when dependencies, else y; other: unchanged),
// when there are as many as frames.
func applyInApp(frames []Frame, flags string, dependencies bool) {
	if len(flags) != len(frames) {
		return
	}
	for i := range frames {
		switch flags[i] {
		case 'y':
			frames[i].InApp = true
		case 'n':
			frames[i].InApp = false
		case 'd':
			frames[i].InApp = !dependencies
		}
	}
}

// stackParts lists the type(s) and frames that identify a stack. Frames are
// the in-app ones when any exist, else all; consecutive repeats (recursion)
// count once so the depth of a recursion does not split a group. When no
// exception type is known (debug.Stack(), Firefox), the message template
// stands in for it, so different errors logged from one place stay apart.
// Frames a stack trace rule took out (skip) take no part. used says which
// frames are in the parts.
//
// From version 2 the primary exception's value follows the types, so that
// one place failing in two ways ("Connection refused", "Connection timed
// out") gives two groups.
func stackParts(st Stack, template string, a *algorithm, skip []bool) ([]string, []bool) {
	parts := make([]string, 0, len(st.Types)+len(st.Frames)+3)
	parts = append(parts, "stacktrace")
	for _, t := range st.Types {
		parts = append(parts, "type:"+t)
	}
	if a.value && len(st.Types) > 0 {
		msg := st.Message
		if a.rootValue && len(st.Types) > 1 && st.Language == "java" {
			msg = st.RootMessage
		}
		if v := exceptionValue(msg, a); v != "" {
			parts = append(parts, "value:"+v)
		}
	}
	if len(st.Types) == 0 {
		parts = append(parts, "message:"+template)
	}
	inApp := false
	for k, f := range st.Frames {
		if f.InApp && !skip[k] {
			inApp = true
			break
		}
	}
	used := make([]bool, len(st.Frames))
	last := ""
	for k, f := range st.Frames {
		if skip[k] || inApp && !f.InApp {
			continue
		}
		key := "frame:" + f.key()
		if key == last {
			continue
		}
		last = key
		used[k] = true
		parts = append(parts, key)
	}
	return parts, used
}

// hashParts hashes length-prefixed parts, so no choice of separator can make
// two different part lists collide.
func hashParts(parts []string) string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, p := range parts {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(p)))])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// title is "<Type>: <first line of the template>", or the template alone.
func title(st Stack, typ, template string) string {
	line := template
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	line = strings.TrimSpace(line)
	switch {
	case st.Language == "go" && typ != "":
		// Go panics print as "panic: <value>"; the type is only a guess.
		prefix := "panic"
		if typ == goFatal {
			prefix = goFatal
		}
		line = prefix + ": " + line
	case typ != "" && line == "":
		line = typ
	case typ != "" && !strings.HasPrefix(line, typ):
		line = typ + ": " + line
	}
	return truncate(line, maxTitle)
}

// frameTitle names an event with neither message nor type by the first
// application frame, "in pkg.Function".
func frameTitle(frames []Frame) string {
	for _, f := range frames {
		if f.InApp || f == frames[len(frames)-1] {
			return truncate("in "+f.key(), maxTitle)
		}
	}
	return ""
}

// truncate cuts s to at most n runes, ending with "…" when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) && count < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s[:i] + "…"
}

// trimTimePrefix drops the timestamp a logger puts before a message
// ("<datetime> - ERROR …" reads as "ERROR …"), from version 2: the same line
// logged with and without it is one problem.
func trimTimePrefix(t string) string {
	for _, ph := range []string{phDatetime, phDate, phTime} {
		if rest, ok := strings.CutPrefix(t, ph); ok {
			return strings.TrimLeft(rest, " -|:[]")
		}
	}
	return t
}
