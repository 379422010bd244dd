package webhook

import (
	"net/netip"
	"strconv"
	"strings"

	"code.dny.dev/ssrf"
)

// guard holds the IANA special-purpose lists. Ports are our own rule
// (portAllowed), so the guardian's port list is switched off.
var guard = ssrf.New(ssrf.WithAnyPort())

// publicAddr reports whether a is a public unicast address: not loopback,
// private, link-local, CGNAT, documentation, benchmarking, multicast,
// broadcast, reserved, nor outside IPv6 global unicast. IPv4-mapped IPv6
// addresses are judged as the IPv4 address they reach.
func publicAddr(a netip.Addr) bool {
	if a.Zone() != "" {
		return false
	}
	return guard.SafeAddr(a.Unmap()) == nil
}

var (
	cgnat     = netip.MustParsePrefix("100.64.0.0/10")
	broadcast = netip.MustParseAddr("255.255.255.255")
)

// addrKind names why an address is not public, for error details.
func addrKind(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsMulticast():
		return "multicast"
	case a == broadcast:
		return "broadcast"
	case cgnat.Contains(a):
		return "shared (carrier-grade NAT)"
	default:
		return "reserved"
	}
}

// endsInNumber follows the WHATWG URL host parser: a host whose last label is
// numeric is an IPv4 address (or invalid), never a DNS name. No top-level
// domain is numeric, so nothing legitimate is lost.
func endsInNumber(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	if allDigits(last, 10) {
		return true
	}
	return len(last) >= 2 && (last[:2] == "0x" || last[:2] == "0X") && allDigits(last[2:], 16)
}

// parseIPv4 reads an IPv4 address the way inet_aton and browsers do: one to
// four dot-separated parts, each decimal, octal (leading 0) or hex (0x), the
// last part filling the remaining bytes. So 2130706433, 0x7f000001,
// 0177.0.0.1 and 127.1 all mean 127.0.0.1.
func parseIPv4(h string) (netip.Addr, bool) {
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, p := range parts {
		n, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, false
			}
			v = v<<8 | n
			continue
		}
		rest := uint(8 * (5 - len(parts))) // bits the last part fills
		if n >= 1<<rest {
			return netip.Addr{}, false
		}
		v = v<<rest | n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseIPv4Part(p string) (uint64, bool) {
	base := 10
	switch {
	case p == "":
		return 0, false
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	if !allDigits(p, base) {
		return 0, false
	}
	n, err := strconv.ParseUint(p, base, 64)
	return n, err == nil && n <= 0xffffffff
}

func allDigits(s string, base int) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9' && int(c-'0') < base:
		case base == 16 && ('a' <= c && c <= 'f' || 'A' <= c && c <= 'F'):
		default:
			return false
		}
	}
	return true
}
