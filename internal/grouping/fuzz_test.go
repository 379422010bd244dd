package grouping

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzFingerprint checks that no input panics, that results are
// deterministic, and that titles stay short and valid.
func FuzzFingerprint(f *testing.F) {
	seeds := []string{
		"", "user 42 not found", "::", "[::1]", "0x", "00-", "2024-01-02T", "Mon, ", "1.5", "-1",
		"key=\"unterminated", "a@b.c", "http://", "#0 {main}", "at ", "File \"", "panic: x\n\ngoroutine 1 [running]:\n",
		"x.rb:1:in `", "System.X: y\n   at A.B(", "f@http://x:1:2", "Caused by: ", "  | File \"x\", line 1, in f",
	}
	for _, s := range seeds {
		f.Add(s, s)
	}
	for _, p := range []string{"go/nil_deref_a.txt", "java/caused_by_a.txt", "php/exception_a.txt"} {
		if b, err := os.ReadFile(filepath.Join("testdata", p)); err == nil {
			f.Add("", string(b))
		}
	}
	f.Fuzz(func(t *testing.T, msg, trace string) {
		in := Input{Message: msg, StackTrace: trace}
		a, b := Fingerprint(in), Fingerprint(in)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("Fingerprint(%q, %q) is not deterministic:\n%+v\n%+v", msg, trace, a, b)
		}
		if n := utf8.RuneCountInString(a.Title); n > maxTitle {
			t.Errorf("Title has %d runes, want at most %d", n, maxTitle)
		}
		if utf8.ValidString(msg) && utf8.ValidString(trace) && !utf8.ValidString(a.Title) {
			t.Errorf("Title %q is not valid UTF-8", a.Title)
		}
		if p := Parameterize(msg); p != Parameterize(msg) {
			t.Errorf("Parameterize(%q) is not deterministic", msg)
		}
	})
}

// FuzzRules checks that no rule text panics the parser, that an error is a
// *RuleError with a line the text has, and that rules that parse apply to
// a trace without panicking.
func FuzzRules(f *testing.F) {
	for _, s := range []string{
		"error.type:A -> a", `message:"x \" y" -> {{ default }}, "b c" title="{{ error.type }}"`, "!stack.module:[a-z]* -> x",
		"stack.abs_path:**/vendor/** -app", "family:javascript,native stack.function:\\* ^-group v+app", "app:yes +group",
		"[ app:yes ] | x -group", "a:\"", "x:[", "error.type:\\", "tags.:x -> y", "-> {{", "level:warning -> {{ tags.region }}",
	} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, fp, st string) {
		r, err := ParseRules(fp, st)
		if err != nil {
			re, ok := err.(*RuleError)
			if !ok || re.Line < 1 || (re.Field != "fingerprint" && re.Field != "stack_trace") {
				t.Fatalf("ParseRules error %v (%T)", err, err)
			}
			return
		}
		for _, trace := range []string{pyLedger, javaPayout, jsCart, ""} {
			in := Input{Message: "m", StackTrace: trace, Level: "error", Rules: r, Attributes: map[string]string{"region": "eu"}}
			if a, b := Fingerprint(in), Fingerprint(in); a.Fingerprint != b.Fingerprint {
				t.Fatalf("rules %q / %q are not deterministic", fp, st)
			}
		}
	})
}
