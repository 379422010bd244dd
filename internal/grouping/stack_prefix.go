package grouping

// maxLinePrefix is the longest log prefix cutLinePrefix looks for, in bytes.
const maxLinePrefix = 120

// cutLinePrefix removes the log prefix a collector writes before every line
// of a trace, from version 2:
//
//	08-30 09:41:05.117 31544 31544 E AndroidRuntime: 	at com.acme.Main.run(Main.java:12)
//	2021-09-07T17:39:32.536779+00:00 app[web.1]:          at Acme.Startup.Configure(…)
//	Jun 26 17:33:38 web-1 visitor[15817]:    at Acme.Controllers.Home.Index()
//	postgres_1  | 2023-11-14 17:27:59.593 UTC [32] FATAL: …
//	[MonoDroid] at Acme.Beacons.FromNative (Region) <IL 0x00012, 0x000c4>
//
// A prefix is text up to a ": ", "| " or "] " that, with its digits counted as
// alike, starts at least four in five of the non-empty lines (and three at
// least); the longest such prefix of the first two non-empty lines is cut
// where it appears; ok is false when there is none.
func cutLinePrefix(lines []string) ([]string, bool) {
	var first [2]string
	seen := 0
	for _, l := range lines {
		if !isBlank(l) {
			first[seen] = l
			if seen++; seen == 2 {
				break
			}
		}
	}
	if seen < 2 {
		return lines, false
	}
	last := ""
	for k := len(lines) - 1; k >= 0 && last == ""; k-- {
		if !isBlank(lines[k]) {
			last = lines[k]
		}
	}
	best := ""
	for n, l := range first {
		for p := 2; p <= len(l) && p <= maxLinePrefix; p++ {
			if (l[p-2] != ':' && l[p-2] != '|' && l[p-2] != ']') || l[p-1] != ' ' || p <= len(best) {
				continue
			}
			// Most candidates ("java.lang.X: msg") fail on the other first
			// line or the last one; only the rest are counted.
			if !sameShape(first[1-n], l[:p]) && !sameShape(last, l[:p]) {
				continue
			}
			if sharedPrefix(lines, l[:p]) {
				best = l[:p]
			}
		}
	}
	if best == "" {
		return lines, false
	}
	out := make([]string, len(lines))
	for k, l := range lines {
		if sameShape(l, best) {
			l = l[len(best):]
		}
		out[k] = l
	}
	return out, true
}

// sharedPrefix reports whether prefix, digits alike, starts at least four in
// five of the non-empty lines, and three at least.
func sharedPrefix(lines []string, prefix string) bool {
	nonEmpty, shared := 0, 0
	for _, l := range lines {
		if isBlank(l) {
			continue
		}
		nonEmpty++
		if sameShape(l, prefix) {
			shared++
		}
	}
	return shared >= 3 && shared*5 >= nonEmpty*4
}

// isBlank reports whether l holds only spaces and tabs.
func isBlank(l string) bool {
	for k := 0; k < len(l); k++ {
		if l[k] != ' ' && l[k] != '\t' && l[k] != '\r' {
			return false
		}
	}
	return true
}

// sameShape reports whether l starts with prefix, any digit matching any
// digit: time stamps and process ids change from line to line.
func sameShape(l, prefix string) bool {
	if len(l) < len(prefix) {
		return false
	}
	for k := 0; k < len(prefix); k++ {
		if l[k] != prefix[k] && !(isDigit(l[k]) && isDigit(prefix[k])) {
			return false
		}
	}
	return true
}
