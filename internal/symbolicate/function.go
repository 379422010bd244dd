package symbolicate

import (
	"regexp"
	"slices"
	"strings"
)

// Declarations that name the function a line belongs to, in JavaScript and
// TypeScript sources: function f(, const f: T = …, f = function,
// f = (…) =>, f = x =>, properties { f: (…) => (not the branches of a
// ?: expression), and methods f(…) {.
var declarations = []*regexp.Regexp{
	regexp.MustCompile(`\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*[<(]`),
	regexp.MustCompile(`\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*:[^=]*=\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)`),
	regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)`),
	regexp.MustCompile(`(?:^|[{,(])\s*([A-Za-z_$][\w$]*)\s*:\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)`),
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
		if !strings.ContainsAny(l, "(=") {
			continue // every declaration has one or the other
		}
		// The line's declarations, the rightmost first: the innermost of
		// those on one line ({ go: () => run(), stop: function () {…} }).
		var found [][]int
		for _, re := range declarations {
			for _, m := range re.FindAllStringSubmatchIndex(l, -1) {
				if !keywords[l[m[2]:m[3]]] && (i != to || m[2] < col) {
					found = append(found, m)
				}
			}
		}
		// A name inside another declaration's match is part of it: the
		// type of "const f: Handler = () =>" is not a function.
		var outer [][]int
		for _, m := range found {
			if !slices.ContainsFunc(found, func(o []int) bool { return o[2] != m[2] && o[0] <= m[2] && m[2] < o[1] }) {
				outer = append(outer, m)
			}
		}
		slices.SortFunc(outer, func(a, b []int) int { return b[2] - a[2] })
		for _, m := range outer {
			if bodyOpen(lines, i, m[2], to, col) {
				return l[m[2]:m[3]]
			}
		}
	}
	return ""
}

// bodyOpen reports whether the body that a declaration at lines[from][at:]
// opens is still open at lines[to][:col]: its braces, outside strings,
// comments and its parameters' parentheses, have not closed again. A body
// without braces (x => x * 2) holds its own line up to a ";", and the
// lines after a declaration line that ends with "=>" while they are
// indented deeper than it.
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
			case c == ';' && !opened && parens <= 0:
				return false // a statement without a braced body ended
			}
		}
		if quote != '`' {
			quote = 0 // only a template literal spans lines
		}
	}
	return opened || from == to || arrowBody(lines, from, to)
}

// arrowBody reports whether lines[from+1 : to+1] are the body of an arrow
// function whose declaration line, lines[from], ends with "=>": each
// deeper indented than it (or blank).
func arrowBody(lines []string, from, to int) bool {
	if !strings.HasSuffix(strings.TrimSpace(lines[from]), "=>") {
		return false
	}
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }
	base := indent(lines[from])
	for _, l := range lines[from+1 : to+1] {
		if strings.TrimSpace(l) != "" && indent(l) <= base {
			return false
		}
	}
	return true
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
