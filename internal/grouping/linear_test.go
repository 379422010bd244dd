package grouping

import (
	"strings"
	"testing"
	"time"
)

// TestLinearTime feeds Parameterize and Fingerprint inputs built to make a
// naive scanner quadratic; each must finish in well under a second.
func TestLinearTime(t *testing.T) {
	t.Parallel()
	const n = 1 << 17 // eight times ingest's 16 KiB message limit
	inputs := map[string]string{
		"dotted words":   strings.Repeat("a.", n/2),
		"dotted numbers": strings.Repeat("1.", n/2),
		"colons":         strings.Repeat("1:", n/2),
		"open quotes":    strings.Repeat(`="a `, n/4),
		"open squotes":   strings.Repeat(`='a `, n/4),
		"emails":         strings.Repeat("a@", n/2),
		"schemes":        strings.Repeat("a:/", n/3),
		"months":         strings.Repeat("Jan ", n/4),
		"digits":         strings.Repeat("1", n),
		"hyphens":        strings.Repeat("a-", n/2),
		"lines":          strings.Repeat("    at f (/a.js:1:2)\n", n/20),
		"prefixed lines": strings.Repeat("a: b: c: d: e: f: g: h: i: j: k: l: m: n: o: p: q: r: s: t: u: v: w: x: y: z: \n", n/80),
		"open threads":   strings.Repeat("--- [", n/5),
		"queries":        strings.Repeat("/a?b=", n/5),
		"ipv6 ports":     strings.Repeat("::1:", n/4),
		"go locations":   strings.Repeat("f()\n a.go:1\n", n/12),
	}
	for name, in := range inputs {
		start := time.Now()
		Parameterize(in)
		Fingerprint(Input{Message: in, StackTrace: in})
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: %v for %d bytes, want linear time", name, d, len(in))
		}
	}
}
