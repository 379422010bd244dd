// Package slug makes and checks the URL names of organizations and projects
// (CONTRACT 8): lower-case letters, digits and hyphens, made from a name.
package slug

import (
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxLen is the longest slug.
const MaxLen = 50

// Make returns the slug of a name: accents dropped, letters lower-cased,
// every other run of characters one hyphen, none at either end; fallback
// when nothing is left (a name of only symbols or of another script).
func Make(name, fallback string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range norm.NFKD.String(name) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(unicode.ToLower(r))
		default:
			hyphen = true
		}
	}
	s := b.String()
	if len(s) > MaxLen {
		s = strings.TrimRight(s[:MaxLen], "-")
	}
	if s == "" {
		return fallback
	}
	return s
}

// Valid reports whether s is a slug: 1 to MaxLen characters of a-z, 0-9
// and '-'.
func Valid(s string) bool {
	if s == "" || len(s) > MaxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// OfID is the slug given to a row made without one (rows made before slugs
// existed, by migration 00041): its identifier with '-' for '_', unique as
// the identifier is.
func OfID(id string) string { return strings.ReplaceAll(id, "_", "-") }

// Free returns base if it is not in taken, else the first of base-2,
// base-3, … that is not (shortening base to stay within MaxLen).
func Free(base string, taken []string) string {
	used := make(map[string]bool, len(taken))
	for _, t := range taken {
		used[t] = true
	}
	if !used[base] {
		return base
	}
	for n := 2; ; n++ {
		suffix := "-" + strconv.Itoa(n)
		b := base
		if len(b)+len(suffix) > MaxLen {
			b = strings.TrimRight(b[:MaxLen-len(suffix)], "-")
		}
		if !used[b+suffix] {
			return b + suffix
		}
	}
}
