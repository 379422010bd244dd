package grouping

import "strings"

// Stack is what ParseStack finds in a stack trace.
type Stack struct {
	// Types are the exception types, primary (the one finally raised) first,
	// then its causes in the order the trace prints them.
	Types   []string
	Message string // the primary exception's message
	// RootMessage is the message of the last cause a JVM trace prints
	// ("Caused by: …", innermost), "" without causes.
	RootMessage string
	Frames      []Frame
	Language    string // "go", "java", "python", "javascript", "dotnet", "ruby", "php", "rust"; "" when unknown
	// Lines[k] is the line of the trace (counting from 0, split at "\n")
	// where Frames[k] starts, so that a reader can show frames in place.
	Lines []int
	// place is where a Rust panic happened ("src/main.rs:319:101"), which
	// tells apart the panics of a program printed without their backtrace.
	place string
}

// add appends frame f, which starts at line.
func (st *Stack) add(f Frame, line int) {
	st.Frames = append(st.Frames, f)
	st.Lines = append(st.Lines, line)
}

// Frame is one normalised stack frame: no line or column numbers, no
// addresses, no generated lambda or closure suffixes, and the file's base name.
type Frame struct {
	Module   string // package, class or type; for file-based languages "dir/file"
	Function string
	File     string // base name
	InApp    bool   // application code, not the standard library or a dependency
	// Path is the file's path or URL as the trace prints it (Java: the
	// file name), for grouping rules' stack.abs_path; never part of a
	// fingerprint.
	Path string
}

// key is what a frame contributes to a fingerprint: module (or file) and
// function only.
func (f Frame) key() string {
	m := f.Module
	if m == "" {
		m = f.File
	}
	return m + ":" + f.Function
}

// ParseStack parses a stack trace in any supported format (Go, Java/Kotlin,
// Python, JavaScript V8 and Firefox/Safari, .NET, Ruby, PHP) into frames plus
// the exception type(s) and message it names. Unknown text gives an empty Stack.
func ParseStack(s string) Stack {
	return parseStack(s, current)
}

// parseStack is ParseStack under algorithm a.
func parseStack(s string, a *algorithm) Stack {
	lines := splitLines(s)
	if a.linePrefix {
		if cut, ok := cutLinePrefix(lines); ok {
			lines, s = cut, strings.Join(cut, "\n")
		}
	}
	switch detect(s, lines, a) {
	case "python":
		return parsePython(lines, a)
	case "go":
		return parseGo(lines, a)
	case "php":
		return parsePHP(lines, a)
	case "ruby":
		return parseRuby(lines, a)
	case "java":
		return parseJava(lines, a)
	case "dotnet":
		return parseDotnet(lines, a)
	case "javascript":
		return parseJS(lines, a)
	case "rust":
		return parseRust(lines, a)
	}
	return Stack{}
}

// detect names the format of a trace from its most telling lines.
func detect(s string, lines []string, a *algorithm) string {
	switch {
	case strings.Contains(s, "Traceback (most recent call last)") ||
		(strings.Contains(s, "File \"") && strings.Contains(s, "\", line ")):
		return "python"
	case strings.Contains(s, ".go:") && (strings.Contains(s, "goroutine ") || strings.Contains(s, "\n\t/") ||
		a.goLoose && hasGoFrames(lines)):
		return "go"
	case strings.Contains(s, "\n#0 ") || strings.HasPrefix(s, "#0 "):
		return "php"
	case strings.Contains(s, ":in `") || strings.Contains(s, ":in '"):
		return "ruby"
	case a.rust && isRustPanic(s):
		return "rust"
	}
	for _, l := range lines {
		t := strings.TrimLeft(a.frameLine(l), " \t")
		if strings.HasPrefix(t, "at ") {
			if a.mono && monoLocation(t) >= 0 {
				return "dotnet" // Mono: "at T.M (Args) [0x00001] in <mvid>:0"
			}
			if kind := atKind(t[3:], a); kind != "" {
				return kind
			}
		}
	}
	for _, l := range lines {
		if _, ok := parseFirefoxFrame(l, a); ok {
			return "javascript"
		}
	}
	return ""
}

// atKind tells Java, .NET and V8 "at …" lines apart: V8 puts a space before
// "(" or has no parentheses; Java's parentheses hold a file and line (or
// "Native Method"); .NET's hold parameter lists and may end "in file:line N".
func atKind(rest string, a *algorithm) string {
	if strings.Contains(rest, ":line ") {
		return "dotnet"
	}
	open := strings.IndexByte(rest, '(')
	if open < 0 {
		if strings.Contains(rest, ":") || strings.Contains(rest, "<anonymous>") {
			return "javascript"
		}
		return ""
	}
	if open > 0 && rest[open-1] == ' ' {
		return "javascript"
	}
	if !strings.HasSuffix(rest, ")") {
		return ""
	}
	inner := rest[open+1 : len(rest)-1]
	switch {
	case inner == "Native Method" || inner == "<generated>" || strings.HasPrefix(inner, "Unknown Source"):
		return "java"
	case a.androidFiles && isAndroidFile(inner):
		return "java"
	case inner == "" || strings.ContainsAny(inner, " ,"):
		return "dotnet"
	case strings.Contains(inner, "."):
		return "java"
	}
	return ""
}

// splitLines splits s into lines without their "\r".
func splitLines(s string) []string {
	lines := strings.Split(s, "\n")
	for k, l := range lines {
		lines[k] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// baseName is the last element of a path or URL, without query, fragment or
// a build hash ("main.8f3a2b1c.js" → "main.js").
func baseName(p string) string {
	if k := strings.IndexAny(p, "?#"); k >= 0 {
		p = p[:k]
	}
	if k := strings.LastIndexAny(p, "/\\"); k >= 0 {
		p = p[k+1:]
	}
	return stripBuildHash(p)
}

// stripBuildHash drops hash-like segments from a file name: "app-3f2a1b9c.js"
// and "main.8f3a2b1c.chunk.js" lose them; "v2.py" keeps its digit.
func stripBuildHash(name string) string {
	if !strings.ContainsAny(name, "0123456789") {
		return name
	}
	segs := strings.Split(name, ".")
	out := segs[:0]
	for k, seg := range segs {
		if k > 0 && k < len(segs)-1 && isVariable(seg) {
			continue
		}
		if d := strings.LastIndexAny(seg, "-_"); d > 0 && isVariable(seg[d+1:]) {
			seg = seg[:d]
		}
		out = append(out, seg)
	}
	return strings.Join(out, ".")
}

// isVariable reports whether a path segment looks generated: a hash, a
// release number, a date.
func isVariable(seg string) bool {
	digits, hexOnly := 0, true
	for k := 0; k < len(seg); k++ {
		c := seg[k]
		if isDigit(c) {
			digits++
		} else if !isHexDigit(c) {
			hexOnly = false
		}
	}
	switch {
	case digits == 0:
		return false
	case hexOnly && len(seg) >= 6:
		return true
	case digits >= 4:
		return true
	}
	if strings.IndexByte(seg, '.') >= 0 && allDigitsDots(seg) { // "3.2.0"
		return true
	}
	return len(seg) > 1 && (seg[0] == 'v' || seg[0] == 'V') && allDigitsDots(seg[1:])
}

// isVersionedName reports whether a directory is a runtime or package name
// with its version, "python3.9", "ruby-2.7.0", "node-18.4": from version 2
// such directories are skipped like hashes, so that an upgrade of the
// runtime does not move every frame of the standard library.
func isVersionedName(seg string) bool {
	k := len(seg)
	for k > 0 && (isDigit(seg[k-1]) || seg[k-1] == '.') {
		k--
	}
	v := seg[k:]
	if k == 0 || k == len(seg) || strings.IndexByte(v, '.') < 0 || !isDigit(v[0]) {
		return false
	}
	name := strings.TrimRight(seg[:k], "-_v")
	for j := 0; j < len(name); j++ {
		if !isLetter(name[j]) {
			return false
		}
	}
	return name != ""
}

func allDigitsDots(s string) bool {
	for k := 0; k < len(s); k++ {
		if !isDigit(s[k]) && s[k] != '.' {
			return false
		}
	}
	return len(s) > 0
}

// stripURL turns "https://host/static/app.js" and "file:///app/x.mjs" into
// a path.
func stripURL(p string) string {
	k := strings.Index(p, "://")
	if k < 0 || k > 20 {
		return p
	}
	rest := p[k+3:]
	if strings.HasPrefix(p, "file:") {
		return rest
	}
	if slash := strings.IndexByte(rest, '/'); slash >= 0 {
		return rest[slash:]
	}
	return "/"
}

// fileModule names a file-based frame's module as "dir/file": the base name
// and the nearest directory that does not look generated, so that a frame
// keeps its identity across checkouts, release directories and machines.
func fileModule(p string, a *algorithm) string { return moduleOf(p, a, false) }

// jsModule is fileModule for a JavaScript frame, whose file a bundler may
// have named by a content hash (stripBundleHash, from version 7).
func jsModule(p string, a *algorithm) string { return moduleOf(p, a, a.bundleHashes) }

func moduleOf(p string, a *algorithm, bundled bool) string {
	p = stripURL(p)
	if k := strings.IndexAny(p, "?#"); k >= 0 {
		p = p[:k]
	}
	p = strings.ReplaceAll(p, "\\", "/")
	base := p
	dir := ""
	if k := strings.LastIndexByte(p, '/'); k >= 0 {
		base, dir = p[k+1:], p[:k]
	}
	if bundled {
		base = stripBundleHash(base)
	}
	base = stripBuildHash(base)
	if a.hashNames {
		base = hashName(base)
	}
	if a.numberedChunks && (dir == "chunks" || strings.HasSuffix(dir, "/chunks")) {
		if stem, ext, _ := strings.Cut(base, "."); stem != "" && runOf(stem, 0, len(stem), isDigit) == len(stem) {
			base = "<n>." + ext // a bundler's numbered chunk, renumbered by every build
		}
	}
	for dir != "" {
		k := strings.LastIndexByte(dir, '/')
		d := dir[k+1:]
		dir = dir[:max(k, 0)]
		if d != "" && d != "." && d != ".." && !isVariable(d) && !(a.wrappers && isVersionedName(d)) {
			return d + "/" + base
		}
	}
	return base
}

// hashName turns a file name whose stem is a long hash, "a0817…0805.php",
// into "<hash>.php".
func hashName(base string) string {
	stem, ext, _ := strings.Cut(base, ".")
	if len(stem) < 16 || !allHex(stem) {
		return base
	}
	if digits, letters := countHex(stem); digits == 0 || letters == 0 {
		return base
	}
	if ext == "" {
		return phHex
	}
	return phHex + "." + ext
}

// cutArgs removes a trailing parenthesised argument list: "f(0x1, {…})" → "f".
func cutArgs(s string) string {
	if !strings.HasSuffix(s, ")") {
		return s
	}
	depth := 0
	for k := len(s) - 1; k >= 0; k-- {
		switch s[k] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return s[:k]
			}
		}
	}
	return s
}

// stripDigitSuffix removes trailing decimal digits: "lambda$main$0" → "lambda$main$".
func stripDigitSuffix(s string) string {
	k := len(s)
	for k > 0 && isDigit(s[k-1]) {
		k--
	}
	return s[:k]
}

// hasAnyPrefix reports whether s starts with one of prefixes.
func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// containsAny reports whether s contains one of parts.
func containsAny(s string, parts []string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// splitTypeMessage splits "pkg.SomeError: message" when the part before ": "
// looks like a type name (no spaces) and returns ok=false otherwise.
func splitTypeMessage(line string, extra string) (typ, msg string, ok bool) {
	line = strings.TrimSpace(line)
	name := line
	if k := strings.Index(line, ": "); k >= 0 {
		name, msg = line[:k], strings.TrimSpace(line[k+2:])
	} else if strings.HasSuffix(line, ":") {
		name = line[:len(line)-1]
	}
	if name == "" || !isTypeName(name, extra) {
		return "", "", false
	}
	return name, msg, true
}

// isTypeName accepts identifiers joined by '.', '$' and the bytes in extra.
func isTypeName(name, extra string) bool {
	if !isLetter(name[0]) && name[0] != '_' && name[0] != '$' && strings.IndexByte(extra, name[0]) < 0 {
		return false
	}
	for k := 0; k < len(name); k++ {
		c := name[k]
		if !isWord(c) && c != '.' && c != '$' && strings.IndexByte(extra, c) < 0 {
			return false
		}
	}
	return true
}

// frameLine is line l without the decorations a logger adds after a JVM
// frame, from version 2: logback's packaging data ("… ~[classes/:na]",
// "… [spring-web-5.2.7.jar:5.2.7]"). Before, such frames went unread and
// a trace fell back to its (wrapper) message.
func (a *algorithm) frameLine(l string) string {
	if !a.wrappers || !strings.HasSuffix(l, "]") {
		return l
	}
	k := strings.LastIndex(l, ") ")
	if k < 0 {
		return l
	}
	tail := l[k+2:]
	if strings.HasPrefix(tail, "~[") || strings.HasPrefix(tail, "[") {
		return l[:k+1]
	}
	return l
}
