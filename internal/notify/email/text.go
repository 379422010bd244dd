package email

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Subject and field lengths, in runes.
const (
	maxSubject = 200
	maxProject = 60
	maxFact    = 500
)

// subject joins head, body and tail on one line of at most maxSubject
// runes, cutting body (the attacker-controlled part) to make room.
func subject(head, body, tail string) string {
	room := maxSubject - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	return cut(line(head+cut(line(body), max(room, 1))+tail), maxSubject)
}

// line puts s on one line: control characters and line or paragraph
// separators become spaces, bidirectional overrides (which can make a
// title read backwards) are dropped, and runs of spaces collapse.
func line(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return -1
		case unicode.IsControl(r), r == 0x2028, r == 0x2029:
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return strings.Join(strings.Fields(s), " ")
}

// cut returns s cut to at most n runes, the last being "…" when cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRightFunc(string(r[:n-1]), unicode.IsSpace) + "…"
}

// word returns a short label such as a severity, safe for a subject.
func word(s string) string {
	if s = cut(line(s), 20); s == "" {
		return "ticket"
	}
	return s
}

// reason returns the note shown for an alert's reason; a new ticket needs none.
func reason(r string) string {
	switch r {
	case "spike", "regression", "unignored":
		return r
	}
	return ""
}
