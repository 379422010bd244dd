package grouping

import "strings"

// parseDotnet parses a .NET Exception.ToString(): the header with its
// " ---> " inner exceptions, frames with or without "in file:line N", and the
// "--- End of … ---" markers.
//
//	System.InvalidOperationException: outer
//	 ---> System.NullReferenceException: Object reference not set…
//	   at Acme.Orders.Service.Place(Order o) in C:\src\Service.cs:line 42
//	   --- End of inner exception stack trace ---
func parseDotnet(lines []string, a *algorithm) Stack {
	st := Stack{Language: "dotnet"}
	first := -1
	for k, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "at ") {
			first = k
			break
		}
	}
	if first < 0 {
		return st
	}
	h := -1
	for k := first - 1; k >= 0; k-- {
		t := strings.TrimSpace(lines[k])
		if strings.HasPrefix(t, "--->") {
			continue
		}
		if _, _, ok := dotnetHeader(t, a); ok {
			h = k
			break
		}
	}
	if h >= 0 {
		for n, part := range strings.Split(strings.Join(lines[h:first], "\n"), "--->") {
			if typ, msg, ok := dotnetHeader(strings.TrimSpace(part), a); ok {
				st.Types = append(st.Types, typ)
				if n == 0 {
					st.Message = msg
				}
			}
		}
	}
	for k, l := range lines[first:] {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "at "):
			st.add(dotnetFrame(t[3:], a), first+k)
		case strings.HasPrefix(t, "---> "):
			// AggregateException: "---> (Inner Exception #1) System.Exception: msg"
			t = strings.TrimPrefix(t, "---> ")
			if strings.HasPrefix(t, "(Inner Exception #") {
				t = t[strings.IndexByte(t, ')')+1:]
			}
			if typ, _, ok := dotnetHeader(strings.TrimSpace(t), a); ok {
				st.Types = append(st.Types, typ)
			}
		}
	}
	return st
}

// dotnetHeader parses "[Unhandled exception. ]Namespace.TypeException: msg",
// from version 2 also Mono's "[ERROR] FATAL UNHANDLED EXCEPTION: …".
func dotnetHeader(t string, a *algorithm) (typ, msg string, ok bool) {
	t = strings.TrimPrefix(t, "Unhandled exception. ")
	t = strings.TrimPrefix(t, "Unhandled Exception: ")
	if a.mono {
		t = strings.TrimPrefix(t, "[ERROR] FATAL UNHANDLED EXCEPTION: ")
	}
	typ, msg, ok = splitTypeMessage(t, "`+")
	if !ok || !(strings.Contains(typ, ".") || strings.HasSuffix(typ, "Exception")) {
		return "", "", false
	}
	return typ, strings.TrimSpace(msg), true
}

// dotnetFrame parses "Namespace.Type.Method(Args a) in C:\src\File.cs:line 42",
// from version 2 also Mono's "Type.Method (Args a) [0x0001c] in <mvid>:0" and
// "Type.Method (Args) <IL 0x00012, 0x000c4>", whose offsets change with
// every build.
func dotnetFrame(rest string, a *algorithm) Frame {
	if a.mono {
		if k := monoLocation(rest); k >= 0 {
			rest = strings.TrimSpace(rest[:k])
			if open := strings.IndexByte(rest, '('); open > 0 {
				rest = strings.TrimSpace(rest[:open])
			}
		}
	}
	name, file := rest, ""
	if k := strings.LastIndex(rest, " in "); k >= 0 && strings.Contains(rest[k:], ":line ") {
		name, file = rest[:k], rest[k+4:]
		file = file[:strings.LastIndex(file, ":line ")]
	}
	if k := strings.IndexByte(name, '('); k >= 0 {
		name = name[:k]
	}
	typ, method := "", name
	if k := strings.LastIndexByte(name, '.'); k >= 0 {
		if k > 0 && name[k-1] == '.' { // ".ctor", ".cctor"
			k--
		}
		typ, method = name[:k], name[k+1:]
	}
	// Async state machines: "Service.<Place>d__5.MoveNext" is Service.Place.
	if method == "MoveNext" {
		if k := strings.LastIndex(typ, ".<"); k >= 0 {
			if e := strings.IndexByte(typ[k+2:], '>'); e >= 0 {
				typ, method = typ[:k], typ[k+2:k+2+e]
			}
		}
	}
	return Frame{
		Module:   dotnetGenerated(typ),
		Function: dotnetGenerated(method),
		File:     baseName(file),
		Path:     file,
		InApp:    !hasAnyPrefix(typ, dotnetNonApp) && !strings.HasPrefix(method, "lambda_method"),
	}
}

// monoLocation returns where a Mono frame's location starts, " [0x…] in …"
// or " <IL 0x…>", or -1.
func monoLocation(rest string) int {
	if k := strings.LastIndex(rest, " [0x"); k >= 0 && strings.Contains(rest[k:], "] in ") {
		return k
	}
	return strings.LastIndex(rest, " <IL 0x")
}

// dotnetGenerated drops the compiler's counters from generated names:
// "<>c__DisplayClass5_0" → "<>c__DisplayClass", "<Place>b__0" → "<Place>b__",
// "<Main>g__Local|0_0" → "<Main>g__Local", "lambda_method12" → "lambda_method".
func dotnetGenerated(s string) string {
	if !strings.Contains(s, "__") && !strings.HasPrefix(s, "lambda_method") {
		return s
	}
	var b strings.Builder
	for k := 0; k < len(s); k++ {
		if strings.HasPrefix(s[k:], "__") || strings.HasPrefix(s[k:], "lambda_method") {
			j := k + 2
			if s[k] == 'l' {
				j = k + len("lambda_method")
			}
			j = runOf(s, j, len(s), isLetter)
			b.WriteString(s[k:j])
			for j < len(s) && (isDigit(s[j]) || s[j] == '_' || s[j] == '|') {
				j++
			}
			k = j - 1
			continue
		}
		b.WriteByte(s[k])
	}
	return b.String()
}

// dotnetNonApp are namespaces of the runtime and common libraries.
var dotnetNonApp = []string{
	"System.", "Microsoft.", "Windows.", "Mono.", "Newtonsoft.", "Npgsql.", "Grpc.", "Polly.",
	"Serilog.", "NUnit.", "Xunit.", "Castle.", "Dapper.", "StackExchange.", "Swashbuckle.",
	"Amazon.", "Google.", "Azure.", "MediatR.", "AutoMapper.", "FluentValidation.", "Hangfire.",
}
