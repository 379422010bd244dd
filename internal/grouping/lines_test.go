package grouping

import (
	"strings"
	"testing"
)

// TestFrameLines checks that every frame of the corpus points at the line it
// starts on: in range, in order, and a line naming the frame's file or
// function.
func TestFrameLines(t *testing.T) {
	t.Parallel()
	for name, trace := range corpusTraces(t) {
		st := ParseStack(trace)
		lines := splitLines(trace)
		if len(st.Lines) != len(st.Frames) {
			t.Errorf("%s: %d lines for %d frames", name, len(st.Lines), len(st.Frames))
			continue
		}
		prev := -1
		for k, n := range st.Lines {
			if n <= prev || n >= len(lines) {
				t.Errorf("%s: frame %d at line %d after line %d of %d", name, k, n, prev, len(lines))
				break
			}
			prev = n
			f, l := st.Frames[k], lines[n]
			if f.Function != "" && !strings.Contains(l, f.Function) && (f.File == "" || !strings.Contains(l, f.File)) &&
				!strings.Contains(lines[min(n+1, len(lines)-1)], f.File) {
				t.Errorf("%s: frame %d %+v starts at line %d %q", name, k, f, n, l)
			}
		}
	}
}

// TestPHPBackslashType: a lone "\" where a PHP type belongs used to panic
// (found by FuzzParseStack in internal/web).
func TestPHPBackslashType(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"#0 \n\\", "#0 x\n\\: y", "Fatal error: Uncaught \\: x in /a.php:3"} {
		ParseStack(s)
		Fingerprint(Input{StackTrace: s})
	}
}
