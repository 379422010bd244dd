// Package text holds the one rule for the strings people give the
// management API and the dashboard (CONTRACT 8, "Hostile input, round
// three"): UTF-8 with no control character but tab and newline. Such a
// character is never data a person meant (U+0000 is refused by PostgreSQL,
// the others hide or forge text where names are shown), so a request
// carrying one is refused with 422 naming the field, on both databases.
package text

import (
	"unicode"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/problem"
)

// Fault says what is wrong with s ("" when nothing): a control character
// (Unicode category Cc: U+0000–U+001F, U+007F and the C1 controls
// U+0080–U+009F) other than tab and newline, or bytes that are not UTF-8.
func Fault(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf { // ASCII: the common case, without decoding
			if (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f {
				return "must not contain control characters"
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return "must be UTF-8 text"
		}
		if unicode.IsControl(r) {
			return "must not contain control characters"
		}
		i += n
	}
	return ""
}

// Check returns a validation-failed problem naming field ("name: must not
// contain control characters") when s breaks the rule, else nil.
func Check(field, s string) error {
	if f := Fault(s); f != "" {
		if field == "" {
			return problem.New("validation-failed", f)
		}
		return problem.New("validation-failed", field+": "+f)
	}
	return nil
}
