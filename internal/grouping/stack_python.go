package grouping

import "strings"

// parsePython parses a Python traceback, with its chained exceptions ("During
// handling of the above exception…", "The above exception was the direct
// cause…") and the "| " margins of exception groups.
//
//	Traceback (most recent call last):
//	  File "/app/x.py", line 10, in handler
//	    code
//	ValueError: msg
func parsePython(lines []string, a *algorithm) Stack {
	st := Stack{Language: "python"}
	type exc struct{ typ, msg string }
	var excs []exc
	sawFrame := false
	for k := 0; k < len(lines); k++ {
		l := pyStripGroupMargin(lines[k])
		t := strings.TrimLeft(l, " \t")
		switch {
		case strings.HasPrefix(t, "File \""):
			st.add(pyFrame(t, a), k)
			sawFrame = true
		case !sawFrame || t == "" || len(t) < len(l):
			// Code, carets, separators and text outside a traceback.
		default:
			typ, msg, ok := splitTypeMessage(t, "")
			if !ok {
				continue
			}
			// A message may run over several lines, up to a blank line.
			for k+1 < len(lines) && strings.TrimSpace(lines[k+1]) != "" &&
				!strings.HasPrefix(lines[k+1], "Traceback ") {
				k++
				msg += "\n" + strings.TrimSpace(pyStripGroupMargin(lines[k]))
			}
			excs = append(excs, exc{typ, strings.TrimSpace(msg)})
			sawFrame = false
		}
	}
	if len(excs) == 0 && a.wrappers {
		// Rollbar renders every language's trace this way, the exception
		// first: "PDOException: msg" then `  File "x.php", line 1, in f`.
		for _, l := range lines {
			if t := strings.TrimSpace(l); t != "" {
				if typ, msg, ok := splitTypeMessage(t, "\\"); ok && !strings.HasPrefix(t, "File \"") {
					excs = append(excs, exc{typ, msg})
				}
				break
			}
		}
	}
	// The last exception printed is the one finally raised.
	for k := len(excs) - 1; k >= 0; k-- {
		st.Types = append(st.Types, excs[k].typ)
	}
	if len(excs) > 0 {
		st.Message = excs[len(excs)-1].msg
	}
	return st
}

// pyStripGroupMargin removes the "  | " and "+-+---- 1 ----" margins Python
// 3.11 draws around the members of an ExceptionGroup.
func pyStripGroupMargin(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(t) == len(l) {
		return l
	}
	switch {
	case strings.HasPrefix(t, "| "):
		return t[2:]
	case t == "|" || strings.HasPrefix(t, "+-"):
		return ""
	case strings.HasPrefix(t, "+ "):
		return t[2:]
	}
	return l
}

// pyFrame parses `File "/app/x.py", line 10, in handler`.
func pyFrame(t string, a *algorithm) Frame {
	rest := t[len("File \""):]
	path := rest
	if k := strings.IndexByte(rest, '"'); k >= 0 {
		path, rest = rest[:k], rest[k+1:]
	}
	fn := ""
	if k := strings.LastIndex(rest, ", in "); k >= 0 {
		fn = strings.TrimSpace(rest[k+len(", in "):])
	}
	return Frame{
		Module:   fileModule(path, a),
		Function: fn,
		File:     baseName(path),
		Path:     path,
		InApp:    !containsAny(path, pyNonApp),
	}
}

// pyNonApp marks installed packages and the standard library.
var pyNonApp = []string{
	"site-packages", "dist-packages", "/lib/python", "\\Lib\\", "<frozen ", "/usr/lib/",
	"/.venv/", "/venv/",
}
