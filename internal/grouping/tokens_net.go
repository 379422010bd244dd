package grouping

import "strings"

// Scan bounds: RFC limits, and what keeps failed matches cheap.
const (
	maxScheme    = 32
	maxLocalPart = 64
	maxHost      = 253
)

// Matchers for network shapes. Each takes the message and a start index and
// returns the end of the match, or 0 when there is none.

// matchURL matches scheme://… at i, where [i,j) is the scheme's first word.
// The match runs to the next space or quote; trailing punctuation belongs to
// the sentence, not the URL.
func matchURL(s string, i, j int) int {
	// Schemes may contain '+', '.', '-' ("git+ssh", "coap+tcp"). Bounds on
	// every scan that can fail keep Parameterize linear in its input.
	for j < len(s) && j-i < maxScheme && (isWord(s[j]) || s[j] == '+' || s[j] == '.' || s[j] == '-') {
		j++
	}
	if !strings.HasPrefix(s[j:], "://") {
		return 0
	}
	k := j + 3
	start := k
	parens := 0
	for k < len(s) {
		c := s[k]
		if c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' {
			break
		}
		switch c {
		case '(':
			parens++
		case ')':
			parens--
		}
		k++
	}
	for k > start {
		c := s[k-1]
		if strings.IndexByte(".,;:!?]}", c) >= 0 || (c == ')' && parens < 0) {
			if c == ')' {
				parens++
			}
			k--
			continue
		}
		break
	}
	if k == start {
		return 0
	}
	return k
}

// matchEmail matches local@domain at i, with a domain of two labels or more.
func matchEmail(s string, i int) int {
	k := i
	for k < len(s) && k-i <= maxLocalPart && (isWord(s[k]) || strings.IndexByte(".%+-", s[k]) >= 0) {
		k++
	}
	if k == i || k >= len(s) || s[k] != '@' {
		return 0
	}
	end, labels := scanLabels(s, k+1)
	if labels < 2 || !isLetter(s[end-1]) {
		return 0
	}
	return end
}

// scanLabels scans dot-separated host labels at i and returns the end and the
// number of labels. A label is letters, digits and inner hyphens.
func scanLabels(s string, i int) (end, labels int) {
	end = i
	k := i
	for {
		j := k
		for j < len(s) && j-i <= maxHost && (isDigit(s[j]) || isLetter(s[j]) || s[j] == '-') {
			j++
		}
		if j-i > maxHost {
			return end, 0
		}
		if j == k || s[k] == '-' || s[j-1] == '-' {
			return end, labels
		}
		labels++
		end = j
		if j+1 < len(s) && s[j] == '.' && (isLetter(s[j+1]) || isDigit(s[j+1])) {
			k = j + 1
			continue
		}
		return end, labels
	}
}

// knownTLDs are top-level domains likely in host names and unlikely as file
// extensions or attribute names (no "py", "sh", "md", "rs", "id", "name").
var knownTLDs = map[string]bool{
	"com": true, "net": true, "org": true, "io": true, "dev": true, "co": true,
	"ai": true, "cloud": true, "gov": true, "edu": true, "info": true, "biz": true,
	"us": true, "uk": true, "de": true, "fr": true, "nl": true, "eu": true,
	"ru": true, "cn": true, "jp": true, "br": true, "au": true, "ca": true,
	"ch": true, "se": true, "es": true, "at": true, "be": true, "dk": true,
	"fi": true, "no": true, "nz": true, "local": true, "localhost": true,
	"internal": true, "lan": true, "arpa": true, "svc": true, "test": true,
	"example": true, "invalid": true, "corp": true, "intranet": true, "home": true,
}

// moreTLDs are country domains version 2 also accepts as the end of a host
// name (none is a common file extension).
var moreTLDs = map[string]bool{
	"jp": true, "tr": true, "in": true, "it": true, "pl": true, "kr": true, "tw": true, "hk": true,
	"sg": true, "mx": true, "ar": true, "za": true, "ie": true, "pt": true, "cz": true, "hu": true,
	"ro": true, "gr": true, "il": true, "ua": true, "vn": true, "th": true, "id": true, "my": true,
}

// matchHostname matches a host name at i: two or more labels ending in a
// known TLD, or three or more lower-case labels one of which holds a digit
// ("db-3.prod.acme"). Java class names and Python attributes do not qualify.
func matchHostname(s string, i int, p *paramRules) int {
	end, labels := scanLabels(s, i)
	if labels < 2 || !boundary(s, end) {
		return 0
	}
	host := s[i:end]
	last := host[strings.LastIndexByte(host, '.')+1:]
	if !isLetter(last[0]) {
		return 0
	}
	if len(last) <= 9 && knownTLDs[strings.ToLower(last)] {
		return end
	}
	if p.logFields && len(last) == 2 && moreTLDs[strings.ToLower(last)] {
		return end
	}
	if labels < 3 {
		return 0
	}
	digit := false
	for k := 0; k < len(host); k++ {
		if isUpper(host[k]) {
			return 0
		}
		digit = digit || isDigit(host[k])
	}
	if !digit {
		return 0
	}
	return end
}

// matchIPv4 matches a dotted quad of octets at i.
func matchIPv4(s string, i int) int {
	k := i
	for part := 0; part < 4; part++ {
		if part > 0 {
			if k >= len(s) || s[k] != '.' {
				return 0
			}
			k++
		}
		j := runOf(s, k, 3, isDigit)
		if j == k || j-k > 3 || (j < len(s) && isDigit(s[j])) {
			return 0
		}
		v := 0
		for _, c := range []byte(s[k:j]) {
			v = v*10 + int(c-'0')
		}
		if v > 255 {
			return 0
		}
		k = j
	}
	if !boundary(s, k) || (k+1 < len(s) && s[k] == '.' && isDigit(s[k+1])) {
		return 0
	}
	return k
}

// matchIPv6 matches an IPv6 address at i: full, compressed ("::1",
// "fe80::1%eth0") or with an IPv4 tail ("::ffff:10.0.0.1"). It wants a digit
// somewhere so that words like "Cafe::Bad" are left alone.
func matchIPv6(s string, i int) int {
	k := i
	groups, compressed, digit := 0, false, false
	if strings.HasPrefix(s[k:], "::") {
		compressed = true
		k += 2
	}
	for k < len(s) {
		j := runOf(s, k, 5, isHexDigit)
		if j == k {
			break
		}
		if j-k > 4 {
			return 0
		}
		if j < len(s) && s[j] == '.' && (compressed || groups == 6) {
			if end := matchIPv4(s, k); end > 0 {
				groups += 2
				k = end
				digit = true
				break
			}
		}
		for _, c := range []byte(s[k:j]) {
			digit = digit || isDigit(c)
		}
		groups++
		if groups > 8 {
			return 0
		}
		k = j
		if strings.HasPrefix(s[k:], "::") {
			if compressed {
				return 0
			}
			compressed = true
			k += 2
			continue
		}
		if k+1 < len(s) && s[k] == ':' && isHexDigit(s[k+1]) {
			k++
			continue
		}
		break
	}
	if !digit || (compressed && groups > 7) || (!compressed && groups != 8) {
		return 0
	}
	if k < len(s) && s[k] == '%' { // zone index
		k = wordEnd(s, k+1)
	}
	if !boundary(s, k) || (k < len(s) && s[k] == ':' && k+1 < len(s) && isHexDigit(s[k+1])) {
		return 0
	}
	return k
}

// matchTraceparent matches a W3C traceparent: 00-<32 hex>-<16 hex>-<2 hex>.
func matchTraceparent(s string, i int) int {
	k := i
	for _, want := range [...]int{2, 32, 16, 2} {
		if k > i {
			if k >= len(s) || s[k] != '-' {
				return 0
			}
			k++
		}
		j := runOf(s, k, want+1, isHexDigit)
		if j-k != want {
			return 0
		}
		k = j
	}
	if !boundary(s, k) {
		return 0
	}
	return k
}

// matchUUID matches 8-4-4-4-12 hex digits at i.
func matchUUID(s string, i int) int {
	k := i
	for n, want := range [...]int{8, 4, 4, 4, 12} {
		if n > 0 {
			if k >= len(s) || s[k] != '-' {
				return 0
			}
			k++
		}
		j := runOf(s, k, want+1, isHexDigit)
		if j-k != want {
			return 0
		}
		k = j
	}
	if !boundary(s, k) {
		return 0
	}
	return k
}
