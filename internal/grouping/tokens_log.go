package grouping

import "strings"

// Shapes of log lines that version 2 reads: query strings of request paths,
// logback's thread column, the port a client dials, Node's unbracketed
// "address:port" for IPv6.

// matchQuery matches the query string of a path, "k=v&k2=v2", starting at
// i (after the '?'): a word, '=', and everything up to a space, a quote or a
// closing bracket. It returns i when there is none.
func matchQuery(s string, i int) int {
	j := runOf(s, i, len(s), isWord)
	if j == i || j >= len(s) || s[j] != '=' {
		return i
	}
	for j < len(s) && !strings.ContainsRune(" \t\n\"'`)]>", rune(s[j])) {
		j++
	}
	return j
}

// maxThread bounds a bracketed thread name; logback cuts them to 15.
const maxThread = 64

// matchThreads matches the bracketed groups at i, "[a]" or "[a] [b]",
// within one line and maxThread bytes each, and returns where they end, or i
// when there is none.
func matchThreads(s string, i int) int {
	for i < len(s) && s[i] == '[' {
		end := strings.IndexAny(s[i:min(len(s), i+maxThread)], "]\n")
		if end < 0 || s[i+end] != ']' {
			return i
		}
		i += end + 1
		if i+1 < len(s) && s[i] == ' ' && s[i+1] == '[' {
			i++
		}
	}
	return i
}

// dialMarkers precede the address a client dials: Go's net.OpError and
// Node's system errors. The port of that address names the service (5432,
// 6379) and stays; a client's own port ("panic serving 10.0.0.7:51234") is
// data.
var dialMarkers = []string{
	"dial tcp ", "dial tcp4 ", "dial tcp6 ", "dial udp ",
	"connect ECONNREFUSED ", "connect ETIMEDOUT ", "connect EHOSTUNREACH ", "connect ENETUNREACH ",
}

// ipEnd writes the placeholder of the address at [start,end) to b and
// returns where the scan goes on. From version 2 an unbracketed IPv6 address
// with a port, as Node prints it ("connect ECONNREFUSED ::1:5432"), reads as
// "<ip>:<int>" like "127.0.0.1:5432"; a dialled port is kept (dialPort).
func ipEnd(s string, start, end int, p *paramRules, b *strings.Builder) int {
	if p.ipv6Port && strings.IndexByte(s[start:end], ':') >= 0 {
		end = ipv6PortCut(s, start, end)
	}
	b.WriteString(phIP)
	return dialPort(s, start, end, p, b)
}

// ipv6PortCut returns where the address at [start,end) ends when its last
// group is a port: a decimal number of 2 to 5 digits, at most 65535, after
// the loopback "::1" or "::", or after any address Node's "connect E…"
// error names (it always prints one). Elsewhere "2001:db8::42:8329" is one
// address. It returns end when there is no port.
func ipv6PortCut(s string, start, end int) int {
	colon := strings.LastIndexByte(s[start:end], ':') + start
	port := s[colon+1 : end]
	if colon <= start+1 || s[colon-1] == ':' || len(port) < 2 || len(port) > 5 {
		return end
	}
	if addr := s[start:colon]; addr != "::1" && addr != "::" && !afterConnectError(s[:start]) {
		return end
	}
	v := 0
	for k := 0; k < len(port); k++ {
		if !isDigit(port[k]) {
			return end
		}
		v = v*10 + int(port[k]-'0')
	}
	if v > 65535 || matchIPv6(s[:colon], start) != colon {
		return end
	}
	return colon
}

// maxIPv6Port bounds the scan of ipv6WithPort: the longest address with an
// IPv4 tail and a port is 52 bytes.
const maxIPv6Port = 56

// ipv6WithPort matches an unbracketed IPv6 address and a port of five digits
// at i, which matchIPv6 cannot read as one address ("::1:50412"), and
// returns its end, or 0.
func ipv6WithPort(s string, i int) int {
	j := i
	for j < len(s) && j-i <= maxIPv6Port && (isHexDigit(s[j]) || s[j] == ':' || s[j] == '.') {
		j++
	}
	if j-i > maxIPv6Port || !boundary(s, j) {
		return 0
	}
	if end := ipv6PortCut(s, i, j); end < j {
		return j
	}
	return 0
}

// afterConnectError reports whether before ends with Node's "connect
// ECONNREFUSED " (or another "connect E… " code).
func afterConnectError(before string) bool {
	for _, m := range dialMarkers {
		if strings.HasPrefix(m, "connect ") && strings.HasSuffix(before, m) {
			return true
		}
	}
	return false
}

// dialPort writes ":<port>" after an address at [start,end) that a client
// dials (dialMarkers before it), from version 2, and returns where the scan
// goes on.
func dialPort(s string, start, end int, p *paramRules, b *strings.Builder) int {
	if !p.dialPorts || end >= len(s) || s[end] != ':' {
		return end
	}
	j := runOf(s, end+1, len(s), isDigit)
	if j == end+1 || !boundary(s, j) {
		return end
	}
	before := s[:start]
	before = strings.TrimSuffix(before, "[")
	for _, m := range dialMarkers {
		if strings.HasSuffix(before, m) {
			b.WriteString(s[end:j])
			return j
		}
	}
	return end
}
