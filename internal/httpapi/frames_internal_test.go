package httpapi

import "testing"

// TestFramesShowFilesAsSent: the event detail's frames name the file as the
// trace prints it, a build's hash and all, while grouping drops the hash.
func TestFramesShowFilesAsSent(t *testing.T) {
	trace := "TypeError: x is undefined\n    at p (https://shop.example.com/static/main.3f9a1c.js?v=2:1:22)\n    at https://shop.example.com/static/vendor.js:3:9"
	fs := frames(trace)
	if len(fs) != 2 {
		t.Fatalf("frames = %+v, want 2", fs)
	}
	if fs[0].File != "main.3f9a1c.js" || fs[1].File != "vendor.js" || fs[0].Line == nil || *fs[0].Line != 1 || *fs[0].Column != 22 {
		t.Errorf("frames = %+v %+v, want main.3f9a1c.js:1:22 then vendor.js", fs[0], fs[1])
	}
	py := frames("Traceback (most recent call last):\n  File \"app/pay.py\", line 12, in charge\n    raise ValueError(\"x\")\nValueError: x")
	if len(py) != 1 || py[0].File != "pay.py" || py[0].Module != "app/pay.py" {
		t.Errorf("python frames = %+v, want pay.py in app/pay.py", py)
	}
}
