package loadgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// lang is the language a service is written in; it decides the format of
// its stack traces.
type lang int

const (
	langGo lang = iota
	langJava
	langPython
	langNode
	numLangs
)

// String names the language.
func (l lang) String() string {
	return [...]string{"go", "java", "python", "node"}[l]
}

var exceptions = [numLangs][]string{
	langGo:     {"runtime error: invalid memory address or nil pointer dereference", "runtime error: index out of range", "assignment to entry in nil map"},
	langJava:   {"java.lang.IllegalStateException", "java.lang.NullPointerException", "java.util.concurrent.TimeoutException", "java.sql.SQLException"},
	langPython: {"ValueError", "KeyError", "TimeoutError", "ConnectionError", "RuntimeError"},
	langNode:   {"TypeError", "Error", "RangeError", "FetchError"},
}

var (
	typeNames = []string{"Service", "Handler", "Repository", "Client", "Worker", "Processor", "Cache"}
	fnNames   = []string{"handle", "process", "load", "save", "commit", "fetch", "validate", "dispatch", "run"}
	fileNames = []string{"service", "handler", "store", "client", "worker", "queue"}
)

// prepareStack renders the parts of the template's stack that never vary,
// so that per-event rendering only splices in the message and the noise.
func (t *template) prepareStack() {
	var b strings.Builder
	switch t.lang {
	case langGo:
		for _, f := range t.frames {
			t.goFrames = append(t.goFrames, [2]string{
				fmt.Sprintf("%s.(*%s).%s(0xc", f.pkg, f.typ, title(f.fn)),
				fmt.Sprintf(")\n\t/app/%s/%s.go:%d +0x%x\n", f.pkg, f.file, f.line, f.line*4%0x3ff),
			})
		}
		return
	case langJava:
		for _, f := range t.frames {
			fmt.Fprintf(&b, "\n\tat com.acme.%s.%s%s.%s(%s%s.java:%d)",
				f.pkg, title(f.file), f.typ, f.fn, title(f.file), f.typ, f.line)
		}
	case langPython:
		b.WriteString("Traceback (most recent call last):\n")
		for _, f := range t.frames {
			fmt.Fprintf(&b, "  File \"/app/%s/%s.py\", line %d, in %s\n    self.%s()\n",
				f.pkg, f.file, f.line, f.fn, f.fn)
		}
		b.WriteString(t.exc + ": ")
	case langNode:
		for _, f := range t.frames {
			fmt.Fprintf(&b, "\n    at %s.%s (/app/src/%s/%s.js:%d:%d)", f.typ, f.fn, f.pkg, f.file, f.line, 5+f.line%30)
		}
	}
	t.frameText = b.String()
}

// stack renders the template's call stack in its language, around msg.
// Stacks are kept short (5 to 8 frames) so that the mean event stays near
// the ~540 bytes of real traffic; Go frames carry per-event noise
// (goroutine ids, pointers) as real ones do.
func (t *template) stack(r *rand.Rand, msg string) string {
	b := make([]byte, 0, len(t.frameText)+len(msg)+len(t.exc)+90*len(t.goFrames)+40)
	switch t.lang {
	case langGo:
		b = append(b, "panic: "...)
		b = append(b, t.exc...)
		b = append(b, "\n\ngoroutine "...)
		b = strconv.AppendInt(b, int64(1+r.IntN(5000)), 10)
		b = append(b, " [running]:\n"...)
		for _, f := range t.goFrames {
			b = append(b, f[0]...)
			for range 9 {
				b = append(b, hexDigits[r.IntN(16)])
			}
			b = append(b, f[1]...)
		}
		b = b[:len(b)-1] // the last newline
	case langPython:
		b = append(b, t.frameText...)
		b = append(b, msg...)
	default: // Java and Node: the message heads the trace
		b = append(b, t.exc...)
		b = append(b, ": "...)
		b = append(b, msg...)
		b = append(b, t.frameText...)
	}
	return string(b)
}

// title upper-cases the first letter of an ASCII word.
func title(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
