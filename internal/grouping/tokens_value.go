package grouping

import "strings"

// Shapes that version 2 replaces in exception values (quoted strings and
// paths) and everywhere (generated ids). An exception value's type and
// frames already pin the place, so what remains in quotes or paths is data.

// quoteKinds are the quote characters a scan tracks: ", ' and `.
const quoteKinds = 3

// quoteKind is the index of quote character q in noQuote, or -1.
func quoteKind(q byte) int {
	switch q {
	case '"':
		return 0
	case '\'':
		return 1
	case '`':
		return 2
	}
	return -1
}

// matchValueShapes matches at i a quoted string (when p.quoted) or a path
// (when p.paths), where a word cannot continue: "'user_8812'",
// "\"/tmp/x\"", "/var/lib/x.db", "C:\\data\\x". noQuote remembers where an
// unterminated quote of each kind ends, which keeps the scan linear.
func matchValueShapes(s string, i int, p *paramRules, noQuote *[quoteKinds]int) (int, string) {
	if i > 0 && (isWord(s[i-1]) || s[i-1] == '\\' || s[i-1] == '/' || s[i-1] == '.') {
		return 0, "" // an apostrophe ("can't") or the middle of a token
	}
	c := s[i]
	if p.quoted {
		if kind := quoteKind(c); kind >= 0 {
			if i < noQuote[kind] {
				return 0, ""
			}
			for k := i + 1; k < len(s) && s[k] != '\n'; k++ {
				switch s[k] {
				case '\\':
					k++
				case c:
					if boundary(s, k+1) {
						return k + 1, phQuoted
					}
				}
			}
			noQuote[kind] = len(s)
			return 0, ""
		}
		if strings.HasPrefix(s[i:], "“") {
			if k := strings.Index(s[i:], "”"); k > 0 && strings.IndexByte(s[i:i+k], '\n') < 0 {
				return i + k + len("”"), phQuoted
			}
		}
	}
	if p.paths {
		if end := matchPath(s, i); end > 0 {
			return end, phPath
		}
	}
	return 0, ""
}

// matchPath matches an absolute path of two elements or more at i:
// "/tmp/x/abc.txt", "~/app/x", "C:\\Users\\x". It ends at a space, a quote,
// a comma, a closing bracket or a ':' followed by a space or a digit (a
// line number belongs to the place, and the place is data here too).
func matchPath(s string, i int) int {
	k := i
	switch {
	case s[k] == '/':
	case s[k] == '~' && k+1 < len(s) && s[k+1] == '/':
		k++
	case isLetter(s[k]) && k+2 < len(s) && s[k+1] == ':' && s[k+2] == '\\':
		k += 2
	default:
		return 0
	}
	seps := 0
	for ; k < len(s); k++ {
		c := s[k]
		if c == '/' || c == '\\' {
			seps++
			continue
		}
		if c <= ' ' || strings.IndexByte("\"'`,;()[]{}<>", c) >= 0 {
			break
		}
		if c == ':' && (k+1 >= len(s) || s[k+1] == ' ') {
			break
		}
	}
	for k > i && (s[k-1] == '.' || s[k-1] == ':') { // the sentence's punctuation
		k--
	}
	if seps < 2 || k-i < 3 {
		return 0
	}
	return k
}

// matchID matches a generated identifier, the word [i,j) when it is 16
// bytes or longer with at least three digits and three letters:
// "j63zfamesa90bn0ioew25nfxuvmu0nvz", "AKIAIOSFODNN7EXAMPLE123".
func matchID(s string, i, j int) int {
	if j-i < 16 {
		return 0
	}
	digits, letters := 0, 0
	for k := i; k < j; k++ {
		switch c := s[k]; {
		case isDigit(c):
			digits++
		case isLetter(c):
			letters++
		}
	}
	if digits < 3 || letters < 3 {
		return 0
	}
	return j
}

// sourceExts are the extensions of source files whose "file.ext:line" in a
// message names a place in code.
var sourceExts = map[string]bool{
	"rs": true, "go": true, "py": true, "js": true, "mjs": true, "ts": true, "java": true, "kt": true,
	"swift": true, "c": true, "cc": true, "cpp": true, "h": true, "hpp": true, "rb": true, "php": true,
	"cs": true, "ex": true, "exs": true, "erl": true, "scala": true, "m": true, "mm": true, "dart": true,
}

// afterSourceFile reports whether position i (a digit) follows
// "<name>.<source extension>:", as in "src/main.rs:319:101".
func afterSourceFile(s string, i int) bool {
	if i < 3 || s[i-1] != ':' {
		return false
	}
	k := i - 1
	for k > 0 && isLetter(s[k-1]) && i-1-k < 6 {
		k--
	}
	if k == i-1 || k < 2 || s[k-1] != '.' || !isWord(s[k-2]) {
		return false
	}
	return sourceExts[s[k:i-1]]
}

// messageKeys are the JSON keys under which structured loggers write the
// message (zerolog, zap, logrus, bunyan, pino).
var messageKeys = []string{`"message"`, `"msg"`}

// isMessageKey reports whether the ':' at colon ends one of messageKeys.
func isMessageKey(s string, colon int) bool {
	for _, k := range messageKeys {
		if colon >= len(k) && s[colon-len(k):colon] == k {
			return true
		}
	}
	return false
}

// matchAfterAssign matches a quoted value or a boolean right after '=' (or a
// quoted value right after ':', as in JSON).
func matchAfterAssign(s string, i int, assign bool, noQuote *[quoteKinds]int) (int, string) {
	n := len(s)
	if i >= n {
		return 0, ""
	}
	if q := s[i]; q == '"' || q == '\'' {
		kind := 0
		if q == '\'' {
			kind = 1
		}
		if i < noQuote[kind] {
			return 0, ""
		}
		k := i + 1
		for ; k < n && s[k] != '\n'; k++ {
			switch s[k] {
			case '\\':
				k++
			case q:
				return k + 1, phQuoted
			}
		}
		noQuote[kind] = k
		return 0, ""
	}
	if !assign || !isLetter(s[i]) {
		return 0, ""
	}
	j := wordEnd(s, i)
	switch s[i:j] {
	case "true", "false", "True", "False", "TRUE", "FALSE":
		return j, phBool
	}
	return 0, ""
}
