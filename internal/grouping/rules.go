package grouping

import (
	"fmt"
	"strings"
)

// Rules are a project's grouping rules (CONTRACT 8), in Sentry's
// fingerprint-rules and stack-trace-rules syntax: one rule a line, '#'
// starts a comment.
//
//	error.type:LedgerError -> ledger, {{ error.type }}
//	stack.abs_path:**/vendor/** -app
//	stack.function:panic_handler ^-group -group
//
// A zero or nil *Rules changes nothing.
type Rules struct {
	fingerprint []fpRule
	stack       []stackRule
}

// fpRule assigns a fingerprint to the events its matchers match.
type fpRule struct {
	text     string
	matchers []matcher
	values   []fpValue
	title    []fpValue // nil: the default title
}

// fpValue is a literal or, when variable is set, a {{ variable }}.
type fpValue struct {
	text     string
	variable bool
}

// stackRule changes the frames its matchers match.
type stackRule struct {
	text     string
	matchers []matcher
	actions  []action
}

// action is a flag action: [^|v][+|-](app|group).
type action struct {
	rng   byte // 0 the frame itself, '^' the frames toward the crash, 'v' those away from it
	set   bool
	group bool // the group flag; else the app flag
}

// RuleError is a rule that does not parse: Field is "fingerprint" or
// "stack_trace", Line counts from 1.
type RuleError struct {
	Field string
	Line  int
	Msg   string
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("%s: line %d: %s", e.Field, e.Line, e.Msg)
}

// maxRulesBytes bounds each rule text; maxRules the rules of each kind.
const (
	maxRulesBytes = 64 << 10
	maxRules      = 500
)

// ParseRules parses fingerprint and stack trace rules. An error is a
// *RuleError naming the field and the line. Both empty give nil.
func ParseRules(fingerprint, stackTrace string) (*Rules, error) {
	r := &Rules{}
	for _, part := range []struct {
		field, text string
		line        func(string, int) error
	}{
		{"fingerprint", fingerprint, r.addFingerprint},
		{"stack_trace", stackTrace, r.addStack},
	} {
		if len(part.text) > maxRulesBytes {
			return nil, &RuleError{part.field, 1, fmt.Sprintf("the rules are %d bytes, more than %d", len(part.text), maxRulesBytes)}
		}
		for k, l := range strings.Split(part.text, "\n") {
			l = strings.TrimSpace(strings.TrimSuffix(l, "\r"))
			if l == "" || l[0] == '#' {
				continue
			}
			if err := part.line(l, k+1); err != nil {
				return nil, &RuleError{part.field, k + 1, err.Error()}
			}
			if len(r.fingerprint) > maxRules || len(r.stack) > maxRules {
				return nil, &RuleError{part.field, k + 1, fmt.Sprintf("more than %d rules", maxRules)}
			}
		}
	}
	if len(r.fingerprint) == 0 && len(r.stack) == 0 {
		return nil, nil
	}
	return r, nil
}

// addFingerprint parses "matchers -> value, value… [title=\"…\"]".
func (r *Rules) addFingerprint(line string, _ int) error {
	s := scanner{s: line}
	ms, err := s.matchers(func(tok string) bool { return tok == "->" || !strings.Contains(tok, ":") })
	if err != nil {
		return err
	}
	if !s.take("->") {
		if s.done() {
			return fmt.Errorf("expected -> and a fingerprint after the matchers")
		}
		return fmt.Errorf("expected -> after the matchers, found %q", s.peek())
	}
	rule := fpRule{text: line, matchers: ms}
	for {
		s.space()
		if s.done() {
			break
		}
		if name, ok := s.attribute(); ok {
			if name != "title" {
				return fmt.Errorf("unknown attribute %q (only title)", name)
			}
			v, err := s.quoted()
			if err != nil {
				return err
			}
			if rule.title, err = templateValues(v); err != nil {
				return err
			}
			for i, t := range rule.title {
				if !t.variable {
					rule.title[i].text = titleEscapes.Replace(t.text)
				}
			}
			continue
		}
		if rule.title != nil {
			return fmt.Errorf("fingerprint values must come before title")
		}
		// Text running into a variable ("repo-{{ function }}") is two
		// values, "repo-" and the variable, as Sentry reads it.
		v, err := s.fpValue()
		if err != nil {
			return err
		}
		rule.values = append(rule.values, v)
		s.space()
		s.take(",")
	}
	if len(rule.values) == 0 {
		return fmt.Errorf("no fingerprint after ->")
	}
	r.fingerprint = append(r.fingerprint, rule)
	return nil
}

// addStack parses "matchers actions".
func (r *Rules) addStack(line string, _ int) error {
	s := scanner{s: line}
	ms, err := s.matchers(isActionToken)
	if err != nil {
		return err
	}
	rule := stackRule{text: line, matchers: ms}
	for {
		s.space()
		if s.done() {
			break
		}
		// After an action, "#" starts a comment, as Sentry's grammar
		// reads it ("-app # vendored", "-app#vendored"); the rule's text
		// is then the rule without it.
		at := s.i
		tok := s.word()
		if i := strings.IndexByte(tok, '#'); i >= 0 {
			rule.text = strings.TrimRight(line[:at+i], " \t")
			if tok = tok[:i]; tok == "" {
				break
			}
			s.i = len(s.s)
		}
		a, ok := parseAction(tok)
		if !ok {
			if strings.ContainsRune(tok, ':') {
				return fmt.Errorf("matcher %q after an action: matchers come first", tok)
			}
			return fmt.Errorf("unknown action %q (+app, -app, +group, -group, each optionally after ^ or v)", tok)
		}
		rule.actions = append(rule.actions, a)
	}
	if len(rule.actions) == 0 {
		return fmt.Errorf("no action (+app, -app, +group, -group)")
	}
	r.stack = append(r.stack, rule)
	return nil
}

// isActionToken reports whether tok ends the matchers of a stack trace
// rule: matchers have a colon, actions none.
func isActionToken(tok string) bool { return !strings.Contains(tok, ":") }

func parseAction(tok string) (action, bool) {
	var a action
	if tok != "" && (tok[0] == '^' || tok[0] == 'v') {
		a.rng, tok = tok[0], tok[1:]
	}
	if len(tok) < 2 || (tok[0] != '+' && tok[0] != '-') {
		return a, false
	}
	a.set = tok[0] == '+'
	switch tok[1:] {
	case "app":
	case "group":
		a.group = true
	default:
		return a, false
	}
	return a, true
}

// fpVariables are the variables a fingerprint or title may use, by every
// name they go by.
var fpVariables = map[string]string{
	"default": "default", "transaction": "transaction",
	"error.type": "error.type", "type": "error.type", "error.value": "error.value", "value": "error.value",
	"stack.function": "stack.function", "function": "stack.function", "stack.module": "stack.module", "module": "stack.module",
	"stack.abs_path": "stack.abs_path", "path": "stack.abs_path", "stack.filename": "stack.filename",
	"logger": "logger", "level": "level", "message": "message",
}

// variable canonicalises a variable's name; ok is false for an unknown one.
func variable(name string) (string, bool) {
	if strings.HasPrefix(name, "tags.") && len(name) > len("tags.") {
		return name, true
	}
	v, ok := fpVariables[name]
	return v, ok
}

// titleEscapes reads a title's literal text's escapes: \" a quote, \\ a
// backslash; any other backslash stays as written (C:\temp). They are read
// after its {{ variables }} are found, so that no title reads differently
// for them.
var titleEscapes = strings.NewReplacer(`\\`, `\`, `\"`, `"`)

// templateValues splits a title into literals and {{ variables }}.
func templateValues(s string) ([]fpValue, error) {
	out := []fpValue{}
	for s != "" {
		k := strings.Index(s, "{{")
		if k < 0 {
			out = append(out, fpValue{text: s})
			break
		}
		if k > 0 {
			out = append(out, fpValue{text: s[:k]})
		}
		end := strings.Index(s[k:], "}}")
		if end < 0 {
			return nil, fmt.Errorf("unclosed {{ in the title")
		}
		name, ok := variable(strings.TrimSpace(s[k+2 : k+end]))
		if !ok {
			return nil, fmt.Errorf("unknown variable %q", strings.TrimSpace(s[k+2:k+end]))
		}
		out = append(out, fpValue{text: name, variable: true})
		s = s[k+end+2:]
	}
	return out, nil
}
