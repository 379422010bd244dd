package grouping

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

const javaTrace = "java.lang.IllegalStateException: boom 42\n\tat com.acme.Foo.bar(Foo.java:10)\n\tat java.lang.Thread.run(Thread.java:1)\n"

func TestFingerprintRules(t *testing.T) {
	t.Parallel()
	def := Fingerprint(Input{StackTrace: javaTrace})
	tests := []struct {
		name      string
		in        Input
		wantRule  Rule
		wantParts []string
	}{
		{"message", Input{Message: "user 42 not found"}, RuleMessage, []string{"message", "user <int> not found"}},
		{"stack", Input{Message: "ignored 1", StackTrace: javaTrace}, RuleStackTrace,
			[]string{"stacktrace", "type:java.lang.IllegalStateException", "value:boom <int>", "frame:com.acme.Foo:bar"}},
		{"custom", Input{Message: "x", Fingerprint: []string{"db", "timeout"}}, RuleCustom, []string{"custom", "db", "timeout"}},
		{"custom default", Input{StackTrace: javaTrace, Fingerprint: []string{"{{ default }}", "eu"}}, RuleCustom,
			[]string{"custom", def.Fingerprint, "eu"}},
		{"custom default unspaced", Input{StackTrace: javaTrace, Fingerprint: []string{"{{default}}", "eu"}}, RuleCustom,
			[]string{"custom", def.Fingerprint, "eu"}},
		{"default alone is the default", Input{StackTrace: javaTrace, Fingerprint: []string{"{{default}}"}}, RuleStackTrace, def.Parts},
		{"empty custom is absent", Input{Message: "m 1", Fingerprint: []string{}}, RuleMessage, []string{"message", "m <int>"}},
		{"trace inside message", Input{Message: "worker failed\n" + javaTrace}, RuleStackTrace,
			[]string{"stacktrace", "type:java.lang.IllegalStateException", "value:boom <int>", "frame:com.acme.Foo:bar"}},
		{"null value is no value", Input{StackTrace: "java.lang.NullPointerException: null\n\tat com.acme.Foo.bar(Foo.java:10)\n"}, RuleStackTrace,
			[]string{"stacktrace", "type:java.lang.NullPointerException", "frame:com.acme.Foo:bar"}},
		{"unparsable trace", Input{Message: "disk full on 10.0.0.1", StackTrace: "no frames here"}, RuleMessage,
			[]string{"message", "disk full on <ip>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Fingerprint(tt.in)
			if got.Rule != tt.wantRule {
				t.Errorf("Rule = %q, want %q", got.Rule, tt.wantRule)
			}
			if strings.Join(got.Parts, "|") != strings.Join(tt.wantParts, "|") {
				t.Errorf("Parts = %q, want %q", got.Parts, tt.wantParts)
			}
			if got.Version != Version || len(got.Fingerprint) != 64 {
				t.Errorf("Version, Fingerprint = %d, %q, want %d and 64 hex digits", got.Version, got.Fingerprint, Version)
			}
		})
	}
}

// TestFingerprintStable pins one hash, computed independently (SHA-256 over
// uvarint-length-prefixed parts): it must not change with the Go version or
// a refactoring.
func TestFingerprintStable(t *testing.T) {
	t.Parallel()
	got := Fingerprint(Input{Message: "user 42 not found"}).Fingerprint
	want := "8646b48985f043b879b89bb8ae4c0078adebada29ffcbc7343393c9b3c0b59da"
	if got != want {
		t.Errorf("Fingerprint = %s, want %s", got, want)
	}
}

func TestFingerprintDecisions(t *testing.T) {
	t.Parallel()
	recursion := func(depth int) string {
		var b strings.Builder
		b.WriteString("RangeError: Maximum call stack size exceeded\n")
		for range depth {
			b.WriteString("    at walk (/app/src/tree.js:12:9)\n")
		}
		b.WriteString("    at main (/app/src/index.js:3:1)\n")
		return b.String()
	}
	allVendor := func(line int) string {
		return "Error: socket hang up\n    at connResetException (node:internal/errors:720:14)\n" +
			"    at TLSSocket.socketOnEnd (node:_http_client:525:23)\n    at emit (/app/node_modules/x/index.js:" +
			string(rune('0'+line)) + ":1)\n"
	}
	tests := []struct {
		name  string
		a, b  Input
		merge bool
	}{
		{"recursion depth", Input{StackTrace: recursion(3)}, Input{StackTrace: recursion(50)}, true},
		{"only non-app frames are used when nothing is in-app", Input{StackTrace: allVendor(1)}, Input{StackTrace: allVendor(2)}, true},
		{"custom fingerprint beats message", Input{Message: "a", Fingerprint: []string{"x"}}, Input{Message: "b", Fingerprint: []string{"x"}}, true},
		{"custom fingerprints differ", Input{Message: "a", Fingerprint: []string{"x"}}, Input{Message: "a", Fingerprint: []string{"y"}}, false},
		{"message is not used when a stack parses", Input{Message: "one", StackTrace: javaTrace}, Input{Message: "two", StackTrace: javaTrace}, true},
		{"stack beats message", Input{Message: "same", StackTrace: javaTrace}, Input{Message: "same"}, false},
		{"no type: message stands in", Input{Message: "a", StackTrace: "goroutine 1 [running]:\nmain.main()\n\t/app/main.go:3 +0x1\n"},
			Input{Message: "b", StackTrace: "goroutine 1 [running]:\nmain.main()\n\t/app/main.go:3 +0x1\n"}, false},
	}
	for _, tt := range tests {
		a, b := Fingerprint(tt.a), Fingerprint(tt.b)
		if got := a.Fingerprint == b.Fingerprint; got != tt.merge {
			t.Errorf("%s: merged %v, want %v\n a: %q\n b: %q", tt.name, got, tt.merge, a.Parts, b.Parts)
		}
	}
}

func TestTitle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"type and message", Input{StackTrace: javaTrace}, "java.lang.IllegalStateException: boom <int>"},
		{"message only", Input{Message: "user 42 not found\nsecond line"}, "user <int> not found"},
		{"message already names type", Input{Message: "TypeError: x is not a function\n    at f (/app/a.js:1:2)"}, "TypeError: x is not a function"},
		{"go panic", Input{StackTrace: "panic: runtime error: integer divide by zero\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:3 +0x1\n"},
			"panic: runtime error: integer divide by zero"},
		{"long", Input{Message: strings.Repeat("é", 300)}, strings.Repeat("é", 199) + "…"},
	}
	for _, tt := range tests {
		if got := Fingerprint(tt.in).Title; got != tt.want {
			t.Errorf("%s: Title = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := Fingerprint(Input{Message: strings.Repeat("x ", 500)}).Title; utf8.RuneCountInString(got) > maxTitle {
		t.Errorf("Title has %d runes, want at most %d", utf8.RuneCountInString(got), maxTitle)
	}
}

func TestFrameNormalisation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, trace string
		want        Frame
	}{
		{"go method closure", "goroutine 1 [running]:\ngithub.com/a/b/pkg.(*T).Run.func2.1(0xc0001)\n\t/src/pkg/t.go:9 +0x1d\n",
			Frame{Module: "github.com/a/b/pkg", Function: "(*T).Run", File: "t.go", InApp: true}},
		{"go stdlib", "goroutine 1 [running]:\nnet/http.(*conn).serve(0x1)\n\t/usr/local/go/src/net/http/server.go:1 +0x1\n",
			Frame{Module: "net/http", Function: "(*conn).serve", File: "server.go"}},
		{"java lambda", "java.lang.Error\n\tat app//com.a.B$$Lambda$7/0x0000000800c0b248.apply(Unknown Source)\n",
			Frame{Module: "com.a.B$$Lambda", Function: "apply", InApp: true}},
		{"java module prefix", "java.lang.Error\n\tat java.base/java.lang.Thread.run(Thread.java:833)\n",
			Frame{Module: "java.lang.Thread", Function: "run", File: "Thread.java"}},
		{"dotnet async", "System.Exception: x\n   at A.B.<Run>d__12.MoveNext() in /s/B.cs:line 3\n",
			Frame{Module: "A.B", Function: "Run", File: "B.cs", InApp: true}},
		{"dotnet ctor", "System.Exception: x\n   at A.B..ctor(Int32 x)\n",
			Frame{Module: "A.B", Function: ".ctor", InApp: true}},
		{"ruby block", "x.rb:1:in `block (2 levels) in run': boom (RuntimeError)\n",
			Frame{Module: "x.rb", Function: "block in run", File: "x.rb", InApp: true}},
		{"firefox nested", "f/<@https://x.example.com/js/app.0a1b2c3d.js:1:2\n",
			Frame{Module: "js/app.js", Function: "f", File: "app.js", InApp: true}},
		{"v8 new alias", "Error: x\n    at new Foo [as bar] (/app/lib/foo.js:1:2)\n",
			Frame{Module: "lib/foo.js", Function: "Foo", File: "foo.js", InApp: true}},
		{"python windows venv", "Traceback (most recent call last):\n  File \"C:\\app\\.venv\\Lib\\site-packages\\x\\y.py\", line 1, in f\nE: x\n",
			Frame{Module: "x/y.py", Function: "f", File: "y.py"}},
	}
	for _, tt := range tests {
		st := ParseStack(tt.trace)
		if len(st.Frames) == 0 {
			t.Errorf("%s: no frames in %q", tt.name, tt.trace)
			continue
		}
		got := st.Frames[0]
		got.Path = "" // the path as printed: see TestFramePaths
		if got != tt.want {
			t.Errorf("%s: frame = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestVersions(t *testing.T) {
	t.Parallel()
	vs := Versions()
	if len(vs) == 0 || vs[0] != OldestVersion || vs[len(vs)-1] != Version {
		t.Fatalf("Versions() = %v, want %d … %d", vs, OldestVersion, Version)
	}
	for _, v := range vs {
		res, ok := FingerprintVersion(Input{Message: "user 42 not found"}, v)
		if !ok || res.Version != v || len(res.Fingerprint) != 64 {
			t.Errorf("FingerprintVersion(…, %d) = %+v, %v", v, res, ok)
		}
	}
	for _, v := range []int{-1, 0, OldestVersion - 1, Version + 1} {
		if res, ok := FingerprintVersion(Input{Message: "x"}, v); ok || res.Fingerprint != "" {
			t.Errorf("FingerprintVersion(…, %d) = %+v, %v, want nothing", v, res, ok)
		}
	}
	cur, _ := FingerprintVersion(Input{StackTrace: javaTrace}, Version)
	if got := Fingerprint(Input{StackTrace: javaTrace}); got.Fingerprint != cur.Fingerprint {
		t.Errorf("Fingerprint = %s, FingerprintVersion(…, Version) = %s", got.Fingerprint, cur.Fingerprint)
	}
}

// TestInAppFlags: an SDK's in-app flags decide which frames identify a
// stack when there is one per parsed frame, and are ignored otherwise.
func TestInAppFlags(t *testing.T) {
	trace := "Traceback (most recent call last):\n" +
		"  File \"/app/shop/views.py\", line 10, in checkout\n" +
		"  File \"/app/shop/vendor/pay.py\", line 20, in charge\n" +
		"  File \"/app/shop/vendor/http.py\", line 30, in post\n" +
		"ValueError: declined"
	base := Fingerprint(Input{StackTrace: trace})
	if len(base.Frames) != 3 {
		t.Fatalf("frames = %d, want 3", len(base.Frames))
	}
	onlyFirst := Fingerprint(Input{StackTrace: trace, InApp: "ynn"})
	allApp := Fingerprint(Input{StackTrace: trace, InApp: "yyy"})
	if onlyFirst.Fingerprint == allApp.Fingerprint {
		t.Fatal("in-app flags do not change which frames identify the stack")
	}
	if !onlyFirst.Frames[0].InApp || onlyFirst.Frames[1].InApp || onlyFirst.Frames[2].InApp {
		t.Fatalf("frames = %+v, want only the first in app", onlyFirst.Frames)
	}
	// Frames that differ only outside the app group together.
	other := strings.Replace(trace, "vendor/http.py\", line 30, in post", "vendor/retry.py\", line 5, in again", 1)
	if Fingerprint(Input{StackTrace: other, InApp: "ynn"}).Fingerprint != onlyFirst.Fingerprint {
		t.Error("a library frame changed the fingerprint of a stack whose SDK marked it not in app")
	}
	for _, flags := range []string{"", "yn", "ynnn"} {
		if got := Fingerprint(Input{StackTrace: trace, InApp: flags}); got.Fingerprint != base.Fingerprint {
			t.Errorf("flags %q (not one per frame) changed the fingerprint", flags)
		}
	}
	if got := Fingerprint(Input{StackTrace: trace, InApp: "???"}); got.Fingerprint != base.Fingerprint {
		t.Error("unknown flags changed the fingerprint")
	}
}

// TestOwnFingerprintVariables: from version 4 an event's own fingerprint
// takes the variables a rule's may ({{ transaction }}, {{ error.type }},
// {{ tags.<key> }}), and {{ default }} alone is the default fingerprint,
// as Sentry reads them; version 3 keeps reading them as it did.
func TestOwnFingerprintVariables(t *testing.T) {
	t.Parallel()
	def := Fingerprint(Input{StackTrace: javaTrace})
	for _, fp := range [][]string{{"{{ default }}"}, {" {{default}} "}} {
		if got := Fingerprint(Input{StackTrace: javaTrace, Fingerprint: fp}); got.Fingerprint != def.Fingerprint || got.Rule != RuleStackTrace {
			t.Errorf("%q: %s %s, want the default %s", fp, got.Rule, got.Fingerprint, def.Fingerprint)
		}
		if v3, _ := FingerprintVersion(Input{StackTrace: javaTrace, Fingerprint: fp}, 3); v3.Rule != RuleCustom {
			t.Errorf("%q under version 3: rule %s, want custom as it was", fp, v3.Rule)
		}
	}
	byTx := func(tx string) Result {
		return Fingerprint(Input{StackTrace: javaTrace, Fingerprint: []string{"{{ default }}", "{{ transaction }}"},
			Attributes: map[string]string{"transaction": tx}})
	}
	a, b, a2 := byTx("/checkout"), byTx("/refund"), byTx("/checkout")
	if a.Fingerprint == b.Fingerprint || a.Fingerprint != a2.Fingerprint {
		t.Errorf("by transaction: /checkout %s, /refund %s, /checkout again %s: want two groups", a.Fingerprint, b.Fingerprint, a2.Fingerprint)
	}
	if want := []string{"custom", def.Fingerprint, "/checkout"}; strings.Join(a.Parts, "|") != strings.Join(want, "|") {
		t.Errorf("parts = %q, want %q", a.Parts, want)
	}
	got := Fingerprint(Input{StackTrace: javaTrace, Fingerprint: []string{"{{ error.type }}", "{{ tags.region }}", "{{ nonsense }}"},
		Attributes: map[string]string{"region": "eu"}})
	if want := []string{"custom", "java.lang.IllegalStateException", "eu", "{{ nonsense }}"}; strings.Join(got.Parts, "|") != strings.Join(want, "|") {
		t.Errorf("parts = %q, want %q (an unknown variable is text)", got.Parts, want)
	}
	if v3, _ := FingerprintVersion(Input{StackTrace: javaTrace, Fingerprint: []string{"{{ transaction }}"}, Attributes: map[string]string{"transaction": "/x"}}, 3); v3.Parts[1] != "{{ transaction }}" {
		t.Errorf("version 3 parts = %q, want the variable as text", v3.Parts)
	}
}

// TestNodeCoreFramesNotInApp: Node's own modules ("node:net", "node:fs",
// Node 14's bare "net.js") are not the application's, so the culprit is
// the application's frame under them.
func TestNodeCoreFramesNotInApp(t *testing.T) {
	t.Parallel()
	for _, top := range []string{
		"    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)",
		"    at TCPConnectWrap.afterConnect [as oncomplete] (net.js:1141:16)",
		"    at Object.openSync (node:fs:596:3)",
		"    at readFile (node:fs/promises:1032:20)",
		"    at Socket.emit (events.js:400:28)",
	} {
		trace := "Error: connect ECONNREFUSED 127.0.0.1:5432\n" + top + "\n" +
			"    at Client._connect (/app/node_modules/pg/lib/client.js:100:7)\n" +
			"    at loadUser (/app/src/users/repo.js:20:11)\n" +
			"    at async handler (/app/src/routes/users.js:9:5)\n"
		got := Fingerprint(Input{StackTrace: trace})
		if !strings.Contains(got.Culprit, "loadUser") {
			t.Errorf("%s: culprit %q, want loadUser's frame", top, got.Culprit)
		}
		for _, p := range got.Parts {
			if strings.Contains(p, "afterConnect") || strings.Contains(p, "openSync") || strings.Contains(p, "readFile") || strings.Contains(p, "Socket.emit") {
				t.Errorf("%s: part %q, want Node's frame out of the fingerprint", top, p)
			}
		}
	}
}

// TestRustPanicWithoutBacktrace: a Rust panic printed without its backtrace
// groups on its message, not on its thread or place, and is titled by it.
func TestRustPanicWithoutBacktrace(t *testing.T) {
	panicOn := func(thread, at string) Result {
		return Fingerprint(Input{StackTrace: "thread '" + thread + "' panicked at " + at + ":\norder 8812 has no lines\n" +
			"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"})
	}
	a, b := panicOn("main", "src/orders.rs:42:14"), panicOn("tokio-runtime-worker", "src/orders.rs:42:14")
	if a.Fingerprint != b.Fingerprint || a.Title != "panic: order <int> has no lines" {
		t.Errorf("panics on two threads: %q %q, titled %q", a.Fingerprint, b.Fingerprint, a.Title)
	}
	other := Fingerprint(Input{StackTrace: "thread 'main' panicked at src/orders.rs:42:14:\ncalled `Option::unwrap()` on a `None` value"})
	if other.Fingerprint == a.Fingerprint {
		t.Errorf("two panic messages made one group")
	}
	// A sender that puts the header line in the message: still the panic.
	headed := func(thread, msg string) Result {
		header := "thread '" + thread + "' panicked at src/config.rs:8:41:"
		return Fingerprint(Input{Message: header, StackTrace: header + "\n" + msg})
	}
	notFound := "called `Result::unwrap()` on an `Err` value: Os { code: 2, kind: NotFound }"
	if x, y := headed("main", notFound), headed("tokio-runtime-worker", notFound); x.Fingerprint != y.Fingerprint {
		t.Errorf("one panic on two threads with the header as message: two groups")
	}
	if x, y := headed("main", notFound), headed("main", "called `Result::unwrap()` on an `Err` value: ParseIntError { kind: InvalidDigit }"); x.Fingerprint == y.Fingerprint {
		t.Errorf("two panics at one place with the header as message: one group")
	}
	if x, y := headed("main", notFound), Fingerprint(Input{StackTrace: "thread 'main' panicked at src/main.rs:28:39:\n" + notFound}); x.Fingerprint == y.Fingerprint {
		t.Errorf("one panic message at two places: one group")
	}
}

// TestCulpritNames: a culprit is named as its language names a function:
// Rust's path and PHP's Class::method; a JVM class whose generated number
// was cut shows no bare "$".
func TestCulpritNames(t *testing.T) {
	for file, want := range map[string]string{
		"rust/panic_a.txt":            "shop::orders::ship",
		"rust/full_a.txt":             "shop::orders::ship",
		"java/release_npe_a.txt":      "com.acme.rides.eta.EtaFragment.render",
		"php/fatal_uncaught.txt":      `App\Service\Mailer::send`,
		"java/coroutine_cancel_a.txt": "com.acme.rides.sync.SyncWorker$doWork.invokeSuspend",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		if r := Fingerprint(Input{StackTrace: string(b)}); r.Culprit != want {
			t.Errorf("%s: culprit %q, want %q", file, r.Culprit, want)
		}
	}
}

// TestAnonymousFrameCulprit: an anonymous function's culprit is its
// module path, as a named function's in the same file shows it.
func TestAnonymousFrameCulprit(t *testing.T) {
	named := Fingerprint(Input{StackTrace: "Error: probe\n    at handle (/srv/app/js/server.js:36:28)\n    at Object.<anonymous> (/srv/app/js/server.js:67:3)"})
	anon := Fingerprint(Input{StackTrace: "Error: probe\n    at /srv/app/js/server.js:36:28\n    at Object.<anonymous> (/srv/app/js/server.js:67:3)"})
	if named.Culprit != "js/server.js in handle" || anon.Culprit != "js/server.js" {
		t.Errorf("culprits %q and %q, want js/server.js in handle and js/server.js", named.Culprit, anon.Culprit)
	}
}

// TestRustPanicForms: the forms a Rust panic takes in the wild group as one
// problem each: anyhow's numbered causes are message (ids parameterised),
// a message of several lines is read whole, log-panics' "'msg': file"
// and a logger's prefix are read, and libraries' frames and v0 closures
// are not the culprit.
func TestRustPanicForms(t *testing.T) {
	fp := func(s string) Result { return Fingerprint(Input{Message: firstLines(s, 1), StackTrace: s}) }
	anyhow := func(order, shard, ip string) string {
		return "thread 'main' panicked at src/main.rs:30:10:\ncalled `Result::unwrap()` on an `Err` value: failed to load order\n\nCaused by:\n" +
			"    0: order " + order + " not found in shard " + shard + "\n    1: connection to " + ip + ":5432 refused\n" +
			"note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"
	}
	if a, b := fp(anyhow("8812", "3", "10.0.0.3")), fp(anyhow("77", "4", "10.0.0.4")); a.Fingerprint != b.Fingerprint || len(a.Frames) != 0 {
		t.Errorf("anyhow causes with other ids: two groups, or causes read as frames (%d)", len(a.Frames))
	}
	pretty := func(kind string) string {
		return "thread 'main' panicked at src/main.rs:30:10:\ncalled `Result::unwrap()` on an `Err` value: Error {\n    kind: " + kind +
			",\n    message: \"config invalid\",\n}\nnote: run with `RUST_BACKTRACE=1`"
	}
	if fp(pretty("PermissionDenied")).Fingerprint == fp(pretty("NotFound")).Fingerprint {
		t.Errorf("two pretty-printed errors of one place: one group")
	}
	const frames = "\nstack backtrace:\n   0: rust_begin_unwind\n   1: sqlx_core::pool::inner::PoolInner<DB>::acquire::{{closure}}::h0123456789abcdef\n" +
		"   2: shop::orders::ship::{closure#0}\n   3: shop::main\n"
	plain := fp("thread 'main' panicked at src/orders.rs:42:14:\norder 7 has no lines" + frames)
	for _, s := range []string{
		"thread 'main' panicked at 'order 8 has no lines': src/orders.rs:42" + frames,
		"[2026-11-30T11:00:00Z ERROR shop] thread 'main' panicked at src/orders.rs:42:14:\norder 9 has no lines" + frames,
	} {
		if r := fp(s); r.Fingerprint != plain.Fingerprint || r.Title != "panic: order <int> has no lines" {
			t.Errorf("%q: title %q, another group: %v", s[:40], r.Title, r.Fingerprint != plain.Fingerprint)
		}
	}
	if plain.Culprit != "shop::orders::ship" {
		t.Errorf("culprit %q, want shop::orders::ship (not sqlx's, no closure)", plain.Culprit)
	}
}

// TestRubyScriptCulprit: a file of the current directory reads "file in
// method", as any other path does.
func TestRubyScriptCulprit(t *testing.T) {
	r := Fingerprint(Input{StackTrace: "script.rb:2:in `helper': boom (RuntimeError)\n\tfrom script.rb:5:in `<main>'"})
	if r.Culprit != "script.rb in helper" {
		t.Errorf("culprit %q, want script.rb in helper", r.Culprit)
	}
}

// TestCulpritWithoutInAppFrames: when no frame is in-app (a library's
// own error), the culprit is the innermost frame, in either print order,
// as Sentry shows it; it was empty.
func TestCulpritWithoutInAppFrames(t *testing.T) {
	python := "Traceback (most recent call last):\n" +
		"  File \"/usr/lib/python3.11/site-packages/a/x.py\", line 5, in outer\n    inner()\n" +
		"  File \"/usr/lib/python3.11/site-packages/b/y.py\", line 9, in inner\n    raise e\nValueError: lib only"
	if r := Fingerprint(Input{StackTrace: python}); !strings.Contains(r.Culprit, "inner") {
		t.Errorf("python: culprit %q, want the innermost frame (inner)", r.Culprit)
	}
	java := "java.lang.IllegalStateException: lib only\n" +
		"\tat org.springframework.beans.Factory.create(Factory.java:10)\n" +
		"\tat org.springframework.boot.App.run(App.java:20)"
	if r := Fingerprint(Input{StackTrace: java}); !strings.Contains(r.Culprit, "Factory.create") {
		t.Errorf("java: culprit %q, want the innermost frame (Factory.create)", r.Culprit)
	}
}
