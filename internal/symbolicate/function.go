package symbolicate

import (
	"regexp"
	"strings"
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

// enclosingFunction finds the name of the function that line (1-based) of
// lines lies in: the nearest declaration at or above it, within 500 lines.
func enclosingFunction(lines []string, line int) string {
	for i := min(line, len(lines)) - 1; i >= 0 && i >= line-500; i-- {
		l := lines[i]
		if i == line-1 { // the line itself: only what comes before the error's position counts, roughly its start
			if j := strings.Index(l, "=>"); j < 0 && !strings.Contains(l, "function") {
				continue
			}
		}
		if !strings.Contains(l, "(") && !strings.Contains(l, "=>") {
			continue // every declaration has one or the other
		}
		for _, re := range declarations {
			if m := re.FindStringSubmatch(l); m != nil && !keywords[m[1]] {
				return m[1]
			}
		}
	}
	return ""
}
