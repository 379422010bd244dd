// Package emailaddr is the one way an email address enters Errata: sign-up,
// the sign-in lookup, invitations, email channels and `errata user create`
// all pass what was typed through Normalize (CONTRACT 8).
//
// The canonical form is the key accounts are unique under, so two
// spellings of one mailbox are one account and two addresses that only look
// alike cannot both become accounts: the address is trimmed and put in
// Unicode NFC; the local part is lower-cased (Errata has always stored it so:
// uniqueness ignores its case); the domain goes through IDNA UTS-46 (which
// lower-cases it and folds full-width forms) and is kept as ASCII, so a
// look-alike domain shows as its xn-- form. Refused, as 422 naming `email`:
// invisible characters anywhere (controls, format characters such as
// zero-width spaces and bidi controls, spaces, default-ignorable and filler
// characters), a local part mixing Latin, Cyrillic and Greek letters, and a
// local part with full-width or other compatibility characters (NFKC would
// change it): such a mailbox is a different one from the one it mimics, so
// it is refused rather than silently folded (docs/decisions.md).
package emailaddr

import (
	"fmt"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/unicode/norm"

	"github.com/errata-dev/errata/internal/problem"
)

// Limits of RFC 5321: the whole address and its local part, in bytes.
const (
	MaxLen      = 254
	MaxLocalLen = 64
)

// Normalize returns the canonical form of the address s, or a 422
// validation-failed problem naming `email` that says what is wrong.
func Normalize(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", refuse("email: must not be empty")
	}
	if !utf8.ValidString(s) {
		return "", refuse("email: is not valid UTF-8")
	}
	for _, r := range s {
		if r != ' ' && Invisible(r) { // a plain space is the parser's to refuse
			return "", refuse("email: %q contains an invisible character (%U); type the address without it", s, r)
		}
	}
	s = norm.NFC.String(s)
	a, err := mail.ParseAddress(s)
	at := strings.LastIndexByte(s, '@')
	if err != nil || a.Name != "" || a.Address != s || at <= 0 {
		return "", refuse("email: %q is not an email address", s)
	}
	local, domain := norm.NFC.String(strings.ToLower(s[:at])), s[at+1:]
	if len(local) > MaxLocalLen {
		return "", refuse("email: the part before @ is longer than %d bytes", MaxLocalLen)
	}
	if err := checkLocal(s, local); err != nil {
		return "", err
	}
	ascii, err := idna.Lookup.ToASCII(domain)
	if err != nil || ascii == "" {
		return "", refuse("email: %q has no valid domain name", s)
	}
	out := local + "@" + ascii
	if len(out) > MaxLen {
		return "", refuse("email: longer than %d bytes", MaxLen)
	}
	return out, nil
}

// checkLocal refuses look-alike local parts: compatibility characters
// (full-width, ligatures, superscripts, …) and letters of more than one of
// the Latin, Cyrillic and Greek scripts.
func checkLocal(addr, local string) error {
	if norm.NFKC.String(local) != local {
		for _, r := range local {
			if norm.NFKC.String(string(r)) != string(r) {
				return refuse("email: %q has a full-width or compatibility character (%c, %U) that looks like another; type the address in its usual form", addr, r, r)
			}
		}
		return refuse("email: %q has full-width or compatibility characters that look like others; type the address in its usual form", addr)
	}
	var seen []string
	for _, sc := range []string{"Latin", "Cyrillic", "Greek"} {
		if strings.ContainsFunc(local, func(r rune) bool { return confusableScript(r) == sc }) {
			seen = append(seen, sc)
		}
	}
	if len(seen) > 1 {
		return refuse("email: %q mixes %s letters in the part before @, which makes it look like another address", addr, strings.Join(seen, " and "))
	}
	return nil
}

// confusableScript names the script of r when it is one of those whose
// letters look alike (Latin, Cyrillic, Greek), else "".
func confusableScript(r rune) string {
	switch {
	case unicode.Is(unicode.Latin, r):
		return "Latin"
	case unicode.Is(unicode.Cyrillic, r):
		return "Cyrillic"
	case unicode.Is(unicode.Greek, r):
		return "Greek"
	}
	return ""
}

// Invisible reports whether r shows as nothing (or as a blank) in an
// address: a control, format (zero-width, bidi controls, …), space,
// private-use, surrogate or unassigned code point, a default-ignorable
// one (variation selectors, Hangul fillers, the combining grapheme
// joiner) or the blank Braille pattern.
func Invisible(r rune) bool {
	switch {
	case r == utf8.RuneError, r == '\u2800':
		return true
	case unicode.In(r, unicode.C, unicode.Z):
		return true
	case unicode.In(r, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point):
		return true
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

func refuse(format string, args ...any) error {
	return problem.New("validation-failed", fmt.Sprintf(format, args...))
}

// Domain returns the form Normalize gives an address's domain (IDNA
// UTS-46 lookup: lower case, punycode), so that a configured domain
// compares with the domains of normalised addresses; ok is false when s is
// not a domain name.
func Domain(s string) (ascii string, ok bool) {
	ascii, err := idna.Lookup.ToASCII(norm.NFC.String(strings.TrimSpace(s)))
	return ascii, err == nil && ascii != "" && !strings.ContainsAny(ascii, "@*:/ ") &&
		!strings.HasPrefix(ascii, ".") && !strings.HasSuffix(ascii, ".") && !strings.Contains(ascii, "..")
}
