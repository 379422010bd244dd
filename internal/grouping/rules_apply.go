package grouping

import (
	"slices"
	"strings"
)

// facts is what rules match an event against.
type facts struct {
	st      *Stack
	message string // the formatted message
	level   string
	attrs   map[string]string
}

// newFacts collects the facts of in, whose trace parsed into st.
func newFacts(in Input, st *Stack) *facts {
	return &facts{st: st, message: in.Message, level: in.Level, attrs: in.Attributes}
}

// types are the exception types of the trace, primary first; without a
// parsed one, OpenTelemetry's attribute exception.type.
func (ev *facts) types() []string {
	if len(ev.st.Types) > 0 {
		return ev.st.Types
	}
	if t := ev.attrs["exception.type"]; t != "" {
		return []string{t}
	}
	return nil
}

// value is the primary exception's message, first line (OpenTelemetry's
// exception.message when the trace names no type).
func (ev *facts) value() string {
	m := ev.st.Message
	if len(ev.st.Types) == 0 {
		m = ev.attrs["exception.message"]
	}
	v, _, _ := strings.Cut(m, "\n")
	return strings.TrimSpace(v)
}

// groupValue is the exception value the default fingerprint takes (and
// its error.value component shows): in a JVM chain the root cause's ("Caused
// by: …", innermost), else the primary exception's.
func (ev *facts) groupValue() string {
	if ev.st.Language == "java" && len(ev.st.Types) > 1 && ev.st.RootMessage != "" {
		v, _, _ := strings.Cut(ev.st.RootMessage, "\n")
		return strings.TrimSpace(v)
	}
	return ev.value()
}

// logger is the logger's name: Sentry's logger, a logger.name attribute or
// OTLP's instrumentation scope.
func (ev *facts) logger() string {
	for _, k := range []string{"logger", "logger.name", "otel.scope.name"} {
		if v := ev.attrs[k]; v != "" {
			return v
		}
	}
	return ""
}

// tag is tags.<key>: a Sentry event's tag, else the attribute <key>
// (CONTRACT 8).
func (ev *facts) tag(key string) (string, bool) {
	if v, ok := ev.attrs["tags."+key]; ok {
		return v, true
	}
	v, ok := ev.attrs[key]
	return v, ok
}

// family is javascript, native or other, as Sentry names platforms. The
// platform a Sentry SDK named wins over the language the trace reads as (a
// native frame printed "at main (/src/main.c:4)" reads as JavaScript).
func (ev *facts) family() string {
	switch p := ev.attrs["platform"]; {
	case p == "native" || p == "cocoa" || p == "c" || p == "cpp" || p == "objc" || p == "swift" || p == "rust":
		return "native"
	case p == "javascript" || p == "node":
		return "javascript"
	case p != "":
		return "other"
	case ev.st.Language == "javascript":
		return "javascript"
	}
	return "other"
}

// matchEvent reports whether an event-level matcher holds.
func (m *matcher) matchEvent(ev *facts) bool {
	hit := false
	switch {
	case m.key == "error.type":
		for _, t := range ev.types() {
			if m.glob.MatchString(t) || m.glob.MatchString(bareType(t)) {
				hit = true
				break
			}
		}
	case m.key == "error.value":
		hit = len(ev.types()) > 0 && (m.glob.MatchString(ev.value()) || m.glob.MatchString(ev.groupValue()))
	case m.key == "message":
		// A Sentry log message beside an exception is kept as sentry.message.
		hit = m.glob.MatchString(ev.message) || m.glob.MatchString(ev.value()) ||
			ev.attrs["sentry.message"] != "" && m.glob.MatchString(ev.attrs["sentry.message"])
	case m.key == "logger":
		hit = m.glob.MatchString(ev.logger())
	case m.key == "level":
		// Sentry says "warning" where Errata says "warn".
		hit = m.glob.MatchString(ev.level) || ev.level == "warn" && m.glob.MatchString("warning")
	case m.key == "family":
		hit = slices.Contains(m.families, "all") || slices.Contains(m.families, ev.family())
	default: // tags.<key>
		v, ok := ev.tag(m.key[len("tags."):])
		hit = ok && m.glob.MatchString(v)
	}
	return hit != m.neg
}

// matchFrame reports whether a frame-level matcher holds for f.
func (m *matcher) matchFrame(f *Frame, lang string) bool {
	hit := false
	switch m.key {
	case "app":
		hit = f.InApp == m.app
	case "stack.function":
		hit = m.glob.MatchString(f.Function)
	case "stack.module":
		for _, name := range moduleNames(f, lang) {
			if m.glob.MatchString(name) {
				hit = true
				break
			}
		}
	case "stack.abs_path":
		// The path, its file name as printed (main.3f9a1c.js), or the
		// name grouping reads (main.js).
		p := normalPath(f.Path)
		name := p[strings.LastIndexByte(p, '/')+1:]
		hit = p != "" && (m.glob.MatchString(p) || m.glob.MatchString(name)) || f.File != "" && m.glob.MatchString(f.File)
	}
	return hit != m.neg
}

// bareType is a type's name without its package or module:
// "app.jobs.LedgerError" → "LedgerError".
func bareType(t string) string {
	if k := strings.LastIndexAny(t, `.\:$`); k >= 0 && k < len(t)-1 {
		return t[k+1:]
	}
	return t
}

// normalPath is a frame's path with '/' separators and no URL origin.
func normalPath(p string) string {
	return strings.ReplaceAll(stripURL(p), `\`, "/")
}

// ModuleName is a frame's module as its language names it (CONTRACT 8,
// stack.module): for Python the dotted module (app.jobs for app/jobs.py,
// the package path below site-packages), else the module grouping reads.
func ModuleName(f *Frame, lang string) string {
	if lang != "python" {
		return f.Module
	}
	if m, ok := installedModule(pythonPath(normalPath(f.Path))); ok {
		return m
	}
	return strings.ReplaceAll(pythonPath(f.Module), "/", ".")
}

// pythonPath is a Python file's path without .py, and a package's
// without its /__init__.py.
func pythonPath(p string) string {
	return strings.TrimSuffix(strings.TrimSuffix(p, ".py"), "/__init__")
}

// installedModule is the dotted module of a path (pythonPath) below
// site-packages or dist-packages, and whether it is one.
func installedModule(p string) (string, bool) {
	for _, root := range []string{"site-packages/", "dist-packages/"} {
		if k := strings.LastIndex(p, root); k >= 0 {
			return strings.ReplaceAll(p[k+len(root):], "/", "."), true
		}
	}
	return "", false
}

// moduleNames are the names a frame's module goes by, as its language names
// modules (CONTRACT 8): Java's class, Go's package, .NET's type; Python's
// dotted module, read from the path (the part after site-packages, else
// every dotted tail of the path: "/srv/app/jobs.py" is srv.app.jobs,
// app.jobs and jobs); JavaScript's, Ruby's and PHP's file path.
func moduleNames(f *Frame, lang string) []string {
	names := []string{f.Module}
	p := normalPath(f.Path)
	switch lang {
	case "python":
		p = pythonPath(p)
		if m, ok := installedModule(p); ok {
			return append(names, m)
		}
		segs := strings.Split(strings.Trim(p, "/"), "/")
		for k := range segs {
			names = append(names, strings.Join(segs[k:], "."))
		}
	case "javascript", "ruby", "php":
		if p != "" {
			names = append(names, p)
		}
	}
	return names
}

// frameMatch reports whether rule matchers ms hold for frame k.
func frameMatch(ms []matcher, st *Stack, k int) bool {
	for i := range ms {
		if ms[i].frameLevel() && !ms[i].matchFrame(&st.Frames[k], st.Language) {
			return false
		}
	}
	return true
}

// eventMatch reports whether the event-level matchers of ms hold, and
// whether ms has frame-level ones.
func eventMatch(ms []matcher, ev *facts) (ok, frames bool) {
	for i := range ms {
		if ms[i].frameLevel() {
			frames = true
			continue
		}
		if !ms[i].matchEvent(ev) {
			return false, frames
		}
	}
	return true, frames
}

// applyStack runs the stack trace rules over the frames of ev, top to
// bottom: in-app flags change in place, skip[k] takes frame k out of the
// fingerprint. It returns the rules that changed something.
func (r *Rules) applyStack(ev *facts, skip []bool) []string {
	st := ev.st
	var applied []string
	for _, rule := range r.stack {
		ok, _ := eventMatch(rule.matchers, ev)
		if !ok {
			continue
		}
		hit := false
		for k := range st.Frames {
			if !frameMatch(rule.matchers, st, k) {
				continue
			}
			hit = true
			for _, a := range rule.actions {
				for _, j := range actionFrames(a.rng, k, len(st.Frames), outermostFirst(st)) {
					if a.group {
						skip[j] = !a.set
					} else {
						st.Frames[j].InApp = a.set
					}
				}
			}
		}
		if hit {
			applied = append(applied, rule.text)
		}
	}
	return applied
}

// actionFrames are the frames an action on frame k of n changes: k itself,
// or those toward the crash ('^') or away from it ('v').
func actionFrames(rng byte, k, n int, outerFirst bool) []int {
	if rng == 0 {
		return []int{k}
	}
	towardCrash := rng == '^'
	var out []int
	for j := 0; j < n; j++ {
		if j == k {
			continue
		}
		// Innermost first: the crash is at index 0.
		if (j < k) == (towardCrash != outerFirst) {
			out = append(out, j)
		}
	}
	return out
}

// outermostFirst reports whether st lists its frames outermost call first,
// as Python prints them; every other language prints the innermost first.
func outermostFirst(st *Stack) bool { return st.Language == "python" }

// matchFingerprint returns the first fingerprint rule that matches ev.
func (r *Rules) matchFingerprint(ev *facts) *fpRule {
	for i := range r.fingerprint {
		rule := &r.fingerprint[i]
		ok, frames := eventMatch(rule.matchers, ev)
		if !ok {
			continue
		}
		if !frames {
			return rule
		}
		for k := range ev.st.Frames {
			if frameMatch(rule.matchers, ev.st, k) {
				return rule
			}
		}
	}
	return nil
}

// expand fills in a rule's variables; def is the default fingerprint (or
// title) and crash the culprit frame (nil when none).
func (ev *facts) expand(v fpValue, def string, crash *Frame) string {
	if !v.variable {
		return v.text
	}
	switch v.text {
	case "default":
		return def
	case "transaction":
		return ev.attrs["transaction"]
	case "error.type":
		if ts := ev.types(); len(ts) > 0 {
			return ts[0]
		}
		return ""
	case "error.value":
		return ev.groupValue()
	case "logger":
		return ev.logger()
	case "level":
		return ev.level
	case "message":
		return ev.message
	}
	if t, ok := strings.CutPrefix(v.text, "tags."); ok {
		s, _ := ev.tag(t)
		return s
	}
	if crash == nil {
		return ""
	}
	switch v.text {
	case "stack.function":
		return crash.Function
	case "stack.module":
		return ModuleName(crash, ev.st.Language) // "app/jobs.py" → "app.jobs"
	case "stack.abs_path":
		return crash.Path
	}
	return crash.File // stack.filename
}

// culpritIndex is the innermost in-app frame (where the error was raised),
// whatever order the language prints frames in; -1 when none is in-app.
func culpritIndex(st *Stack) int {
	n := len(st.Frames)
	from := 0
	if st.Language == "go" {
		// Go prints the functions deferred while panicking above the
		// runtime's panic frame: the panic was raised below it.
		for i := n - 1; i >= 0; i-- {
			if f := st.Frames[i]; f.Function == "panic" && (f.Module == "" || f.Module == "runtime") && strings.HasSuffix(f.Path, "runtime/panic.go") {
				if slices.ContainsFunc(st.Frames[i+1:], func(f Frame) bool { return f.InApp }) {
					from = i + 1
				}
				break
			}
		}
	}
	for i := from; i < n; i++ {
		k := i
		if outermostFirst(st) {
			k = n - 1 - i
		}
		if st.Frames[k].InApp {
			return k
		}
	}
	return -1
}

// innermostIndex is the innermost frame (the last one printed, or the
// first where the language prints the outermost first); st has frames.
func innermostIndex(st *Stack) int {
	if outermostFirst(st) {
		return len(st.Frames) - 1
	}
	return 0
}

// culpritName names a frame as groups show it: "app/pay.py in charge",
// "com.acme.Billing.charge", "shop::orders::ship", `App\Order::ship`, or the
// file.
func culpritName(f Frame, language string) string {
	switch {
	case (strings.Contains(f.Module, "/") || f.Module == f.File && f.File != "") && f.Function != "":
		return f.Module + " in " + f.Function
	case (language == "rust" || language == "php") && f.Module != "" && f.Function != "":
		// Rust's path; a PHP class, whose methods PHP names Class::method.
		return f.Module + "::" + f.Function
	case f.Module != "" && f.Function != "":
		// A JVM class whose generated number was cut ("SyncWorker$doWork$2"
		// reads "SyncWorker$doWork$") is shown without the bare "$".
		return strings.TrimRight(f.Module, "$") + "." + f.Function
	case f.File != "" && f.Function != "":
		return f.File + " in " + f.Function
	case strings.Contains(f.Module, "/"):
		// An anonymous function (a callback, a top-level arrow): its
		// module path, as a named one's culprit shows it ("js/app.js",
		// not "app.js").
		return f.Module
	}
	return f.File
}
