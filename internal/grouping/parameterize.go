package grouping

import "strings"

// Placeholders written by Parameterize.
const (
	phEmail       = "<email>"
	phURL         = "<url>"
	phHostname    = "<hostname>"
	phIP          = "<ip>"
	phTraceparent = "<traceparent>"
	phUUID        = "<uuid>"
	phSHA1        = "<sha1>"
	phMD5         = "<md5>"
	phDate        = "<date>"
	phDatetime    = "<datetime>"
	phTime        = "<time>"
	phDuration    = "<duration>"
	phHex         = "<hex>"
	phInt         = "<int>"
	phFloat       = "<float>"
	phQuoted      = "<quoted>"
	phBool        = "<bool>"
	phID          = "<id>"
	phPath        = "<path>"
	phQuery       = "<query>"
	phThread      = "<thread>"
)

// Parameterize replaces the variable parts of a message with placeholders
// (<email>, <url>, <hostname>, <ip>, <traceparent>, <uuid>, <sha1>, <md5>,
// <date>, <datetime>, <time>, <duration>, <hex>, <int>, <float>, <quoted>,
// <bool>) and cuts it to its first two non-empty lines.
//
// It is a hand-written scanner rather than a list of regular expressions: it
// looks at each word once, tries the specific shapes first (a UUID is not
// three ints, a URL keeps nothing of its query) and copies everything else.
func Parameterize(msg string) string {
	return parameterize(msg, &current.params)
}

// parameterize is Parameterize under rules p.
func parameterize(msg string, p *paramRules) string {
	msg = firstLines(msg, 2)
	var b strings.Builder
	b.Grow(len(msg) + 8)
	// noQuote[q] is where an unterminated quote of kind q was found to end:
	// a later quote of that kind before it cannot close either, and knowing
	// that keeps the scan linear.
	noQuote := [quoteKinds]int{-1, -1, -1}
	for i := 0; i < len(msg); {
		if isWord(msg[i]) {
			i = paramWord(msg, i, p, &b)
		} else {
			i = paramOther(msg, i, p, &b, &noQuote)
		}
	}
	return b.String()
}

// paramWord writes the word starting at msg[i], or its placeholder, and
// returns where the scan goes on.
func paramWord(msg string, i int, p *paramRules, b *strings.Builder) int {
	if p.codeLines && isDigit(msg[i]) && afterSourceFile(msg, i) {
		// "src/main.rs:319:101": the line names the place.
		j := runOf(msg, i, len(msg), isDigit)
		b.WriteString(msg[i:j])
		return j
	}
	if end, ph := matchWord(msg, i, p); end > i {
		if ph == phIP {
			return ipEnd(msg, i, end, p, b)
		}
		b.WriteString(ph)
		return end
	}
	j := wordEnd(msg, i)
	b.WriteString(msg[i:j])
	return j
}

// paramOther writes what starts at msg[i], not a word, or its placeholder,
// and returns where the scan goes on.
func paramOther(msg string, i int, p *paramRules, b *strings.Builder, noQuote *[quoteKinds]int) int {
	if end, ok := paramShape(msg, i, p, b, noQuote); ok {
		return end
	}
	if end, ok := paramLogParts(msg, i, p, b); ok {
		return end
	}
	n, c := len(msg), msg[i]
	switch c {
	case '=', ':':
		b.WriteByte(c)
		i++
		if c == ':' && p.logFields && isMessageKey(msg, i-1) {
			return i // a JSON log's "message" is the template itself
		}
		if end, ph := matchAfterAssign(msg, i, c == '=', noQuote); end > i {
			b.WriteString(ph)
			return end
		}
		return i
	case '-', '+':
		// A sign belongs to the number only after a separator: "id=-1", " -5".
		if i+1 < n && isDigit(msg[i+1]) && (i == 0 || isSignContext(msg[i-1])) {
			if end, ph := matchNumber(msg, i+1); end > i+1 {
				b.WriteString(ph)
				return end
			}
		}
	}
	b.WriteByte(c)
	return i + 1
}

// paramShape matches an address or a value shape (quoted, path) at msg[i];
// ok is false, with nothing written, when none starts there.
func paramShape(msg string, i int, p *paramRules, b *strings.Builder, noQuote *[quoteKinds]int) (int, bool) {
	n, c := len(msg), msg[i]
	if c == '[' && p.bracketIPv6 && i+1 < n {
		// "[::1]:80" and "[2001:db8::1]:443" read like "10.0.0.1:80".
		if end := matchIPv6(msg, i+1); end > i+1 && end < n && msg[end] == ']' {
			b.WriteString(phIP)
			return dialPort(msg, i, end+1, p, b), true
		}
	}
	if p.quoted || p.paths {
		if end, ph := matchValueShapes(msg, i, p, noQuote); end > i {
			b.WriteString(ph)
			return end, true
		}
	}
	if (c == ':' || c == '[') && i+1 < n && msg[i+1] == ':' {
		// "::1" starts with no word at all.
		start := i
		if c == '[' {
			b.WriteByte(c)
			start++
		}
		end := matchIPv6(msg, start)
		if end <= start && p.ipv6Port {
			end = ipv6WithPort(msg, start) // "::1:50412": the port is no group
		}
		if end > start {
			return ipEnd(msg, start, end, p, b), true
		}
		if c == '[' {
			return i + 1, true
		}
	}
	return i, false
}

// paramLogParts matches what log lines carry at msg[i]: a query string, a
// logback thread, a run of blanks; ok is false, with nothing written, when
// none starts there.
func paramLogParts(msg string, i int, p *paramRules, b *strings.Builder) (int, bool) {
	n, c := len(msg), msg[i]
	if p.queries && c == '?' && i > 0 && (msg[i-1] == '/' || isWord(msg[i-1])) {
		if end := matchQuery(msg, i+1); end > i+1 {
			b.WriteString("?" + phQuery)
			return end, true
		}
	}
	if p.threads && c == '-' && strings.HasPrefix(msg[i:], "--- [") {
		// logback's "--- [nio-8080-exec-3]" (Spring Boot 3: "--- [app] [thread]").
		if end := matchThreads(msg, i+4); end > i+4 {
			b.WriteString("--- [" + phThread + "]")
			return end, true
		}
	}
	if p.spaces && (c == ' ' || c == '\t') && i+1 < n && (msg[i+1] == ' ' || msg[i+1] == '\t') {
		b.WriteByte(' ')
		for i < n && (msg[i] == ' ' || msg[i] == '\t') {
			i++
		}
		return i, true
	}
	return i, false
}

// firstLines returns the first max non-empty lines of s, right-trimmed and
// joined by "\n".
func firstLines(s string, max int) string {
	nl := strings.IndexByte(s, '\n')
	if nl < 0 {
		return strings.TrimRight(s, " \t\r")
	}
	var lines []string
	for len(s) > 0 && len(lines) < max {
		line := s
		if nl >= 0 {
			line, s = s[:nl], s[nl+1:]
		} else {
			s = ""
		}
		if line = strings.TrimRight(line, " \t\r"); strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
		nl = strings.IndexByte(s, '\n')
	}
	return strings.Join(lines, "\n")
}

// matchWord tries every placeholder that can start with the word at i, most
// specific first, and returns the end of the match and its placeholder.
func matchWord(s string, i int, p *paramRules) (int, string) {
	j := wordEnd(s, i)
	next := byte(0)
	if j < len(s) {
		next = s[j]
	}
	c := s[i]
	if isLetter(c) && next == ':' {
		if end := matchURL(s, i, j); end > 0 {
			return end, phURL
		}
	}
	switch next {
	case '.', '@', '-', '+', '%':
		if end := matchEmail(s, i); end > 0 {
			return end, phEmail
		}
	}
	if isHexDigit(c) {
		if end, ph := matchHexShapes(s, i, j); end > 0 {
			return end, ph
		}
		if p.identityHashes && isIdentityHash(s, i, j, p.braceHashes) {
			return j, phHex
		}
	}
	if p.ids {
		if end := matchID(s, i, j); end > 0 {
			return end, phID
		}
		if c == 'T' && j-i > 1 && i >= 7 && s[i-7:i] == "thread " && runOf(s, i+1, j, isDigit) == j {
			return j, "T" + phInt // a sanitizer's thread number: "thread T2"
		}
	}
	if isDigit(c) {
		if end, ph := matchDigitShapes(s, i, j, p); end > 0 {
			return end, ph
		}
	} else if isLetter(c) {
		if j-i >= 3 && isUpper(c) {
			if end, ph := matchNamedDate(s, i); end > 0 {
				return end, ph
			}
		}
		if next == '.' || next == '-' {
			if end := matchHostname(s, i, p); end > 0 {
				return end, phHostname
			}
		}
		if w := s[i:j]; hasDigitRun(w, 4) {
			return j, digitRuns(w, 4)
		}
	}
	return 0, ""
}

// matchDashedHex matches ids made of hex groups joined by dashes, such as
// "9f3e2a1b-0bd6-9ad7" (a shortened UUID): two to eight groups, eight hex
// digits in all, with both a decimal digit and a letter among them (so that
// dates stay dates). The group cap keeps the scan linear.
func matchDashedHex(s string, i int) int {
	groups, total, digits, end := 0, 0, 0, i
	for k := i; groups < 8; {
		g := k
		for g < len(s) && isHexDigit(s[g]) {
			if isDigit(s[g]) {
				digits++
			}
			g++
		}
		if g == k || (g < len(s) && isWord(s[g])) {
			break
		}
		groups++
		total += g - k
		end = g
		if g+1 < len(s) && s[g] == '-' && isHexDigit(s[g+1]) {
			k = g + 1
			continue
		}
		break
	}
	if groups < 2 || total < 8 || digits == 0 || digits == total {
		return 0
	}
	return end
}

// hasDigitRun reports whether w holds at least n decimal digits in a row.
func hasDigitRun(w string, n int) bool {
	run := 0
	for k := 0; k < len(w); k++ {
		if isDigit(w[k]) {
			if run++; run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// digitRuns replaces the runs of at least n digits inside an identifier
// with <int>: "usr_83644" becomes "usr_<int>", "order42731" "order<int>".
func digitRuns(w string, n int) string {
	var b strings.Builder
	for k := 0; k < len(w); {
		e := k
		for e < len(w) && isDigit(w[e]) {
			e++
		}
		if e-k >= n {
			b.WriteString(phInt)
			k = e
			continue
		}
		if e > k {
			b.WriteString(w[k:e])
			k = e
			continue
		}
		b.WriteByte(w[k])
		k++
	}
	return b.String()
}

// matchHexShapes matches the shapes made of hex digits: traceparent, UUID,
// 0x…, SHA-1, MD5 and other long hex strings.
func matchHexShapes(s string, i, j int) (int, string) {
	w := s[i:j]
	if j < len(s) && s[j] == '-' {
		if len(w) == 2 && w == "00" {
			if end := matchTraceparent(s, i); end > 0 {
				return end, phTraceparent
			}
		}
		if len(w) == 8 {
			if end := matchUUID(s, i); end > 0 {
				return end, phUUID
			}
		}
		if end := matchDashedHex(s, i); end > 0 {
			return end, phHex
		}
	}
	if len(w) > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X') && allHex(w[2:]) {
		return j, phHex
	}
	if j < len(s) && s[j] == ':' {
		if end := matchTime(s, i); end > 0 {
			return end, phTime
		}
		if end := matchIPv6(s, i); end > 0 {
			return end, phIP
		}
	}
	if len(w) >= 8 && allHex(w) {
		digits, letters := countHex(w)
		if digits > 0 && letters > 0 {
			switch len(w) {
			case 40:
				return j, phSHA1
			case 32:
				return j, phMD5
			}
			return j, phHex
		}
	}
	return 0, ""
}

// matchDigitShapes matches what starts with a decimal digit: dates, times, IP
// addresses, host names, durations, sizes and plain numbers.
func matchDigitShapes(s string, i, j int, p *paramRules) (int, string) {
	digits := i
	for digits < j && isDigit(s[digits]) {
		digits++
	}
	next := byte(0)
	if digits < len(s) {
		next = s[digits]
	}
	if digits == j {
		switch next {
		case '-', '/', '.', ' ', 'T':
			if end, ph := matchDate(s, i); end > 0 {
				return end, ph
			}
		}
		switch next {
		case ':':
			if end := matchTime(s, i); end > 0 {
				return end, phTime
			}
		case '.':
			if end := matchIPv4(s, i); end > 0 {
				return end, phIP
			}
			if end := matchHostname(s, i, p); end > 0 {
				return end, phHostname
			}
		case ' ':
			if end, ph := matchNamedDate(s, i); end > 0 {
				return end, ph
			}
		}
	}
	return matchNumber(s, i)
}

// matchNumber matches an integer or float at i, a duration when a time unit
// follows, and "<int>MB"-style sizes where a short unit is glued on.
func matchNumber(s string, i int) (int, string) {
	if end := matchDuration(s, i); end > 0 {
		return end, phDuration
	}
	n := len(s)
	j := i
	for j < n && isDigit(s[j]) {
		j++
	}
	if j == i {
		return 0, ""
	}
	ph := phInt
	if j+1 < n && s[j] == '.' && isDigit(s[j+1]) {
		j += 2
		for j < n && isDigit(s[j]) {
			j++
		}
		ph = phFloat
		if j+1 < n && (s[j] == 'e' || s[j] == 'E') {
			k := j + 1
			if k < n && (s[k] == '+' || s[k] == '-') {
				k++
			}
			if k < n && isDigit(s[k]) {
				for k < n && isDigit(s[k]) {
					k++
				}
				j = k
			}
		}
	}
	if j == n || !isWord(s[j]) {
		return j, ph
	}
	// "10MB", "3rd", "200px": keep the unit, drop the number.
	k := j
	for k < n && isLetter(s[k]) {
		k++
	}
	if k-j <= 3 && (k == n || !isWord(s[k])) {
		return j, ph
	}
	return 0, ""
}
