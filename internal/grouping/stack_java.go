package grouping

import "strings"

// parseJava parses a JVM stack trace (Java, Kotlin, Scala, Groovy) as printed
// by Throwable.printStackTrace, with its "Caused by:" chain. "Suppressed:"
// blocks are skipped: they are other errors, not this one's causes.
//
//	Exception in thread "main" java.lang.IllegalStateException: msg
//		at com.acme.Foo.bar(Foo.java:42)
//	Caused by: java.io.IOException: disk full
//		at com.acme.Disk.write(Disk.java:7)
//		... 5 more
func parseJava(lines []string, a *algorithm) Stack {
	st := Stack{Language: "java"}
	first := -1
	for k, l := range lines {
		if t := strings.TrimSpace(a.frameLine(l)); strings.HasPrefix(t, "at ") && atKind(t[3:], a) == "java" {
			first = k
			break
		}
	}
	if first < 0 {
		return st
	}
	for k := first - 1; k >= 0; k-- {
		if typ, msg, ok := javaHeader(lines[k]); ok {
			st.Types = append(st.Types, typ)
			st.Message = strings.TrimSpace(msg + "\n" + strings.Join(lines[k+1:first], "\n"))
			break
		}
	}
	skipIndent := -1
	for k, l := range lines[first:] {
		t := strings.TrimLeft(a.frameLine(l), " \t")
		indent := len(l) - len(t)
		if skipIndent >= 0 {
			// A suppressed error's own causes are printed at its indent:
			// they are not this error's (from version 5).
			if indent > skipIndent || a.suppressedCauses && indent == skipIndent && indent > 0 && strings.HasPrefix(t, "Caused by: ") {
				continue
			}
			skipIndent = -1
		}
		switch {
		case strings.HasPrefix(t, "at "):
			st.add(javaFrame(t[3:], a), first+k)
		case strings.HasPrefix(t, "Caused by: "):
			if typ, msg, ok := javaHeader(t[len("Caused by: "):]); ok {
				st.Types = append(st.Types, typ)
				st.RootMessage = msg
			}
		case strings.HasPrefix(t, "Suppressed: "):
			skipIndent = indent
		}
	}
	return st
}

// isAndroidFile reports whether a frame's location is one R8 wrote for a
// release build: "SourceFile:12" (-renamesourcefileattribute SourceFile) or
// "r8-map-id-<hash>:12"; like "Unknown Source", it names no file.
func isAndroidFile(loc string) bool {
	name, line, _ := strings.Cut(loc, ":")
	if line != "" && runOf(line, 0, len(line), isDigit) != len(line) {
		return false
	}
	return name == "SourceFile" || strings.HasPrefix(name, "r8-map-id-")
}

// javaHeader parses "[Exception in thread "x" ]pkg.SomeException[: msg]". The
// type must look like one: qualified, or named …Exception/…Error/…Throwable.
func javaHeader(l string) (typ, msg string, ok bool) {
	l = strings.TrimSpace(l)
	if rest, found := strings.CutPrefix(l, "Exception in thread \""); found {
		if k := strings.Index(rest, "\" "); k >= 0 {
			l = rest[k+2:]
		}
	}
	typ, msg, ok = splitTypeMessage(l, "")
	if !ok || !(strings.Contains(typ, ".") || strings.HasSuffix(typ, "Exception") ||
		strings.HasSuffix(typ, "Error") || strings.HasSuffix(typ, "Throwable")) {
		return "", "", false
	}
	return typ, msg, true
}

// javaFrame parses "[loader/][module@ver/]pkg.Class$Inner.method(File.java:42)".
func javaFrame(rest string, a *algorithm) Frame {
	name, loc := rest, ""
	if open := strings.IndexByte(rest, '('); open >= 0 {
		name, loc = rest[:open], strings.TrimSuffix(rest[open+1:], ")")
	}
	name = javaLambdaClass(name)
	if k := strings.LastIndexByte(name, '/'); k >= 0 {
		name = name[k+1:]
	}
	class, method := "", name
	if k := strings.LastIndexByte(name, '.'); k >= 0 {
		class, method = name[:k], name[k+1:]
	}
	file := loc
	if k := strings.IndexByte(file, ':'); k >= 0 {
		file = file[:k]
	}
	if file == "Native Method" || file == "Unknown Source" || file == "<generated>" || a.androidFiles && isAndroidFile(loc) {
		file = ""
	}
	return Frame{
		Module:   javaClass(class),
		Function: javaMethod(method, a),
		File:     file,
		Path:     file,
		InApp:    !hasAnyPrefix(class, javaNonApp),
	}
}

// javaLambdaClass replaces the generated part of a lambda class,
// "Foo$$Lambda$14/0x0000000800c0b248" or "Foo$$Lambda/0x…", by "Foo$$Lambda".
func javaLambdaClass(name string) string {
	k := strings.Index(name, "$$Lambda")
	if k < 0 {
		return name
	}
	j := k + len("$$Lambda")
	if j < len(name) && name[j] == '$' {
		j = runOf(name, j+1, len(name), isDigit)
	}
	if j < len(name) && name[j] == '/' {
		j++
		if strings.HasPrefix(name[j:], "0x") {
			j += 2
		}
		j = runOf(name, j, len(name), isHexDigit)
	}
	return name[:k+len("$$Lambda")] + name[j:]
}

// javaClass normalises generated class names: CGLIB and Hibernate proxies
// lose their suffix, anonymous classes "Foo$1" become "Foo$", proxies and
// reflection accessors lose their counters.
func javaClass(c string) string {
	if k := strings.Index(c, "$$"); k >= 0 {
		if strings.HasPrefix(c[k:], "$$Lambda") {
			c = c[:k+len("$$Lambda")]
		} else {
			c = c[:k]
		}
	}
	if k := strings.Index(c, "$HibernateProxy"); k >= 0 {
		c = c[:k]
	}
	if !strings.ContainsAny(c, "0123456789") {
		return c
	}
	segs := strings.Split(c, ".")
	for k, seg := range segs {
		if hasAnyPrefix(seg, []string{"$Proxy", "Generated", "proxy"}) {
			seg = stripDigitSuffix(seg)
		}
		segs[k] = stripDollarDigits(seg)
	}
	return strings.Join(segs, ".")
}

// stripDollarDigits turns "Foo$1$2" into "Foo$$" and "Repo$find$1" into
// "Repo$find$".
func stripDollarDigits(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for k := 0; k < len(s); k++ {
		b.WriteByte(s[k])
		if s[k] == '$' {
			k = runOf(s, k+1, len(s), isDigit) - 1
		}
	}
	return b.String()
}

// javaMethod normalises generated method names: "lambda$main$0" →
// "lambda$main$", "access$000" → "access$", "find$suspendImpl" → "find",
// and from version 5 "$r8$lambda$Xk2v0abcDEF" → "$r8$lambda$".
func javaMethod(m string, a *algorithm) string {
	m = strings.TrimSuffix(m, "$suspendImpl")
	if a.r8Lambdas && strings.HasPrefix(m, "$r8$lambda$") {
		return "$r8$lambda$" // R8's "$r8$lambda$<hash of the build>"
	}
	if strings.Contains(m, "$") {
		m = stripDollarDigits(m)
	}
	return m
}

// javaNonApp are class prefixes of the JDK, Kotlin, Android and widespread
// libraries and frameworks.
var javaNonApp = []string{
	"java.", "javax.", "jakarta.", "sun.", "com.sun.", "jdk.", "kotlin.", "kotlinx.",
	"android.", "androidx.", "dalvik.", "com.android.", "scala.", "groovy.", "org.codehaus.groovy.",
	"org.springframework.", "org.apache.", "org.hibernate.", "org.eclipse.", "org.junit.",
	"org.gradle.", "io.netty.", "io.micronaut.", "io.quarkus.", "io.vertx.", "io.grpc.",
	"io.reactivex.", "reactor.", "okhttp3.", "okio.", "retrofit2.", "com.fasterxml.",
	"com.google.", "com.zaxxer.", "ch.qos.logback.", "org.slf4j.", "org.postgresql.",
	"com.mysql.", "org.h2.", "net.bytebuddy.", "org.mockito.", "io.ktor.", "akka.",
	"org.jboss.", "org.glassfish.", "com.amazonaws.", "software.amazon.", "io.opentelemetry.",
	"io.micrometer.", "feign.", "$Proxy", "org.aspectj.", "org.mybatis.", "io.undertow.",
}
