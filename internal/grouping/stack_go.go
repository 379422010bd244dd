package grouping

import "strings"

const (
	goFatal   = "fatal error"
	goPanic   = "panic"
	goRuntime = "runtime.Error"
)

// parseGo parses a Go panic or runtime/debug.Stack() output. Only the first
// goroutine counts: it is the one that panicked or called Stack.
//
//	panic: runtime error: index out of range [5] with length 3
//
//	goroutine 1 [running]:
//	main.(*Server).handle(0xc000010000, {0x4d2f60, 0xc00001c030})
//		/home/u/app/server.go:42 +0x1d
func parseGo(lines []string, a *algorithm) Stack {
	st := Stack{Language: "go"}
	k := 0
	for ; k < len(lines); k++ {
		l := lines[k]
		if isGoroutineHeader(l, a) {
			break
		}
		if st.Message == "" && a.wrappers {
			if v, ok := goLoggedPanic(l); ok {
				st.Message = goPanicValue(v)
				st.Types = []string{goPanicType(st.Message)}
				continue
			}
		}
		if st.Message == "" {
			switch {
			case strings.HasPrefix(l, "panic: "):
				st.Message = goPanicValue(l[len("panic: "):])
				st.Types = []string{goPanicType(st.Message)}
			case strings.HasPrefix(l, "fatal error: "):
				st.Message = l[len("fatal error: "):]
				st.Types = []string{goFatal}
			}
		}
	}
	headless := false
	if k == len(lines) && a.goLoose {
		// No "goroutine N [running]:" line (a logger printed the frames
		// alone): the frames are the pairs of a call and its location.
		k, headless = -1, true
	}
	for k++; k+1 < len(lines); k++ {
		fn := lines[k]
		if a.goLoose {
			fn = strings.TrimSpace(fn)
		}
		if fn == "" && headless && len(st.Frames) == 0 {
			continue
		}
		if fn == "" || strings.HasPrefix(fn, "goroutine ") {
			break
		}
		loc := lines[k+1]
		if !strings.HasPrefix(loc, "\t") && !(a.goLoose && isGoLocation(loc)) {
			continue // "...additional frames elided..."
		}
		k++
		if strings.HasPrefix(fn, "created by ") {
			continue
		}
		st.add(goFrame(fn, strings.TrimSpace(loc)), k-1)
	}
	return st
}

// isGoroutineHeader reports whether l is "goroutine 1 [running]:", from
// version 2 also when indented.
func isGoroutineHeader(l string, a *algorithm) bool {
	if a.goLoose {
		l = strings.TrimSpace(l)
	}
	return strings.HasPrefix(l, "goroutine ") && strings.HasSuffix(l, "]:")
}

// isGoLocation reports whether l, whatever its indentation, is the location
// line of a Go frame: "/src/app/main.go:42 +0x1d", "main.go:42",
// "C:/Go/src/runtime/panic.go:1116 +0x79 fp=0xc0… sp=0xc0… pc=0x43b579",
// "/usr/lib/go/src/pkg/runtime/panic.c:266 +0xb6".
func isGoLocation(l string) bool {
	t := strings.TrimSpace(l)
	if k := strings.Index(t, " fp="); k >= 0 {
		t = t[:k]
	}
	if k := strings.LastIndex(t, " +0x"); k >= 0 {
		t = t[:k]
	}
	colon := strings.LastIndexByte(t, ':')
	if colon < 0 || colon == len(t)-1 {
		return false
	}
	for k := colon + 1; k < len(t); k++ {
		if !isDigit(t[k]) {
			return false
		}
	}
	file := t[:colon]
	return strings.HasSuffix(file, ".go") || strings.HasSuffix(file, ".s") || strings.HasSuffix(file, ".c")
}

// hasGoFrames reports whether lines hold a Go frame: a call followed by its
// location. It finds traces printed without their goroutine header.
func hasGoFrames(lines []string) bool {
	for k := 1; k < len(lines); k++ {
		if strings.HasSuffix(strings.TrimSpace(lines[k-1]), ")") && isGoLocation(lines[k]) {
			return true
		}
	}
	return false
}

// goLoggedPanic finds the panic value in the lines that log a recovered
// panic, from version 2: net/http's "2020/02/13 19:41:05 http: panic serving
// [::1]:60825: <value>", a logger's "… panic: <value>", negroni's "PANIC:
// <value>" and a bare "runtime error: …".
func goLoggedPanic(l string) (string, bool) {
	if k := strings.Index(l, "http: panic serving "); k >= 0 {
		rest := l[k+len("http: panic serving "):]
		if j := strings.Index(rest, ": "); j >= 0 {
			return rest[j+2:], true
		}
		return "", false
	}
	for _, p := range []string{"panic: ", "PANIC: "} {
		if k := strings.Index(l, p); k > 0 && l[k-1] == ' ' {
			return l[k+len(p):], true
		}
		if strings.HasPrefix(l, "PANIC: ") {
			return l[len("PANIC: "):], true
		}
	}
	if strings.HasPrefix(l, "runtime error: ") {
		return l, true
	}
	return "", false
}

// goPanicValue drops the " [recovered]" marks Go adds to a re-panic.
func goPanicValue(v string) string {
	if k := strings.Index(v, " [recovered"); k >= 0 && strings.HasSuffix(v, "]") {
		v = v[:k]
	}
	return strings.TrimSpace(v)
}

// goPanicType guesses a type from a panic value. The text rarely names it:
// runtime errors become "runtime.Error(<kind>)" so an index error and a nil
// dereference on one line stay apart; "(main.T) 0xc000…" names its type;
// anything else is a plain "panic".
func goPanicType(v string) string {
	if rest, ok := strings.CutPrefix(v, "runtime error: "); ok {
		kind := rest
		if k := strings.IndexAny(kind, "[0123456789:"); k >= 0 {
			kind = kind[:k]
		}
		kind = strings.TrimSuffix(strings.TrimSpace(kind), " with")
		return goRuntime + "(" + kind + ")"
	}
	if strings.HasPrefix(v, "(") {
		if k := strings.IndexByte(v, ')'); k > 1 && !strings.Contains(v[1:k], " ") {
			return v[1:k]
		}
	}
	return goPanic
}

// goFrame parses "pkg/path.(*T).m.func1(0x…)" and "\t/path/file.go:12 +0x1d".
func goFrame(fn, loc string) Frame {
	name := cutArgs(strings.TrimSpace(fn))
	pkg, function := "", name
	slash := strings.LastIndexByte(name, '/')
	if dot := strings.IndexByte(name[slash+1:], '.'); dot >= 0 {
		pkg, function = name[:slash+1+dot], name[slash+1+dot+1:]
	}
	file := loc
	if k := strings.LastIndex(file, " +0x"); k >= 0 {
		file = file[:k]
	}
	if k := strings.LastIndexByte(file, ':'); k > 1 { // keep "C:" of a Windows path
		file = file[:k]
	}
	return Frame{
		Module:   pkg,
		Function: goFunction(function),
		File:     baseName(file),
		Path:     file,
		InApp:    goInApp(pkg, file),
	}
}

// goFunction strips generic instantiation and the compiler's closure names:
// "Map[...]" → "Map", "main.func1.2" → "main", "Run.gowrap1" → "Run".
func goFunction(f string) string {
	f = strings.ReplaceAll(f, "[...]", "")
	for {
		k := strings.LastIndexByte(f, '.')
		if k < 0 {
			return f
		}
		last := f[k+1:]
		trimmed := stripDigitSuffix(last)
		if len(trimmed) == len(last) {
			return f
		}
		switch trimmed {
		case "", "func", "gowrap", "deferwrap":
			f = f[:k]
		default:
			return f
		}
	}
}

// goStd are the first path elements of the standard library.
var goStd = map[string]bool{
	"archive": true, "bufio": true, "builtin": true, "bytes": true, "cmp": true, "compress": true,
	"container": true, "context": true, "crypto": true, "database": true, "debug": true,
	"embed": true, "encoding": true, "errors": true, "expvar": true, "flag": true, "fmt": true,
	"go": true, "hash": true, "html": true, "image": true, "index": true, "internal": true,
	"io": true, "iter": true, "log": true, "maps": true, "math": true, "mime": true, "net": true,
	"os": true, "path": true, "plugin": true, "reflect": true, "regexp": true, "runtime": true,
	"slices": true, "sort": true, "strconv": true, "strings": true, "structs": true, "sync": true,
	"syscall": true, "testing": true, "text": true, "time": true, "unicode": true, "unique": true,
	"unsafe": true, "vendor": true, "weak": true,
}

// goInApp: the standard library (no dot in the first path element), module
// caches and vendor directories are not application code; "main" and module
// paths such as "github.com/acme/app" are. A dot-less module path that is not
// a standard package ("myapp/store") counts as application code.
func goInApp(pkg, file string) bool {
	if pkg == "" || strings.Contains(file, "/pkg/mod/") || strings.Contains(file, "/vendor/") {
		return false
	}
	first := pkg
	if k := strings.IndexByte(pkg, '/'); k >= 0 {
		first = pkg[:k]
	}
	if strings.Contains(first, ".") || first == "main" {
		return true
	}
	return !goStd[first]
}
