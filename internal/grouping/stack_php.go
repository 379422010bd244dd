package grouping

import "strings"

// parsePHP parses PHP traces: Throwable::__toString() with its "Next …"
// chain (printed innermost first) and the "PHP Fatal error:  Uncaught …"
// log form.
//
//	PHP Fatal error:  Uncaught Exception: msg in /var/www/x.php:3
//	Stack trace:
//	#0 /var/www/app/src/Controller.php(42): App\Controller->run()
//	#1 {main}
//	  thrown in /var/www/x.php on line 3
//
// A "#N file(line): call" line says that call was made at file(line); the
// code at file(line) belongs to the function called on the next line, and
// the throw site to the function called on "#0". Frames are shifted so that
// each pairs a place with the function it is in, as other languages do.
func parsePHP(lines []string, a *algorithm) Stack {
	st := Stack{Language: "php"}
	var types, msgs []string
	var block []phpCall // the current exception's "#N" lines, the throw site first
	flush := func() {
		for k, c := range block {
			if c.path == "{main}" {
				continue
			}
			fn := "{main}"
			if k+1 < len(block) {
				fn = block[k+1].call
			}
			st.add(phpFrame(c.path, fn, a), c.line)
		}
		block = block[:0]
	}
	for k, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "#") {
			if c, ok := phpTraceLine(t); ok {
				c.line = k
				block = append(block, c)
			}
			continue
		}
		if typ, msg, file, ok := phpHeader(t); ok {
			flush()
			types, msgs = append(types, typ), append(msgs, msg)
			block = append(block, phpCall{path: file, line: k})
		}
	}
	flush()
	// "Next" exceptions wrap the ones before: the last is the one thrown.
	for k := len(types) - 1; k >= 0; k-- {
		st.Types = append(st.Types, types[k])
	}
	if len(msgs) > 0 {
		st.Message = msgs[len(msgs)-1]
	}
	return st
}

// phpCall is one "#N path(line): call(args)" line, without line and args;
// line is its index in the trace.
type phpCall struct {
	path, call string
	line       int
}

// phpHeader parses "[PHP ]Fatal error:  Uncaught Type: msg in /x.php:3",
// "Next Type: msg in /x.php:3" and "Type: msg in /x.php:3".
func phpHeader(t string) (typ, msg, file string, ok bool) {
	if strings.HasPrefix(t, "[") { // error_log's "[14-Jun-2024 10:01:02 UTC] "
		if k := strings.Index(t, "] "); k > 0 {
			t = t[k+2:]
		}
	}
	t = strings.TrimPrefix(t, "PHP ")
	if rest, found := strings.CutPrefix(t, "Fatal error:"); found {
		t = strings.TrimSpace(rest)
	}
	t = strings.TrimPrefix(t, "Uncaught ")
	t = strings.TrimPrefix(t, "Next ")
	typ, msg, ok = splitTypeMessage(t, "\\")
	if !ok || typ == "\\" || !isUpper(strings.TrimPrefix(typ, "\\")[0]) || typ == "Stack trace" {
		return "", "", "", false
	}
	if k := strings.LastIndex(msg, " in "); k >= 0 {
		loc := msg[k+4:]
		if c := strings.LastIndexByte(loc, ':'); c > 0 && runOf(loc, c+1, len(loc), isDigit) == len(loc) {
			msg, file = msg[:k], loc[:c]
		}
	}
	return typ, msg, file, true
}

// phpTraceLine parses "#0 /x/Controller.php(42): App\Controller->run(Object(Foo))",
// "#1 [internal function]: App\X->y()" and "#2 {main}".
func phpTraceLine(t string) (phpCall, bool) {
	sp := strings.IndexByte(t, ' ')
	if sp < 0 || runOf(t, 1, sp, isDigit) != sp {
		return phpCall{}, false
	}
	t = t[sp+1:]
	if t == "{main}" {
		return phpCall{path: "{main}", call: "{main}"}, true
	}
	k := strings.Index(t, ": ")
	if k < 0 {
		return phpCall{}, false
	}
	loc, call := t[:k], phpClosure(t[k+2:])
	if p := strings.LastIndexByte(loc, '('); p > 0 && strings.HasSuffix(loc, ")") {
		loc = loc[:p]
	}
	if p := strings.IndexByte(call, '('); p >= 0 {
		call = call[:p]
	}
	return phpCall{path: loc, call: call}, true
}

// phpFrame is the frame of code at path inside function fn ("Class->m",
// "Class::m" or a plain function). "{main}" is the script's top level.
func phpFrame(path, fn string, a *algorithm) Frame {
	f := Frame{Function: fn, InApp: path != "" && !containsAny(path, phpNonApp)}
	if path != "[internal function]" && path != "{main}" && path != "" {
		f.Module, f.File, f.Path = fileModule(path, a), baseName(path), path
	}
	for _, sep := range []string{"->", "::"} {
		if p := strings.LastIndex(fn, sep); p > 0 {
			f.Module, f.Function = fn[:p], fn[p+len(sep):]
			break
		}
	}
	return f
}

// phpClosure shortens PHP 8.4's "{closure:App\Foo::bar():12}" to "{closure}".
func phpClosure(call string) string {
	k := strings.Index(call, "{closure:")
	if k < 0 {
		return call
	}
	depth := 0
	for j := k; j < len(call); j++ {
		switch call[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return call[:k] + "{closure}" + call[j+1:]
			}
		}
	}
	return call
}

// phpNonApp marks Composer dependencies and the engine.
var phpNonApp = []string{"/vendor/", "vendor/", "[internal function]", "phar://"}
