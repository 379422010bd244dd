package sentry

import "strconv"

// renderGoStack writes a Go stack as the runtime prints one goroutine,
// newest call first. A recovered panic (panicked) starts with "panic: value",
// as an uncaught panic prints; an error captured in a handler is the stack
// of the capture site, as runtime/debug.Stack() prints it, its text being
// the event's message. Causes that carry their own stacks (errors made with
// pkg/errors or go-errors) follow after a blank line, which ends the
// goroutine for a parser: only the main error's stack groups.
//
//	panic: runtime error: index out of range [5] with length 3
//
//	goroutine 1 [running]:
//	main.(*Server).handle(...)
//		/home/u/app/server.go:42
func renderGoStack(t *trace, chain []excView, bare, panicked bool) {
	main := &chain[len(chain)-1]
	if panicked && !bare {
		t.line("panic: ", main.value)
		t.line()
	}
	// The goroutine is the main error's stack or, when it has none, the
	// newest cause's.
	g := len(chain) - 1
	for g > 0 && len(chain[g].frames) == 0 {
		g--
	}
	t.line("goroutine 1 [running]:")
	goFrames(t, chain[g].frames)
	for k := g - 1; k >= 0; k-- {
		e := &chain[k]
		if len(e.frames) == 0 {
			continue
		}
		t.line()
		t.line("Caused by: ", header(e))
		goFrames(t, e.frames)
	}
}

func goFrames(t *trace, frames []frame) {
	for j := len(frames) - 1; j >= 0; j-- {
		f := &frames[j]
		if mod := oneLine(f.Module, maxNameBytes); mod != "" {
			t.s(mod, ".")
		}
		t.line(frameFunction(f), "(...)")
		t.s("\t", framePath(f), ":")
		t.num(f.Lineno)
		t.line()
		t.frameDone(f)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
