package view

import (
	"testing"

	"github.com/errata-dev/errata/internal/ingest"
)

// TestFramesShowFilesAsSent: the event detail's frames name the file as the
// trace prints it, its path whole and a build's hash and all (a URL
// without its query), while grouping drops the hash.
func TestFramesShowFilesAsSent(t *testing.T) {
	trace := "TypeError: x is undefined\n    at p (https://shop.example.com/static/main.3f9a1c.js?v=2:1:22)\n    at https://shop.example.com/static/vendor.js:3:9"
	fs := frames(trace, "")
	if len(fs) != 2 {
		t.Fatalf("frames = %+v, want 2", fs)
	}
	if fs[0].File != "https://shop.example.com/static/main.3f9a1c.js" || fs[1].File != "https://shop.example.com/static/vendor.js" ||
		fs[0].Line == nil || *fs[0].Line != 1 || *fs[0].Column != 22 {
		t.Errorf("frames = %+v %+v, want …/main.3f9a1c.js:1:22 then …/vendor.js", fs[0], fs[1])
	}
	py := frames("Traceback (most recent call last):\n  File \"app/pay.py\", line 12, in charge\n    raise ValueError(\"x\")\nValueError: x", "")
	if len(py) != 1 || py[0].File != "app/pay.py" {
		t.Errorf("python frames = %+v, want app/pay.py", py)
	}
}

// TestFrameLinesOfEveryLanguage: the line (and column) of a frame is found
// where each language prints it.
func TestFrameLinesOfEveryLanguage(t *testing.T) {
	for _, c := range []struct {
		name, trace string
		lines       []int
	}{
		{"go", "panic: boom\n\ngoroutine 1 [running]:\ngithub.com/acme/app/store.Put()\n\t/src/app/store/store.go:33 +0x1d\nmain.main()\n\t/src/app/main.go:20 +0x25\n", []int{33, 20}},
		{"ruby", "app/models/cart.rb:3:in `total': undefined method (NoMethodError)\n\tfrom app/controllers/cart_controller.rb:10:in `show'\n", []int{3, 10}},
		{"python", "Traceback (most recent call last):\n  File \"app/pay.py\", line 12, in charge\n    raise ValueError(\"x\")\nValueError: x", []int{12}},
		{"java", "java.lang.IllegalStateException: x\n\tat com.acme.Billing.charge(Billing.java:42)\n", []int{42}},
	} {
		fs := frames(c.trace, "")
		var got []int
		for _, f := range fs {
			if f.Line == nil {
				got = append(got, -1)
				continue
			}
			got = append(got, *f.Line)
		}
		if len(got) != len(c.lines) {
			t.Errorf("%s: lines %v, want %v", c.name, got, c.lines)
			continue
		}
		for i := range got {
			if got[i] != c.lines[i] {
				t.Errorf("%s: lines %v, want %v", c.name, got, c.lines)
				break
			}
		}
	}
}

// TestFramesTakeTheSDKsInApp: a Sentry SDK's in-app flags (attribute
// sentry.in_app, one per parsed frame) win over the parser's judgement, as
// in grouping; flags of another count are ignored.
func TestFramesTakeTheSDKsInApp(t *testing.T) {
	trace := "Error: boom\n    at run (node:internal/process/task_queues:95:5)\n    at appFn (/app/src/handler.js:3:9)\n    at vendorFn (/app/node_modules/lib/index.js:7:1)"
	parsed := frames(trace, "")
	if len(parsed) != 3 || parsed[0].InApp || !parsed[1].InApp || parsed[2].InApp {
		t.Fatalf("parsed frames %+v: this test wants the parser to judge app code only in app", parsed)
	}
	got := frames(trace, "yny")
	if !got[0].InApp || got[1].InApp || !got[2].InApp {
		t.Errorf("with the SDK's flags yny: %v %v %v", got[0].InApp, got[1].InApp, got[2].InApp)
	}
	if got := frames(trace, "yn"); got[0].InApp || !got[1].InApp {
		t.Errorf("flags of another count changed the frames")
	}
}

// TestFramesShowNodeInternalsAsPrinted: Node prints its own modules as
// node:internal/…, which the parser reads as internal/….js; the detail
// shows what was printed.
func TestFramesShowNodeInternalsAsPrinted(t *testing.T) {
	fs := frames("Error: e\n    at a (/srv/app/src/h.js:1:2)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)", "")
	if len(fs) != 2 || fs[0].File != "/srv/app/src/h.js" || fs[1].File != "node:internal/process/task_queues" || fs[1].Line == nil || *fs[1].Line != 95 {
		t.Errorf("frames = %+v", fs)
	}
}

// TestContextOfAURLWithAQuery: a Sentry frame's source context reaches the
// parsed frame when its abs_path carries a query or a fragment, which the
// parsed frame's file leaves out.
func TestContextOfAURLWithAQuery(t *testing.T) {
	for _, abs := range []string{"http://shop/static/d.js?v=1", "http://shop/static/d.js#top", "http://shop/static/d.js"} {
		fs := frames("TypeError: ctx\n    at g (http://shop/static/d.js?v=1:3:7)", "")
		withContext(fs, []ingest.FrameSource{{File: abs, Line: 3, Text: "  x.y()", Pre: []string{"function f(){"}, Post: []string{"}"}}})
		if len(fs) != 1 || fs[0].Context == nil || fs[0].Context.Line != "  x.y()" {
			t.Errorf("abs_path %s: frames %+v, want the SDK's context on the frame", abs, fs)
		}
	}
}

// TestContextOfAPathWithAHash: a path that is not a URL keeps its '#' (a
// C# directory), so two files of one such directory are not one file.
func TestContextOfAPathWithAHash(t *testing.T) {
	fs := frames("System.Exception: x\n   at App.A.Run() in /src/C#/a.cs:line 3", "")
	if len(fs) != 1 || fs[0].File != "/src/C#/a.cs" {
		t.Fatalf("frames = %+v, want /src/C#/a.cs", fs)
	}
	withContext(fs, []ingest.FrameSource{{File: "/src/C#/b.cs", Line: 3, Text: "b's line"}})
	if fs[0].Context != nil {
		t.Errorf("a.cs took b.cs's context: %+v", fs[0].Context)
	}
}
