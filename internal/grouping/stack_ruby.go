package grouping

import "strings"

// parseRuby parses a Ruby backtrace in the interpreter's form (first frame
// carrying "message (Type)", then "from …" lines, backticks before Ruby 3.4
// and quotes after) and in the Rails log form ("Type (message):" followed by
// frames), or "Type: message" followed by frames.
//
//	app/models/user.rb:10:in `save': undefined method `name' for nil (NoMethodError)
//		from app/controllers/users_controller.rb:5:in `create'
func parseRuby(lines []string, a *algorithm) Stack {
	st := Stack{Language: "ruby"}
	for k, l := range lines {
		t := strings.TrimSpace(l)
		t = strings.TrimPrefix(t, "from ")
		if f, msg, ok := rubyFrame(t, a); ok {
			// Ruby 3.4 prints no "rescue in"/"ensure in" frames: the
			// method's own frame is there either way.
			if !a.rubyLabels || !(strings.HasPrefix(f.Function, "rescue in ") || strings.HasPrefix(f.Function, "ensure in ")) {
				st.add(f, k)
			}
			if len(st.Types) == 0 && msg != "" {
				if typ, m, ok := rubyTrailingType(msg); ok {
					st.Types, st.Message = []string{typ}, m
				}
			}
			continue
		}
		if len(st.Frames) > 0 || len(st.Types) > 0 || t == "" {
			continue
		}
		// Rails: "NoMethodError (undefined method `x' for nil):"
		if strings.HasSuffix(t, "):") {
			if typ, m, ok := rubyTrailingType(strings.TrimSuffix(t, ":")); ok {
				st.Types, st.Message = []string{typ}, m
				continue
			}
			if k := strings.Index(t, " ("); k > 0 && isTypeName(t[:k], ":") {
				st.Types, st.Message = []string{t[:k]}, t[k+2:len(t)-2]
				continue
			}
		}
		if typ, m, ok := splitTypeMessage(t, ":"); ok && isUpper(typ[0]) {
			st.Types, st.Message = []string{typ}, m
		}
	}
	return st
}

// rubyFrame parses "path:10:in `fn'" or "path:10:in 'Klass#fn'", returning
// whatever follows the frame (": message (Type)" on the first line).
func rubyFrame(t string, a *algorithm) (Frame, string, bool) {
	k := strings.Index(t, ":in ")
	if k < 0 || k+5 >= len(t) {
		return Frame{}, "", false
	}
	loc, rest := t[:k], t[k+4:]
	colon := strings.LastIndexByte(loc, ':')
	if colon <= 0 || runOf(loc, colon+1, len(loc), isDigit) != len(loc) || colon == len(loc)-1 {
		return Frame{}, "", false
	}
	path := loc[:colon]
	if rest[0] != '`' && rest[0] != '\'' {
		return Frame{}, "", false
	}
	end := strings.IndexByte(rest[1:], '\'')
	if end < 0 {
		return Frame{}, "", false
	}
	fn := rest[1 : 1+end]
	if a.rubyLabels {
		fn = rubyUnqualified(fn)
	}
	after := strings.TrimPrefix(rest[2+end:], ": ")
	return Frame{
		Module:   fileModule(path, a),
		Function: rubyMethod(fn),
		File:     baseName(path),
		Path:     path,
		InApp:    !containsAny(path, rubyNonApp) && !isRailsGemPath(path),
	}, after, true
}

// rubyUnqualified drops the class Ruby 3.4 names a method by ("Order#ship!",
// "Order.create", "block in Order#ship!"), so that a frame reads as older
// Rubies print it ("ship!", "create", "block in ship!"): an upgrade of Ruby
// does not split every group.
func rubyUnqualified(fn string) string {
	prefix := ""
	if p, rest, ok := strings.Cut(fn, " in "); ok && strings.HasPrefix(p, "block") {
		prefix, fn = p+" in ", rest
	}
	if k := strings.LastIndexAny(fn, "#."); k > 0 && k < len(fn)-1 && isUpper(fn[0]) {
		fn = fn[k+1:]
	}
	return prefix + fn
}

// rubyTrailingType splits "message (Type)".
func rubyTrailingType(s string) (typ, msg string, ok bool) {
	if !strings.HasSuffix(s, ")") {
		return "", "", false
	}
	k := strings.LastIndex(s, " (")
	if k < 0 {
		if strings.HasPrefix(s, "(") { // empty message
			k = -1
		} else {
			return "", "", false
		}
	}
	typ = s[k+2 : len(s)-1]
	if typ == "" || !isUpper(typ[0]) || !isTypeName(typ, ":") {
		return "", "", false
	}
	if k < 0 {
		return typ, "", true
	}
	return typ, s[:k], true
}

// rubyMethod normalises "block (2 levels) in save" to "block in save" and
// drops the numbers compiled templates carry
// ("_app_views_users_show_html_erb__1234_5678" → "_app_views_users_show_html_erb").
func rubyMethod(fn string) string {
	if strings.HasPrefix(fn, "block (") {
		if k := strings.Index(fn, " levels) in "); k >= 0 {
			fn = "block in " + fn[k+len(" levels) in "):]
		}
	}
	for {
		k := strings.LastIndexByte(fn, '_')
		if k < 0 || len(fn)-k-1 < 3 || runOf(fn, k+1, len(fn), isDigit) != len(fn) {
			break
		}
		fn = strings.TrimRight(fn[:k], "_")
	}
	return fn
}

// rubyNonApp marks gems, the standard library and the interpreter.
var rubyNonApp = []string{
	"gems/", "/rubygems/", "/lib/ruby/", "<internal:", "/vendor/bundle/", "/bundle/ruby/",
}

// isRailsGemPath recognises the gem paths of Rails' backtrace cleaner,
// "activesupport (7.1.2) lib/active_support/callbacks.rb".
func isRailsGemPath(path string) bool {
	open := strings.Index(path, " (")
	return open > 0 && open+2 < len(path) && isDigit(path[open+2]) && strings.Contains(path[open:], ") ")
}
