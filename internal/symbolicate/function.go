package symbolicate

import (
	"regexp"
)

// Declarations that name the function a line belongs to, in JavaScript and
// TypeScript sources: function f(, f = function, f = (…) =>, f = x =>,
// and methods f(…) {.
var declarations = []*regexp.Regexp{
	regexp.MustCompile(`\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*[<(]`),
	regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)`),
	regexp.MustCompile(`^\s*(?:(?:public|private|protected|static|async|override)\s+)*([A-Za-z_$][\w$]*)\s*\([^()]*\)\s*(?::[^{]+)?\{`),
}

// keywords look like methods to the last pattern but are not.
var keywords = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "return": true, "function": true, "with": true}

// enclosingFunction finds the name of the function whose body holds line
// (1-based) and col (0-based, in bytes; col < 0 is the line's end) of
// lines: the nearest declaration at or above it, within 500 lines, whose
// body has not closed before that position. Code at the top level, after
// every function above it has closed, is in none ("").
func enclosingFunction(lines []string, line, col int) string {
	if line < 1 || line > len(lines) {
		return ""
	}
	to := line - 1
	if col < 0 || col > len(lines[to]) {
		col = len(lines[to])
	}
	for i := to; i >= 0 && i >= to-500; i-- {
		l := lines[i]
		for _, re := range declarations {
			m := re.FindStringSubmatchIndex(l)
			if m == nil || keywords[l[m[2]:m[3]]] || (i == to && m[0] >= col) {
				continue
			}
			if bodyOpen(lines, i, m[0], to, col) {
				return l[m[2]:m[3]]
			}
		}
	}
	return ""
}

// bodyOpen reports whether the body that a declaration at lines[from][at:]
// opens is still open at lines[to][:col]: its braces, outside strings,
// comments and its parameters' parentheses, have not closed again. A body
// without braces (x => x * 2) holds only its own line.
func bodyOpen(lines []string, from, at, to, col int) bool {
	depth, parens, opened := 0, 0, false
	var quote byte
	comment := false
	for i := from; i <= to; i++ {
		l := lines[i]
		start, end := 0, len(l)
		if i == from {
			start = at
		}
		if i == to {
			end = min(col, len(l))
		}
		for j := start; j < end; j++ {
			c := l[j]
			next := byte(0)
			if j+1 < len(l) {
				next = l[j+1]
			}
			switch {
			case comment:
				if c == '*' && next == '/' {
					comment = false
					j++
				}
			case quote != 0:
				if c == '\\' {
					j++
				} else if c == quote {
					quote = 0
				}
			case c == '/' && next == '/':
				j = end
			case c == '/' && next == '*':
				comment = true
				j++
			case c == '"' || c == '\'' || c == '`':
				quote = c
			case !opened && c == '(':
				parens++
			case !opened && c == ')':
				parens--
			case c == '{' && (opened || parens <= 0):
				depth++
				opened = true
			case c == '}' && opened:
				if depth--; depth <= 0 {
					return false
				}
			}
		}
		if quote != '`' {
			quote = 0 // only a template literal spans lines
		}
	}
	return opened || from == to
}

// functionName names a mapped frame's original function. A frame's
// position is a call, and the map's name there is the function called,
// not the one calling it: so a frame's name is the map's name at its
// caller's position (the frame after it in the trace, when that one was
// mapped too), as Sentry names them; else the declaration whose body holds
// the original position (from the map's sourcesContent); else the name
// the trace gave, minified as it may be.
func functionName(f, caller *mapped) string {
	if caller != nil && caller.callee != "" {
		return caller.callee
	}
	if fn := f.pm.function(f.source, f.Line, f.Column-1); fn != "" {
		return fn
	}
	return f.Raw.Function
}
