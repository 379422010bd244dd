package sentry

import "strings"

// renderJava writes what Throwable.printStackTrace prints: the main
// exception and its frames, newest call first, then each cause after
// "Caused by: ", its frames in common with the exception it caused left out
// as "... N more", as the JVM does.
//
//	java.lang.IllegalStateException: msg
//		at com.acme.Foo.bar(Foo.java:42)
//	Caused by: java.io.IOException: disk full
//		at com.acme.Disk.write(Disk.java:7)
//		... 5 more
func renderJava(t *trace, chain []excView, bare bool) {
	var enclosing []frame
	for k := len(chain) - 1; k >= 0; k-- {
		e := &chain[k]
		causedBy(t, chain, k, bare)
		common := 0
		if k < len(chain)-1 {
			common = framesInCommon(e.frames, enclosing)
		}
		for j := len(e.frames) - 1; j >= common; j-- {
			f := &e.frames[j]
			t.s("\tat ", javaName(f), "(")
			switch file := oneLine(f.Filename, maxNameBytes); {
			case f.Native:
				t.s("Native Method")
			case file == "":
				t.s("Unknown Source")
			case f.Lineno > 0:
				t.s(file, ":")
				t.num(f.Lineno)
			default:
				t.s(file)
			}
			t.line(")")
			t.frameDone(f)
		}
		if common > 0 {
			t.s("\t... ")
			t.num(common)
			t.line(" more")
		}
		enclosing = e.frames
	}
}

// framesInCommon counts the oldest frames a cause shares with the exception
// it caused (both oldest first), which the JVM prints as "... N more".
func framesInCommon(cause, enclosing []frame) int {
	n := 0
	for n < len(cause) && n < len(enclosing) && sameFrame(&cause[n], &enclosing[n]) {
		n++
	}
	return n
}

func sameFrame(a, b *frame) bool {
	return a.Module == b.Module && a.Function == b.Function && a.Filename == b.Filename && a.Lineno == b.Lineno
}

// javaName is "pkg.Class.method": the SDK sends the class as the module.
func javaName(f *frame) string {
	fn, mod := frameFunction(f), oneLine(f.Module, maxNameBytes)
	if mod == "" {
		return fn
	}
	return mod + "." + fn
}

// renderDotnet writes what .NET's Exception.ToString prints: the headers of
// the whole chain first, outermost (main) first, each inner one after
// " ---> "; then the frames, innermost exception first, newest call first,
// each inner exception's closed by "--- End of inner exception stack
// trace ---".
//
//	System.InvalidOperationException: outer
//	 ---> System.IO.IOException: inner
//	   at Acme.Disk.Write() in /src/Disk.cs:line 7
//	   --- End of inner exception stack trace ---
//	   at Acme.Orders.Place(Order o) in /src/Orders.cs:line 42
func renderDotnet(t *trace, chain []excView, bare bool) {
	if !bare {
		for k := len(chain) - 1; k >= 0; k-- {
			if k < len(chain)-1 {
				t.s(" ---> ")
			}
			t.line(header(&chain[k]))
		}
	}
	for k := range chain {
		e := &chain[k]
		for j := len(e.frames) - 1; j >= 0; j-- {
			f := &e.frames[j]
			t.s("   at ", dotnetName(f))
			if p := framePath(f); p != "" && f.Lineno > 0 {
				t.s(" in ", p, ":line ")
				t.num(f.Lineno)
			}
			t.line()
			t.frameDone(f)
		}
		if k < len(chain)-1 {
			t.line("   --- End of inner exception stack trace ---")
		}
	}
}

// dotnetName is "Namespace.Type.Method(params)". The SDK's enhanced frames
// carry it whole in the function, behind a return type and modifiers
// ("async Task<int> Acme.Orders.PlaceAsync(Order o)"); original frames carry
// the type as the module and the bare method name.
func dotnetName(f *frame) string {
	fn := frameFunction(f)
	open := strings.IndexByte(fn, '(')
	if open < 0 {
		mod := oneLine(f.Module, maxNameBytes)
		if mod != "" {
			fn = mod + "." + fn
		}
		return fn + "()"
	}
	// The qualified name starts after the last space outside <…> before "(".
	depth := 0
	for k := open - 1; k >= 0; k-- {
		switch fn[k] {
		case '>':
			depth++
		case '<':
			depth--
		case ' ':
			if depth == 0 {
				return fn[k+1:]
			}
		}
	}
	return fn
}

// causedBy writes the header of chain[k] for the forms that print the main
// exception first and each cause after "Caused by: ".
func causedBy(t *trace, chain []excView, k int, bare bool) {
	if bare {
		return
	}
	if k < len(chain)-1 {
		t.s("Caused by: ")
	}
	t.line(header(&chain[k]))
}
