package grouping

import (
	"strings"
	"testing"
)

func TestCutLinePrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		cut            bool
	}{
		{"adb logcat",
			"08-30 09:41:05.117 31544 31544 E AndroidRuntime: java.lang.NullPointerException: boom\n" +
				"08-30 09:41:05.117 31544 31544 E AndroidRuntime: \tat a.B.c(B.java:1)\n" +
				"08-30 09:41:05.118 31544 31544 E AndroidRuntime: \tat a.B.d(B.java:2)",
			"java.lang.NullPointerException: boom\n\tat a.B.c(B.java:1)\n\tat a.B.d(B.java:2)", true},
		{"heroku, first line without the prefix",
			"fail: Kestrel[13]\n" +
				"2021-09-07T17:39:32.536764+00:00 app[web.1]:       System.Exception: x\n" +
				"2021-09-07T17:39:32.536779+00:00 app[web.1]:          at A.B()\n" +
				"2021-09-07T17:39:32.536790+00:00 app[web.1]:          at A.C()\n" +
				"2021-09-07T17:39:32.536802+00:00 app[web.1]:          at A.D()",
			"fail: Kestrel[13]\n      System.Exception: x\n         at A.B()\n         at A.C()\n         at A.D()", true},
		{"docker compose",
			"web_1  | Traceback (most recent call last):\nweb_1  |   File \"a.py\", line 1, in f\nweb_1  | KeyError: 'x'",
			"Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nKeyError: 'x'", true},
		{"java trace has none",
			"java.lang.IllegalStateException: a: b\n\tat a.B.c(B.java:1)\n\tat a.B.d(B.java:2)\nCaused by: java.io.IOException: c\n\tat a.B.e(B.java:3)",
			"", false},
		{"two lines are not enough",
			"E AndroidRuntime: x\nE AndroidRuntime: y", "", false},
		{"a prefix on few lines",
			"key: a\nkey: b\n\tat a.B.c(B.java:1)\n\tat a.B.d(B.java:2)\n\tat a.B.e(B.java:3)", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := cutLinePrefix(splitLines(tt.in))
			if ok != tt.cut {
				t.Fatalf("cut = %v, want %v (%q)", ok, tt.cut, got)
			}
			if ok && strings.Join(got, "\n") != tt.want {
				t.Errorf("got  %q\nwant %q", strings.Join(got, "\n"), tt.want)
			}
		})
	}
}

// TestParseGoReindented checks the Go traces version 2 reads and version 1
// did not: locations indented by spaces, none at all, an indented header, no
// header.
func TestParseGoReindented(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, trace string }{
		{"spaces", "panic: boom\n\ngoroutine 1 [running]:\nmain.run(0x1)\n        /src/app/main.go:9 +0x1d\nmain.main()\n        /src/app/main.go:3 +0x2a\n"},
		{"no indentation", "panic: boom\n\ngoroutine 7 [running]:\nmain.run(0x1)\n/src/app/main.go:9 +0x1d\nmain.main()\n/src/app/main.go:3 +0x2a\n"},
		{"indented header", "    panic: boom\n    goroutine 7 [running]:\n    main.run(0x1)\n        /src/app/main.go:9 +0x1d\n    main.main()\n        /src/app/main.go:3 +0x2a\n"},
		{"no header", "boom\n        main.run(0x1)\n                /src/app/main.go:9 +0x1d\n        main.main()\n                /src/app/main.go:3 +0x2a\n"},
	}
	want := []string{"main:run", "main:main"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := parseStack(tt.trace, current)
			var got []string
			for _, f := range st.Frames {
				got = append(got, f.key())
			}
			if strings.Join(got, " ") != strings.Join(want, " ") || st.Language != "go" {
				t.Errorf("version 2: %s frames %q, want go %q", st.Language, got, want)
			}
			if v1 := parseStack(tt.trace, algorithms[1]); len(v1.Frames) != 0 {
				t.Errorf("version 1 read %d frames, want none (version 1 must not change)", len(v1.Frames))
			}
		})
	}
}
