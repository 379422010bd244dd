package grouping

import "strings"

// parseJS parses JavaScript stacks: V8 (Node.js, Chrome, Edge) with "[cause]:"
// and "Caused by:" chains, and the "name@url:line:col" form of Firefox and
// Safari. Node's uncaught-exception preamble (file:line, source, caret) is
// skipped.
//
//	TypeError: x is not a function
//	    at Object.<anonymous> (/app/src/a.js:10:15)
//	    at async Promise.all (index 0)
func parseJS(lines []string, a *algorithm) Stack {
	st := Stack{Language: "javascript"}
	header := true
	for k := 0; k < len(lines); k++ {
		l := lines[k]
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "at ") {
			// Node prints an error's own properties after its last frame: "… {".
			t = strings.TrimSuffix(t, " {")
		}
		if strings.HasPrefix(t, "at ") && atKind(t[3:], a) != "" {
			st.add(v8Frame(t[3:], a), k)
			header = false
			continue
		}
		if f, ok := parseFirefoxFrame(t, a); ok {
			st.add(f, k)
			header = false
			continue
		}
		cause, isCause := strings.CutPrefix(t, "[cause]: ")
		if !isCause {
			cause, isCause = strings.CutPrefix(t, "Caused by: ")
		}
		switch {
		case isCause:
			if typ, _, ok := jsHeader(cause); ok {
				st.Types = append(st.Types, typ)
			}
		case header && len(st.Types) == 0 && (len(t) == len(l) || a.wrappers && len(l)-len(t) <= 2):
			// The first unindented line that names an error type.
			if typ, msg, ok := jsHeader(t); ok {
				st.Types = append(st.Types, typ)
				st.Message = msg
				for k+1 < len(lines) && !isJSFrameLine(lines[k+1], a) && strings.TrimSpace(lines[k+1]) != "" {
					k++
					st.Message += "\n" + strings.TrimSpace(lines[k])
				}
			}
		}
	}
	return st
}

func isJSFrameLine(l string, a *algorithm) bool {
	t := strings.TrimSpace(l)
	if strings.HasPrefix(t, "at ") {
		return true
	}
	_, ok := parseFirefoxFrame(t, a)
	return ok
}

// jsHeader parses "[Uncaught ]TypeError: message". Error names are one word
// that starts with a capital ("TypeError", "AxiosError", "Error").
func jsHeader(t string) (typ, msg string, ok bool) {
	t = strings.TrimPrefix(t, "Uncaught ")
	typ, msg, ok = splitTypeMessage(t, "")
	if !ok || !isUpper(typ[0]) {
		return "", "", false
	}
	return typ, msg, true
}

// v8Frame parses "[async ][new ]fn [as alias] (location)" or "location".
func v8Frame(rest string, a *algorithm) Frame {
	fn, loc := "", rest
	if strings.HasSuffix(rest, ")") {
		if k := strings.LastIndex(rest, " ("); k >= 0 {
			fn, loc = rest[:k], rest[k+2:len(rest)-1]
		}
	}
	fn = strings.TrimPrefix(fn, "async ")
	fn = strings.TrimPrefix(fn, "new ")
	if k := strings.Index(fn, " [as "); k >= 0 {
		fn = fn[:k]
	}
	if k := strings.Index(loc, ", "); k >= 0 && strings.HasPrefix(loc, "eval at ") {
		loc = loc[k+2:] // "eval at f (file:1:2), <anonymous>:1:1"
	}
	path := stripLineCol(loc)
	core := a.nodeCore && nodeCoreFile(path) // Node before 16: "net.js"
	if a.wrappers && strings.HasPrefix(path, "node:") && !strings.HasSuffix(path, ".js") {
		// Node 16 renamed its internal modules: "net.js" became "node:net".
		path = path[len("node:"):] + ".js"
		core = a.nodeCore
	}
	f := Frame{Function: fn, Path: path}
	switch {
	case path == "native" || path == "<anonymous>" || strings.HasPrefix(path, "index "):
		f.File = path
	default:
		f.Module = jsModule(path, a)
		f.File = baseName(path)
		f.InApp = !core && jsInApp(path)
	}
	return f
}

// nodeCoreFile reports whether path is how Node before 16 named its own
// modules in a trace: a bare "net.js", "_http_client.js" or
// "events.js", with no directory.
func nodeCoreFile(path string) bool {
	name, ok := strings.CutSuffix(path, ".js")
	if !ok || strings.ContainsAny(name, "/\\:") {
		return false
	}
	return strings.HasPrefix(name, "_") || nodeModules[name]
}

// nodeModules are Node's built-in modules that a trace names by file.
var nodeModules = map[string]bool{
	"assert": true, "async_hooks": true, "buffer": true, "child_process": true, "cluster": true, "console": true,
	"crypto": true, "dgram": true, "dns": true, "domain": true, "events": true, "fs": true, "http": true,
	"http2": true, "https": true, "inspector": true, "module": true, "net": true, "os": true, "path": true,
	"perf_hooks": true, "process": true, "punycode": true, "querystring": true, "readline": true, "repl": true,
	"stream": true, "string_decoder": true, "timers": true, "tls": true, "tty": true, "url": true, "util": true,
	"v8": true, "vm": true, "worker_threads": true, "zlib": true,
}

// parseFirefoxFrame parses "fn@url:line:col", "@url:line:col" (anonymous)
// and Firefox's nested names "outer/inner/<@…", which become "outer/inner".
func parseFirefoxFrame(t string, a *algorithm) (Frame, bool) {
	at := strings.LastIndexByte(t, '@')
	if at < 0 || strings.ContainsAny(t[:at], " ()") && !strings.HasPrefix(t, "global code") {
		return Frame{}, false
	}
	loc := t[at+1:]
	path := stripLineCol(loc)
	// Firefox and Safari always give a line and a column.
	if len(path)+4 > len(loc) || strings.Count(loc[len(path):], ":") != 2 || path == "" || strings.ContainsAny(path, " ") {
		return Frame{}, false
	}
	fn := t[:at]
	for {
		trimmed := strings.TrimSuffix(strings.TrimSuffix(fn, "<"), "/")
		if trimmed == fn {
			break
		}
		fn = trimmed
	}
	return Frame{
		Module:   jsModule(path, a),
		Function: fn,
		File:     baseName(path),
		Path:     path,
		InApp:    jsInApp(path),
	}, true
}

// stripLineCol removes ":line:col" or ":line" from a location.
func stripLineCol(loc string) string {
	for n := 0; n < 2; n++ {
		k := strings.LastIndexByte(loc, ':')
		if k < 0 || k == len(loc)-1 || runOf(loc, k+1, len(loc), isDigit) != len(loc) {
			break
		}
		loc = loc[:k]
	}
	return loc
}

// JSInApp reports whether a JavaScript file is application code, as
// grouping judges a frame without an SDK's flag (symbolication asks it of
// the original files a source map names).
func JSInApp(path string) bool { return jsInApp(path) }

// jsInApp: dependencies (node_modules, vendor bundles), Node internals and
// bundler runtime are not application code.
func jsInApp(path string) bool {
	base := baseName(path)
	return !(strings.HasPrefix(path, "node:") || strings.HasPrefix(path, "internal/") ||
		strings.HasPrefix(base, "vendor") || strings.HasPrefix(base, "chunk-vendors") ||
		containsAny(path, jsNonApp))
}

var jsNonApp = []string{
	"node_modules", "<anonymous>", "webpack/bootstrap", "/usr/lib/", "[native code]", "/vendor/", "vendors~",
}
