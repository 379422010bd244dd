package sentry

import "strings"

// renderPython writes a Python traceback. Python prints a chain oldest
// first, each exception after a sentence saying how it led to the next, and
// frames oldest call first, as Sentry orders them:
//
//	Traceback (most recent call last):
//	  File "/app/x.py", line 10, in handler
//	    code
//	ValueError: msg
func renderPython(t *trace, chain []excView, bare bool) {
	if bare {
		// What logging prints for stack_info=True.
		t.line("Stack (most recent call last):")
		pyFrames(t, chain[0].frames)
		return
	}
	for k := range chain {
		e := &chain[k]
		if k > 0 {
			if chain[k-1].source == "__context__" {
				t.line("\nDuring handling of the above exception, another exception occurred:\n")
			} else {
				t.line("\nThe above exception was the direct cause of the following exception:\n")
			}
		}
		if len(e.frames) > 0 {
			t.line("Traceback (most recent call last):")
			pyFrames(t, e.frames)
		}
		t.line(header(e))
	}
}

func pyFrames(t *trace, frames []frame) {
	for k := range frames {
		f := &frames[k]
		fn := frameFunction(f)
		if fn == "" {
			fn = "<unknown>"
		}
		path := framePath(f)
		if path == "" {
			path = "<unknown>"
		}
		t.s(`  File "`, path, `", line `)
		t.num(f.Lineno)
		t.line(", in ", fn)
		t.frameDone(f)
		// Source lines are shown indented; one that would read as a frame
		// line is left out.
		if code := strings.TrimSpace(oneLine(f.ContextLine, maxCodeBytes)); code != "" && !strings.HasPrefix(code, `File "`) {
			t.line("    ", code)
		}
	}
}

// renderRuby writes a Ruby backtrace as the interpreter prints an uncaught
// exception: newest frame first, carrying "message (Type)", the others as
// "from" lines, then each cause the same way.
//
//	app/models/user.rb:10:in `save': undefined method (NoMethodError)
//		from app/controllers/users_controller.rb:5:in `create'
func renderRuby(t *trace, chain []excView, bare bool) {
	for k := len(chain) - 1; k >= 0; k-- {
		e := &chain[k]
		first, rest, _ := strings.Cut(e.value, "\n")
		suffix := ""
		if !bare {
			suffix = ": " + first + " (" + e.typ + ")"
			if first == "" {
				suffix = ": " + e.typ + " (" + e.typ + ")" // Ruby prints the class name for an empty message
			}
		}
		if len(e.frames) == 0 {
			t.line(strings.TrimPrefix(suffix, ": "))
		}
		for j := len(e.frames) - 1; j >= 0; j-- {
			f := &e.frames[j]
			if j < len(e.frames)-1 {
				t.s("\tfrom ")
			}
			path := framePath(f)
			if path == "" {
				path = "<unknown>" // a frame line needs a path to read as one
			}
			t.s(path, ":")
			t.num(f.Lineno)
			t.s(":in `", strings.ReplaceAll(frameFunction(f), "'", "`"), "'")
			if j == len(e.frames)-1 {
				t.s(suffix)
			}
			t.line()
			t.frameDone(f)
			if j == len(e.frames)-1 && rest != "" && !bare {
				t.line(rest)
			}
		}
	}
}

// renderPHP writes what PHP prints for an uncaught exception
// (Throwable::__toString): the oldest exception first, later ones after
// "Next". A "#N file(line): call()" line names the function called at that
// place, so each frame's function appears on the line of the frame below it
// (the newer one) and the throw site is in the header:
//
//	RuntimeException: msg in /app/src/Service.php:12
//	Stack trace:
//	#0 /app/src/Controller.php(30): App\Service->run()
//	#1 {main}
func renderPHP(t *trace, chain []excView, bare bool) {
	for k := range chain {
		e := &chain[k]
		frames := e.frames
		if !bare {
			if k > 0 {
				t.line()
				t.s("Next ")
			}
			t.s(header(e))
			if n := len(frames); n > 0 && framePath(&frames[n-1]) != "" {
				t.s(" in ", framePath(&frames[n-1]), ":")
				t.num(frames[n-1].Lineno)
			}
			t.line()
			// The header is the newest frame (the throw site) for a parser.
			if n := len(frames); n > 0 {
				t.frameDone(&frames[n-1])
			} else {
				t.frameDone(&frame{})
			}
			t.line("Stack trace:")
		}
		num := 0
		for j := len(frames) - 2; j >= 0; j-- {
			f := &frames[j]
			t.s("#")
			t.num(num)
			num++
			if p := framePath(f); p != "" {
				t.s(" ", p, "(")
				t.num(f.Lineno)
				t.s(")")
			} else {
				t.s(" [internal function]")
			}
			call := frameFunction(&frames[j+1])
			if call == "" {
				call = "{unknown}"
			}
			t.line(": ", call, "()")
			t.frameDone(f)
		}
		t.s("#")
		t.num(num)
		t.line(" {main}")
	}
}
