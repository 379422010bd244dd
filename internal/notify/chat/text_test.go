package chat

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		s    string
		max  int
		u    unit
		esc  escaper
		want string
	}{
		{"hello", 5, inBytes, nil, "hello"},
		{"hello!", 5, inBytes, nil, "he…"},   // "…" is 3 bytes
		{"hello!", 5, inRunes, nil, "hell…"}, // and 1 code point
		{"hello world", 8, inRunes, nil, "hello w…"},
		{"hello world", 7, inRunes, nil, "hello…"}, // the space before the cut goes
		{"ab", 1, inBytes, nil, ""},                // no room even for "…"
		{"", 10, inBytes, nil, ""},
		{"x", 0, inBytes, nil, ""},
		{"😀😀😀", 5, inUTF16, nil, "😀😀…"}, // 2 units each, never half a pair
		{"😀😀😀", 4, inUTF16, nil, "😀…"},
		{"😀😀😀", 6, inUTF16, nil, "😀😀😀"},
		{"😀😀😀", 10, inBytes, nil, "😀…"}, // 4 bytes each, never half a sequence
		{"漢漢漢", 8, inBytes, nil, "漢…"},
		{"a&b&c", 10, inBytes, slackEscape, "a&amp;b…"}, // never half an escape
		{"a&b&c", 9, inBytes, slackEscape, "a&amp;…"},
		{"a&b&c", 8, inBytes, slackEscape, "a…"},
		{"a&b&c", 13, inBytes, slackEscape, "a&amp;b&amp;c"},
		{"*x*", 6, inUTF16, discordEscape, `\*x\*`},
		{"*x*", 4, inUTF16, discordEscape, `\*x…`},
	}
	for _, c := range cases {
		got := fit(c.s, c.max, c.u, c.esc)
		if got != c.want {
			t.Errorf("fit(%q, %d, %d) = %q, want %q", c.s, c.max, c.u, got, c.want)
		}
		if n := c.u.count(got); n > c.max {
			t.Errorf("fit(%q, %d, %d) is %d units", c.s, c.max, c.u, n)
		}
	}
}

// TestFitEveryCut cuts texts of mixed widths at every length in every unit:
// the result is valid UTF-8, within the limit, and a prefix of the whole.
func TestFitEveryCut(t *testing.T) {
	t.Parallel()
	s := "a😀漢é\u0301 b&<>" + strings.Repeat("😀x", 5)
	for _, u := range []unit{inBytes, inRunes, inUTF16} {
		for _, esc := range []escaper{nil, slackEscape, discordEscape, htmlEscape} {
			whole := fit(s, 1<<20, u, esc)
			for n := 0; n <= u.count(whole)+1; n++ {
				got := fit(s, n, u, esc)
				if !utf8.ValidString(got) || u.count(got) > n {
					t.Fatalf("fit(%q, %d, %d) = %q", s, n, u, got)
				}
				if !strings.HasPrefix(whole, strings.TrimSuffix(got, ellipsis)) {
					t.Fatalf("fit(%q, %d, %d) = %q, not a prefix of %q", s, n, u, got, whole)
				}
			}
		}
	}
}

func TestLine(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"  a\tb\r\nc\x00d ":     "a b c d",
		"evil\u202egnirts":      "evilgnirts",
		"bad \xff byte":         "bad \uFFFD byte",
		"sep\u2028arated\u2029": "sep arated",
	}
	for in, want := range cases {
		if got := line(in); got != want {
			t.Errorf("line(%q) = %q, want %q", in, got, want)
		}
	}
	if got := paragraphs("a\r\n\r\n\r\n b \n\x00\nc"); got != "a\n\nb\n\nc" {
		t.Errorf("paragraphs = %q", got)
	}
}

func TestSafeURL(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"https://errata.example.com/tickets/tkt_1":         "https://errata.example.com/tickets/tkt_1",
		"http://127.0.0.1:8080/p?from=a%3Ab&to=c":          "http://127.0.0.1:8080/p?from=a%3Ab&to=c",
		"https://x.example/a(b)|c":                         "https://x.example/a%28b%29%7Cc",
		"javascript:alert(1)":                              "",
		"https://":                                         "",
		"https:///path":                                    "",
		"https://x.example/a b":                            "",
		"https://x.example/<script>":                       "",
		"https://x.example/\"":                             "",
		"https://x.example/" + strings.Repeat("a", maxURL): "",
	}
	for in, want := range cases {
		if got := safeURL(in); got != want {
			t.Errorf("safeURL(%q) = %q, want %q", in, got, want)
		}
	}
}
