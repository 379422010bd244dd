package grouping

import (
	"fmt"
	"regexp"
	"strings"
)

// matcher is one "[!]key:argument" of a rule.
type matcher struct {
	key      string // canonical: error.type, error.value, message, logger, level, tags.<key>, family, app, stack.*
	neg      bool
	glob     *regexp.Regexp
	families []string // family
	app      bool     // app: yes
}

// frameLevel reports whether m looks at one frame (all of a rule's frame
// matchers must hold for the same frame).
func (m *matcher) frameLevel() bool {
	return m.key == "app" || strings.HasPrefix(m.key, "stack.")
}

// matcherKeys canonicalise every name a matcher goes by; the value says
// how its argument matches: 'c' a case-sensitive glob, 'i' a
// case-insensitive one, 'p' a case-insensitive path glob, 0 special.
var matcherKeys = map[string]struct {
	key  string
	kind byte
}{
	"error.type": {"error.type", 'c'}, "type": {"error.type", 'c'},
	"error.value": {"error.value", 'i'}, "value": {"error.value", 'i'},
	"message": {"message", 'i'}, "logger": {"logger", 'c'}, "level": {"level", 'i'},
	"stack.function": {"stack.function", 'c'}, "function": {"stack.function", 'c'},
	"stack.module": {"stack.module", 'c'}, "module": {"stack.module", 'c'},
	"stack.abs_path": {"stack.abs_path", 'p'}, "path": {"stack.abs_path", 'p'},
	"family": {"family", 0}, "app": {"app", 0},
}

// families are the values family takes.
var families = map[string]bool{"javascript": true, "native": true, "other": true, "all": true}

// scanner reads one rule line.
type scanner struct {
	s string
	i int
}

func (s *scanner) space() {
	for s.i < len(s.s) && (s.s[s.i] == ' ' || s.s[s.i] == '\t') {
		s.i++
	}
}

func (s *scanner) done() bool { return s.i >= len(s.s) }

// take consumes t when the line continues with it.
func (s *scanner) take(t string) bool {
	if strings.HasPrefix(s.s[s.i:], t) {
		s.i += len(t)
		return true
	}
	return false
}

// peek is the next run of non-space characters, not consumed.
func (s *scanner) peek() string {
	j := s.i
	for j < len(s.s) && s.s[j] != ' ' && s.s[j] != '\t' {
		j++
	}
	return s.s[s.i:j]
}

// word consumes the next run of non-space characters.
func (s *scanner) word() string {
	w := s.peek()
	s.i += len(w)
	return w
}

// quoted consumes a double-quoted string and returns what is between the
// quotes, backslash escapes kept (globs read them).
func (s *scanner) quoted() (string, error) {
	if !s.take(`"`) {
		return "", fmt.Errorf(`expected " at column %d`, s.i+1)
	}
	start := s.i
	for s.i < len(s.s) {
		switch s.s[s.i] {
		case '\\':
			s.i += 2
			continue
		case '"':
			v := s.s[start:s.i]
			s.i++
			return v, nil
		}
		s.i++
	}
	return "", fmt.Errorf(`unterminated " at column %d`, start)
}

// unescape drops the backslash of each escape.
func unescape(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for k := 0; k < len(v); k++ {
		if v[k] == '\\' && k+1 < len(v) {
			k++
		}
		b.WriteByte(v[k])
	}
	return b.String()
}

// attribute consumes `name=` before a quoted value.
func (s *scanner) attribute() (string, bool) {
	j := s.i
	for j < len(s.s) && (isWord(s.s[j]) || s.s[j] == '-') {
		j++
	}
	if j == s.i || j+1 >= len(s.s) || s.s[j] != '=' || s.s[j+1] != '"' {
		return "", false
	}
	name := s.s[s.i:j]
	s.i = j + 1
	return name, true
}

// fpValue consumes one fingerprint value: {{ variable }}, "quoted" or bare.
func (s *scanner) fpValue() (fpValue, error) {
	if s.take("{{") {
		end := strings.Index(s.s[s.i:], "}}")
		if end < 0 {
			return fpValue{}, fmt.Errorf("unclosed {{")
		}
		raw := strings.TrimSpace(s.s[s.i : s.i+end])
		s.i += end + 2
		name, ok := variable(raw)
		if !ok {
			return fpValue{}, fmt.Errorf("unknown variable {{ %s }}", raw)
		}
		return fpValue{text: name, variable: true}, nil
	}
	if strings.HasPrefix(s.s[s.i:], `"`) {
		v, err := s.quoted()
		return fpValue{text: unescape(v)}, err
	}
	j := s.i
	for j < len(s.s) && s.s[j] != ',' && s.s[j] != ' ' && s.s[j] != '\t' && !strings.HasPrefix(s.s[j:], "{{") {
		j++
	}
	if j == s.i {
		return fpValue{}, fmt.Errorf("empty fingerprint value at column %d", s.i+1)
	}
	v := s.s[s.i:j]
	s.i = j
	return fpValue{text: v}, nil
}

// matchers reads matchers until the line ends or stop accepts the next
// word; there must be at least one.
func (s *scanner) matchers(stop func(string) bool) ([]matcher, error) {
	var ms []matcher
	for {
		s.space()
		if !s.done() && (s.s[s.i] == '[' || s.s[s.i] == '|') {
			return nil, fmt.Errorf("caller and callee matchers ([ … ] |) are not supported")
		}
		if s.done() || stop(s.peek()) {
			break
		}
		m, err := s.matcher()
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("a rule starts with at least one matcher (key:value)")
	}
	return ms, nil
}

// matcher consumes "[!]key:argument" with a bare or quoted key and argument.
func (s *scanner) matcher() (matcher, error) {
	var m matcher
	m.neg = s.take("!")
	var name string
	if strings.HasPrefix(s.s[s.i:], `"`) {
		v, err := s.quoted()
		if err != nil {
			return m, err
		}
		name = v
	} else {
		j := s.i
		for j < len(s.s) && (isWord(s.s[j]) || s.s[j] == '.' || s.s[j] == '-') {
			j++
		}
		name = s.s[s.i:j]
		s.i = j
	}
	if !s.take(":") {
		return m, fmt.Errorf("expected key:value, found %q", name+s.peek())
	}
	var arg string
	if strings.HasPrefix(s.s[s.i:], `"`) {
		v, err := s.quoted()
		if err != nil {
			return m, err
		}
		arg = v
	} else {
		arg = s.word()
	}
	if arg == "" {
		return m, fmt.Errorf("%s: no value after the colon", name)
	}
	return m, m.compile(name, arg)
}

// compile sets the matcher's key and pattern from name and arg.
func (m *matcher) compile(name, arg string) error {
	kind := byte('c')
	if k, ok := matcherKeys[name]; ok {
		m.key, kind = k.key, k.kind
	} else if strings.HasPrefix(name, "tags.") && len(name) > len("tags.") {
		m.key = name
	} else {
		return fmt.Errorf("unknown matcher %q (error.type, error.value, message, logger, level, tags.<key>, "+
			"stack.function, stack.module, stack.abs_path, family, app)", name)
	}
	switch m.key {
	case "family":
		for _, f := range strings.Split(unescape(arg), ",") {
			f = strings.TrimSpace(f)
			if !families[f] {
				return fmt.Errorf("family %q: javascript, native, other or all", f)
			}
			m.families = append(m.families, f)
		}
		return nil
	case "app":
		switch strings.ToLower(unescape(arg)) {
		case "yes", "true", "1":
			m.app = true
		case "no", "false", "0":
		default:
			return fmt.Errorf("app:%s: yes or no", arg)
		}
		return nil
	}
	re, err := compileGlob(arg, kind == 'p', kind != 'c')
	if err != nil {
		return fmt.Errorf("%s:%s: %v", name, arg, err)
	}
	m.glob = re
	return nil
}

// compileGlob turns a glob into an anchored regular expression: '*' any
// run (within a path segment for path globs, where '**' crosses them and
// a leading "**/" also matches a relative path), '?' one character,
// "[…]" a class ("[!…]" negated), a backslash escapes.
func compileGlob(g string, path, fold bool) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^(?s)")
	if fold {
		b.WriteString("(?i)")
	}
	for k := 0; k < len(g); k++ {
		c := g[k]
		switch {
		case c == '\\' && k+1 < len(g):
			k++
			b.WriteString(regexp.QuoteMeta(g[k : k+1]))
		case c == '*' && path && k+1 < len(g) && g[k+1] == '*':
			k++
			if k+1 < len(g) && g[k+1] == '/' {
				k++
				b.WriteString("(?:.*/)?")
			} else {
				b.WriteString(".*")
			}
		case c == '*' && path:
			b.WriteString("[^/]*")
		case c == '*':
			b.WriteString(".*")
		case c == '?' && path:
			b.WriteString("[^/]")
		case c == '?':
			b.WriteString(".")
		case c == '[':
			end := classEnd(g, k)
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(globClass(g[k+1 : end]))
			k = end
		default:
			b.WriteString(regexp.QuoteMeta(g[k : k+1]))
		}
	}
	b.WriteByte('$')
	return regexp.Compile(b.String())
}

// classEnd is the index of the ']' closing the class opened at g[k], or -1.
func classEnd(g string, k int) int {
	j := k + 1
	if j < len(g) && (g[j] == '!' || g[j] == '^') {
		j++
	}
	if j < len(g) && g[j] == ']' {
		j++
	}
	for ; j < len(g); j++ {
		if g[j] == ']' {
			return j
		}
	}
	return -1
}

// globClass writes a glob class body as a regular expression class.
func globClass(body string) string {
	var b strings.Builder
	b.WriteByte('[')
	if body != "" && (body[0] == '!' || body[0] == '^') {
		b.WriteByte('^')
		body = body[1:]
	}
	for k := 0; k < len(body); k++ {
		c := body[k]
		if c == '-' && k > 0 && k < len(body)-1 {
			b.WriteByte('-')
			continue
		}
		b.WriteString(regexp.QuoteMeta(body[k : k+1]))
	}
	b.WriteByte(']')
	return b.String()
}
