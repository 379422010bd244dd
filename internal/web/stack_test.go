package web

import (
	"slices"
	"strings"
	"testing"
)

// frameKinds describes items as "app", "lib" or "text" with their line counts,
// "app2" for a two-line application frame.
func frameKinds(items []stackItem) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		k := "text"
		switch {
		case it.Frame && it.App:
			k = "app"
		case it.Frame:
			k = "lib"
		}
		if len(it.Lines) > 1 {
			k += string(rune('0' + len(it.Lines)))
		}
		out = append(out, k)
	}
	return out
}

func TestParseStack(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, trace, lang string
		want              []string
	}{
		{"go panic", "panic: boom\n\ngoroutine 1 [running]:\nmain.charge(...)\n\t/app/pay.go:12 +0x1d\n" +
			"github.com/lib/pq.(*conn).Exec(0xc0000)\n\t/root/go/pkg/mod/github.com/lib/pq@v1.10.9/conn.go:80 +0x2a\n" +
			"net/http.(*conn).serve(0xc0001)\n\t/usr/local/go/src/net/http/server.go:2039 +0x3b\n" +
			"runtime.goexit()\n\t/usr/lib/go/src/runtime/asm_amd64.s:1700 +0x1\nexit status 2",
			"go", []string{"text", "text", "text", "app2", "lib2", "lib2", "lib2", "text"}},
		{"go runtime stack", "goroutine 7 [running]:\nruntime/debug.Stack()\n\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e\n" +
			"example.com/shop/orders.Place({0x1, 0x2})\n\t/home/ci/shop/orders/place.go:44 +0x1d",
			"go", []string{"text", "lib2", "app2"}},
		{"python", "Traceback (most recent call last):\n  File \"/app/x.py\", line 3, in f\n    charge()\n" +
			"  File \"/usr/lib/python3.12/site-packages/requests/api.py\", line 59, in get\n    return request('get')\n" +
			"  File \"/usr/local/lib/python3.12/dist-packages/urllib3/pool.py\", line 7, in urlopen\n" +
			"  File \"/app/pay/card.py\", line 9, in charge\n    raise ValueError(\"declined\")\n    ^^^^^^^^^^^^^^^^\n" +
			"ValueError: declined",
			"python", []string{"text", "app2", "lib2", "lib", "app3", "text"}},
		{"java", "java.lang.IllegalStateException: closed\n\tat com.acme.Foo.bar(Foo.java:42)\n" +
			"\tat java.base/java.util.ArrayList.forEach(ArrayList.java:1596)\n\tat javax.servlet.http.HttpServlet.service(HttpServlet.java:750)\n" +
			"\tat jdk.internal.reflect.Method.invoke(Method.java:1)\n\tat sun.reflect.Gen.invoke(Unknown Source)\n" +
			"\tat kotlin.collections.Map.get(Map.kt:3)\n\tat com.acme.Main.main(Main.java:7)\n" +
			"Caused by: java.io.IOException: disk full\n\tat com.acme.Disk.write(Disk.java:7)\n\t... 5 more",
			"java", []string{"text", "app", "lib", "lib", "lib", "lib", "lib", "app", "text", "app", "text"}},
		{"node", "TypeError: x is not a function\n    at charge (/app/src/pay.js:10:5)\n" +
			"    at Layer.handle (/app/node_modules/express/lib/router/layer.js:95:5)\n" +
			"    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\n" +
			"    at async Promise.all (index 0)\n    at main (/app/src/x.js:1:1)",
			"javascript", []string{"text", "app", "lib", "lib", "lib", "app"}},
		{"crlf", "TypeError: x\r\n    at f (/app/a.js:1:2)\r\n", "javascript", []string{"text", "app", "text"}},
		{"unknown", "something went wrong\n  somewhere\n", "", []string{"text", "text", "text"}},
		{"empty", "", "", []string{"text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lang, items := parseStack(tc.trace)
			if got := frameKinds(items); lang != tc.lang || !slices.Equal(got, tc.want) {
				t.Errorf("parseStack = %q %v, want %q %v", lang, got, tc.lang, tc.want)
			}
			checkStackLines(t, tc.trace, items)
		})
	}
}

func TestStackView(t *testing.T) {
	t.Parallel()
	trace := "TypeError: x\n    at f (/app/a.js:1:2)\n    at g (/app/node_modules/a/b.js:1:2)\n" +
		"    at h (node:internal/x:1:2)\n    at i (/app/b.js:3:4)\n    at j (/app/c.js:3:4)\n\n"
	v := newStackView(trace)
	kinds := []string{}
	for _, b := range v.Blocks {
		kinds = append(kinds, b.Kind)
	}
	if want := []string{"text", "app", "library", "app", "app"}; !slices.Equal(kinds, want) {
		t.Fatalf("blocks %v, want %v", kinds, want)
	}
	if lib := v.Blocks[2]; lib.Frames != 2 || lib.Text != "    at g (/app/node_modules/a/b.js:1:2)\n    at h (node:internal/x:1:2)" {
		t.Errorf("library block %+v", lib)
	}
	if v.AppFrames != 3 || v.LibraryFrames != 2 || v.Language != "javascript" {
		t.Errorf("view %+v", v)
	}
}

// checkStackLines fails unless items hold every line of trace once, in order.
func checkStackLines(t *testing.T, trace string, items []stackItem) {
	t.Helper()
	var got []string
	for _, it := range items {
		if len(it.Lines) == 0 {
			t.Fatalf("an item without lines in %q", trace)
		}
		if !it.Frame && len(it.Lines) != 1 {
			t.Fatalf("a plain item of %d lines in %q", len(it.Lines), trace)
		}
		got = append(got, it.Lines...)
	}
	want := strings.Split(trace, "\n")
	for k, l := range want {
		want[k] = strings.TrimSuffix(l, "\r")
	}
	if !slices.Equal(got, want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
}

// FuzzParseStack checks that no input panics and that every line lands in
// exactly one frame or plain line.
func FuzzParseStack(f *testing.F) {
	for _, s := range []string{
		"", "\n", "\r\n\r", "goroutine 1 [running]:\nmain.main()\n\t/app/main.go:3 +0x1",
		"goroutine 1 [running]:\nmain.main()\n", "panic: x\n\ngoroutine 1 [running]:\ncreated by main.f\n\t/a.go:1 +0x1",
		"Traceback (most recent call last):\n  File \"/app/x.py\", line 3, in f\n    g()\nValueError: v",
		"  File \"", "\tat com.acme.Foo.bar(Foo.java:42)\n\t... 3 more", "    at fn (/app/src/x.js:10:5)",
		"at ", "f@http://x:1:2", "#0 /x.php(3): f()\n#1 {main}", "x.rb:1:in `f'\n\tfrom y.rb:2:in `g'",
		"System.X: y\n   at A.B() in C:\\a.cs:line 3", "   at A.B(", "\t\t\t", "  | File \"x\", line 1, in f",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, items := parseStack(s)
		checkStackLines(t, s, items)
		v := newStackView(s)
		n := 0
		for _, b := range v.Blocks {
			if b.Kind == "library" {
				n += b.Frames
			}
		}
		if n != v.LibraryFrames {
			t.Fatalf("library blocks hold %d frames, counted %d", n, v.LibraryFrames)
		}
	})
}
