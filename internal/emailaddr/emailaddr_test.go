package emailaddr_test

import (
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/emailaddr"
	"github.com/errata-dev/errata/internal/problem"
)

// TestNormalize: spellings of one mailbox become one canonical address.
func TestNormalize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"alice@example.com", "alice@example.com"},
		{"  Alice@EXAMPLE.com\n", "alice@example.com"},
		{"ALICE@Example.COM", "alice@example.com"},
		{"alice+alerts@example.com", "alice+alerts@example.com"},
		// NFD (e + combining acute) and NFC are one address.
		{"jose\u0301@example.com", "jos\u00e9@example.com"},
		{"JOS\u00c9@example.com", "jos\u00e9@example.com"},
		// The domain through UTS-46: lower-cased, full-width folded, kept as ASCII.
		{"user@B\u00dcCHER.example", "user@xn--bcher-kva.example"},
		{"user@xn--bcher-kva.example", "user@xn--bcher-kva.example"},
		{"user@\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com", "user@example.com"},
		// A look-alike domain is kept, but shows as what it is.
		{"user@ex\u0430mple.com", "user@xn--exmple-4nf.com"},
		// Scripts other than the confusable trio, and one of them alone.
		{"\u0438\u0432\u0430\u043d@example.com", "\u0438\u0432\u0430\u043d@example.com"},
		{"\u03b1\u03bb\u03c6\u03b1@example.com", "\u03b1\u03bb\u03c6\u03b1@example.com"},
		{"\u7530\u4e2d@example.jp", "\u7530\u4e2d@example.jp"},
		{"ops-2024@localhost", "ops-2024@localhost"},
	} {
		got, err := emailaddr.Normalize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestNormalizeRefusesLookAlikes: addresses that only look like another are
// refused with 422 naming email, as are malformed ones.
func TestNormalizeRefusesLookAlikes(t *testing.T) {
	for _, tc := range []struct{ name, in, says string }{
		{"zero-width space", "ali\u200bce@example.com", "invisible character (U+200B)"},
		{"zero-width joiner", "alice\u200d@example.com", "U+200D"},
		{"zero-width non-joiner in the domain", "alice@exam\u200cple.com", "U+200C"},
		{"word joiner", "al\u2060ice@example.com", "U+2060"},
		{"byte-order mark", "\ufeffalice@example.com", "U+FEFF"},
		{"soft hyphen", "ali\u00adce@example.com", "U+00AD"},
		{"right-to-left override", "alice\u202e@example.com", "U+202E"},
		{"left-to-right mark", "\u200ealice@example.com", "U+200E"},
		{"first strong isolate", "alice\u2068@example.com", "U+2068"},
		{"Hangul filler", "alice\u3164@example.com", "U+3164"},
		{"combining grapheme joiner", "alic\u034fe@example.com", "U+034F"},
		{"variation selector", "alice\ufe0f@example.com", "U+FE0F"},
		{"tag character", "alice\U000e0041@example.com", "U+E0041"},
		{"NUL", "alice\x00@example.com", "U+0000"},
		{"no-break space", "alice\u00a0x@example.com", "U+00A0"},
		{"Braille blank", "alice\u2800@example.com", "U+2800"},
		{"Cyrillic a in a Latin name", "\u0430lice@example.com", "mixes Latin and Cyrillic"},
		{"Cyrillic o in a Latin name", "b\u043eb@example.com", "mixes Latin and Cyrillic"},
		{"Greek omicron in a Latin name", "b\u03bfb@example.com", "mixes Latin and Greek"},
		{"Greek and Cyrillic", "\u03b1\u0430@example.com", "mixes Cyrillic and Greek"},
		{"full-width letter", "\uff41lice@example.com", "full-width or compatibility character"},
		{"all full-width", "\uff41\uff4c\uff49\uff43\uff45@example.com", "full-width"},
		{"ligature", "\ufb01nance@example.com", "compatibility character"},
		{"superscript", "alice\u00b2@example.com", "compatibility character"},
		{"display name", "Alice <alice@example.com>", "not an email address"},
		{"angle brackets", "<alice@example.com>", "not an email address"},
		{"no at", "alice.example.com", "not an email address"},
		{"empty local", "@example.com", "not an email address"},
		{"empty", "   ", "must not be empty"},
		{"bad domain", "alice@exa_mple.com", "no valid domain"},
		{"bad punycode", "alice@xn--zz.com", "no valid domain"},
		{"domain literal", "alice@[192.0.2.1]", "no valid domain"},
		{"long local part", strings.Repeat("a", 65) + "@example.com", "longer than 64"},
		{"long address", "a@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63) + "." + strings.Repeat("e", 63) + ".com", "longer than 254"},
		{"invalid UTF-8", "alice\xff@example.com", "UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := emailaddr.Normalize(tc.in)
			if err == nil {
				t.Fatalf("Normalize(%q) = %q, want it refused", tc.in, got)
			}
			p := problem.From(err)
			if p.Code() != "validation-failed" || p.Status != 422 || !strings.HasPrefix(p.Detail, "email: ") || !strings.Contains(p.Detail, tc.says) {
				t.Errorf("Normalize(%q) = %s %d %q, want 422 validation-failed naming email and saying %q", tc.in, p.Code(), p.Status, p.Detail, tc.says)
			}
		})
	}
}

// TestNormalizeIdempotent: a canonical address is its own canonical form, so
// a stored address looked up again finds itself.
func TestNormalizeIdempotent(t *testing.T) {
	for _, in := range []string{"Alice@Example.COM", "jose\u0301@B\u00dcCHER.example", "\u0438\u0432\u0430\u043d@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444"} {
		once, err := emailaddr.Normalize(in)
		if err != nil {
			t.Fatalf("Normalize(%q): %v", in, err)
		}
		if twice, err := emailaddr.Normalize(once); err != nil || twice != once {
			t.Errorf("Normalize(%q) = %q, %v; want %q unchanged", once, twice, err, once)
		}
	}
}

// BenchmarkNormalize measures one address as sign-up and invitations see it.
func BenchmarkNormalize(b *testing.B) {
	for range b.N {
		if _, err := emailaddr.Normalize(" Jose\u0301.Garcia+alerts@B\u00dcCHER.Example "); err != nil {
			b.Fatal(err)
		}
	}
}
