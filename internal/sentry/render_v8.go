package sentry

import "strings"

// renderJS writes a V8 stack (Node.js, Chrome): the main error and its
// frames, newest call first, then each cause after "Caused by: ".
//
//	TypeError: x is not a function
//	    at handler (/app/src/a.js:10:15)
//	    at /app/src/b.js:3:1
func renderJS(t *trace, chain []excView, bare bool) {
	renderAtLines(t, chain, bare, jsFunction)
}

// renderGeneric writes platforms without a form of their own in the V8
// form, which grouping reads for any language: "at function (file:line)".
func renderGeneric(t *trace, chain []excView, bare bool) {
	renderAtLines(t, chain, bare, genericFunction)
}

func renderAtLines(t *trace, chain []excView, bare bool, name func(*frame) string) {
	for k := len(chain) - 1; k >= 0; k-- {
		e := &chain[k]
		causedBy(t, chain, k, bare)
		for j := len(e.frames) - 1; j >= 0; j-- {
			f := &e.frames[j]
			loc := framePath(f)
			if loc == "" {
				loc = oneLine(f.Package, maxNameBytes)
			}
			if loc == "" {
				loc = "<anonymous>"
			}
			if f.Lineno > 0 {
				loc += ":" + itoa(f.Lineno)
				if f.Colno > 0 {
					loc += ":" + itoa(f.Colno)
				}
			}
			fn := name(f)
			if fn == "" && f.Lineno == 0 && loc != "<anonymous>" {
				fn = "<anonymous>" // a bare location without a line would not read as a frame
			}
			if fn != "" {
				t.line("    at ", fn, " (", loc, ")")
			} else {
				t.line("    at ", loc)
			}
			t.frameDone(f)
		}
	}
}

// jsFunction is the function V8 prints. The SDK writes "?" for V8's
// "<anonymous>": "Object.?" is V8's "Object.<anonymous>" (a module's top
// level) and a bare "?" an anonymous function, which V8 prints as a bare
// location.
func jsFunction(f *frame) string {
	fn := frameFunction(f)
	switch {
	case fn == "?":
		return ""
	case strings.HasSuffix(fn, ".?"):
		return strings.TrimSuffix(fn, "?") + "<anonymous>"
	}
	return fn
}

// genericFunction qualifies a function by its module when the SDK sent it
// apart (Elixir "MyApp.Repo", "insert/2") and drops an argument list
// (C++ "ns::f(int) const"), which would not read as a V8 frame.
func genericFunction(f *frame) string {
	fn := jsFunction(f)
	if k := strings.IndexByte(fn, '('); k > 0 {
		fn = strings.TrimSpace(fn[:k])
	}
	fn = strings.ReplaceAll(fn, " (", " ")
	if mod := oneLine(f.Module, maxNameBytes); mod != "" && fn != "" && !strings.HasPrefix(fn, mod) {
		fn = mod + "." + fn
	}
	return fn
}
