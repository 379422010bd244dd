package chat

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// unit is what a target counts its limits in. Where a target does not say
// (Slack's "characters"), the larger count is taken: UTF-8 bytes are never
// fewer than UTF-16 code units, which are never fewer than code points.
type unit int

const (
	inBytes unit = iota // UTF-8 bytes: Teams, Google Chat, ntfy, Slack
	inRunes             // code points: Mattermost
	inUTF16             // UTF-16 code units: Discord
)

// count is the size of s in u.
func (u unit) count(s string) int {
	switch u {
	case inRunes:
		return utf8.RuneCountInString(s)
	case inUTF16:
		n := 0
		for _, r := range s {
			n += utf16.RuneLen(r)
		}
		return n
	}
	return len(s)
}

// ellipsis ends every cut text.
const ellipsis = "…"

// escaper returns what a rune becomes in a target's markup; nil keeps
// every rune as it is.
type escaper func(r rune, b *strings.Builder)

// fit returns s escaped with esc in at most max units of u. When the whole
// of s does not fit, it returns as much of it as does, cut between runes
// (never inside a UTF-8 sequence, a surrogate pair or an escape), with
// trailing spaces dropped and "…" added, all within max.
func fit(s string, max int, u unit, esc escaper) string {
	if max <= 0 || s == "" {
		return ""
	}
	room := max - u.count(ellipsis)
	var b, piece strings.Builder
	size, cut := 0, -1 // cut: the longest prefix that leaves room for "…"
	for _, r := range s {
		if size <= room {
			cut = b.Len()
		}
		piece.Reset()
		if esc != nil {
			esc(r, &piece)
		} else {
			piece.WriteRune(r)
		}
		n := u.count(piece.String())
		if size+n > max {
			if cut < 0 {
				return ""
			}
			return strings.TrimRightFunc(b.String()[:cut], unicode.IsSpace) + ellipsis
		}
		b.WriteString(piece.String())
		size += n
	}
	return b.String()
}

// line puts s on one line: control characters, white space and line or
// paragraph separators become single spaces (none at either end),
// bidirectional overrides (which can make a title read backwards) are
// dropped, and each run of invalid UTF-8 becomes one U+FFFD.
func line(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space, bad := false, false
	for i, r := range s {
		if r == utf8.RuneError {
			if _, w := utf8.DecodeRuneInString(s[i:]); w == 1 {
				if bad {
					continue
				}
				bad = true
			}
		} else {
			bad = false
		}
		switch {
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			continue
		case unicode.IsSpace(r), unicode.IsControl(r), r == 0x2028, r == 0x2029:
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// paragraphs keeps s's line breaks (at most one blank line in a row) and
// cleans each line as line does, for free text such as a summary.
func paragraphs(s string) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\r\n", "\n")
	var out []string
	blank := false
	for _, l := range strings.Split(s, "\n") {
		l = line(l)
		if l == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// clipMarked is clip that says it cut: the text ends with "…" (n runes in
// all), so that a target whose own limit is n, which then cuts nothing,
// still shows the text was longer.
func clipMarked(s string, n int) string {
	if c := clip(s, n); len(c) < len(s) {
		return clip(c, n-1) + "…"
	}
	return s
}

// clip cuts s to at most n runes before any rendering, so that a huge
// input (a 100,000-character summary) costs no more than what any target
// could show of it.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}
