package sentry

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/ingest"
)

// A Sentry event carries its stack as frames; Errata stores a stack trace as
// text and groups by what grouping.ParseStack reads from it. So frames are
// rendered in the text each platform's runtime prints, which ParseStack
// reads back into the same functions and modules, and an error reported
// through a Sentry SDK groups exactly as the same error sent as text.
//
// The SDK's in_app flags travel beside the text, one character per frame in
// the order ParseStack returns them ('y', 'n', '?' for unknown), in the
// attribute sentry.in_app.

// Caps on what one stack renders; the text is also cut to
// ingest.MaxStackTraceBytes at a line end.
const (
	maxChain     = 10  // exceptions of a chain, the newest kept
	maxFrames    = 200 // frames of one stack: the oldest and newest 100 kept
	maxNameBytes = 512 // a function, module or path
	maxCodeBytes = 300 // a line of source code (Python)
	maxValueText = 2 << 10
)

// truncatedMark ends a stack trace cut to its limit; no parser reads it as
// a frame or an exception.
const truncatedMark = "[truncated]"

// excView is one exception of a chain as rendered, oldest first.
type excView struct {
	typ    string  // as the platform prints it (qualified for Java, Python)
	value  string  // the message
	source string  // how it relates to the next (newer) exception, Python's "__cause__" or "__context__"
	frames []frame // oldest call first
}

// trace accumulates a rendered stack trace and one in_app flag per frame.
type trace struct {
	b     []byte
	flags []byte
	ends  []int // len(b) once each frame was written
}

func (t *trace) s(parts ...string) {
	for _, p := range parts {
		t.b = append(t.b, p...)
	}
}

func (t *trace) line(parts ...string) {
	t.s(parts...)
	t.b = append(t.b, '\n')
}

func (t *trace) num(n int) { t.b = strconv.AppendInt(t.b, int64(n), 10) }

// frameDone records the in_app flag of the frame whose text was just
// written.
func (t *trace) frameDone(f *frame) {
	flag := byte('?')
	if f.InApp != nil {
		flag = 'n'
		if *f.InApp {
			flag = 'y'
		}
	}
	t.flags = append(t.flags, flag)
	t.ends = append(t.ends, len(t.b))
}

// text returns the trace and its flags, cut at a line end to the stack
// trace limit; flags are kept for the frames written before the cut.
func (t *trace) text() (string, string) {
	b := t.b
	for len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	flags := t.flags
	if len(b) > ingest.MaxStackTraceBytes {
		cut := strings.LastIndexByte(string(b[:ingest.MaxStackTraceBytes-len(truncatedMark)]), '\n') + 1
		n := 0
		for n < len(t.ends) && t.ends[n] <= cut {
			n++
		}
		b = append(b[:cut:cut], truncatedMark...)
		flags = flags[:n]
	}
	return string(b), string(flags)
}

// renderer writes a chain (oldest exception first, the main one last) in a
// platform's form. Without exceptions (bare frames from a thread) chain has
// one element with an empty type and value, and bare is true.
type renderer func(t *trace, chain []excView, bare bool)

// rendererFor picks the form of a platform (the event's "platform"); Go,
// whose form depends on whether the event is a panic, is renderGoStack.
func rendererFor(platform string) renderer {
	switch platform {
	case "python":
		return renderPython
	case "java", "groovy", "kotlin", "scala":
		return renderJava
	case "javascript", "node":
		return renderJS
	case "csharp":
		return renderDotnet
	case "ruby":
		return renderRuby
	case "php":
		return renderPHP
	}
	return renderGeneric
}

// renderStack renders an event's exceptions, or the frames of its crashed or
// current thread when no exception has any, and returns the text and the
// in_app flags ("", "" when there are no frames to show). panicked marks a
// Go event reported from a recovered panic.
func renderStack(platform string, excs []exception, threadFrames []frame, panicked bool) (string, string) {
	if len(excs) > maxChain {
		excs = excs[len(excs)-maxChain:]
	}
	chain := make([]excView, len(excs))
	hasFrames := false
	for k := range excs {
		e := &excs[k]
		chain[k] = excView{typ: oneLine(qualifiedType(platform, e), maxNameBytes), value: e.Value}
		if len(chain[k].value) > maxValueText {
			chain[k].value = cutUTF8(chain[k].value, maxValueText) + "…"
		}
		if e.Mechanism != nil {
			chain[k].source = e.Mechanism.Source
		}
		if e.Stacktrace != nil && len(e.Stacktrace.Frames) > 0 {
			chain[k].frames = trimFrames(e.Stacktrace.Frames)
			hasFrames = true
		}
	}
	bare := false
	if !hasFrames {
		if len(threadFrames) == 0 {
			return "", ""
		}
		if len(chain) == 0 {
			chain, bare = []excView{{}}, true
		}
		chain[len(chain)-1].frames = trimFrames(threadFrames)
	}
	var t trace
	if platform == "go" && hasGoFile(chain) {
		renderGoStack(&t, chain, bare, panicked)
	} else if platform == "go" {
		// Without a single .go path the text would not read as Go.
		renderGeneric(&t, chain, bare)
	} else {
		rendererFor(platform)(&t, chain, bare)
	}
	return t.text()
}

// hasGoFile reports whether a frame of the chain is in a .go file.
func hasGoFile(chain []excView) bool {
	for k := range chain {
		for j := range chain[k].frames {
			if strings.HasSuffix(framePath(&chain[k].frames[j]), ".go") {
				return true
			}
		}
	}
	return false
}

// qualifiedType is an exception's type as its runtime prints it: Java and
// Python SDKs send the module (package) apart from the type.
func qualifiedType(platform string, e *exception) string {
	switch {
	case e.Module == "" || e.Type == "" || strings.HasPrefix(e.Type, e.Module+"."):
		return e.Type
	case platform == "python" && (e.Module == "builtins" || e.Module == "__builtin__" || e.Module == "exceptions"):
		return e.Type
	case platform == "python" || isJVM(platform):
		return e.Module + "." + e.Type
	}
	return e.Type
}

func isJVM(platform string) bool {
	switch platform {
	case "java", "groovy", "kotlin", "scala":
		return true
	}
	return false
}

// trimFrames keeps the oldest and newest maxFrames/2 frames of a long stack,
// as Sentry does: the entry point and the crash site both matter.
func trimFrames(frames []frame) []frame {
	if len(frames) <= maxFrames {
		return frames
	}
	out := make([]frame, 0, maxFrames)
	out = append(out, frames[:maxFrames/2]...)
	return append(out, frames[len(frames)-maxFrames/2:]...)
}

// oneLine makes a name safe to place on one line of a trace: control
// characters become spaces (U+0000 becomes U+FFFD, as in every stored
// string, CONTRACT 7) and it is cut to max bytes.
func oneLine(s string, max int) string {
	if len(s) > max {
		s = cutUTF8(s, max)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return strings.Map(func(r rune) rune {
				switch {
				case r == 0:
					return '\uFFFD'
				case r < 0x20 || r == 0x7f:
					return ' '
				}
				return r
			}, s)
		}
	}
	return s
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// header is "Type: value", or whichever of the two is not empty.
func header(e *excView) string {
	switch {
	case e.typ == "":
		return e.value
	case e.value == "":
		return e.typ
	}
	return e.typ + ": " + e.value
}

// framePath is the path a runtime prints for a frame: the absolute path when
// the SDK sent one, else the file name.
func framePath(f *frame) string {
	p := f.AbsPath
	if p == "" {
		p = f.Filename
	}
	return oneLine(p, maxNameBytes)
}

func frameFunction(f *frame) string {
	fn := f.Function
	if fn == "" {
		fn = f.RawFunction
	}
	return oneLine(fn, maxNameBytes)
}
