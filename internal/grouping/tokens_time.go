package grouping

// Matchers for dates, times and durations. Each returns the end of its match
// (0 when there is none) and, where it varies, the placeholder.

// matchDate matches numeric dates at i: ISO 8601 "2024-01-02" or
// "2024/01/02" with an optional time and zone, "02/01/2024" and "02.01.2024",
// and the Apache log form "02/Jan/2024:15:04:05 -0700".
func matchDate(s string, i int) (int, string) {
	n := len(s)
	k := runOf(s, i, 5, isDigit)
	if k >= n {
		return 0, ""
	}
	sep := s[k]
	switch {
	case k-i == 4 && (sep == '-' || sep == '/'):
		m := k + 1
		mEnd := runOf(s, m, 3, isDigit)
		if mEnd-m != 2 || mEnd >= n || s[mEnd] != sep {
			return 0, ""
		}
		d := mEnd + 1
		dEnd := runOf(s, d, 3, isDigit)
		if dEnd-d != 2 || !validMonthDay(s[m:mEnd], s[d:dEnd]) {
			return 0, ""
		}
		return dateTail(s, dEnd)
	case k-i <= 2 && (sep == '/' || sep == '.' || sep == '-'):
		m := k + 1
		if sep == '/' && m+3 < n && monthIndex(s[m:m+3]) >= 0 && s[m+3] == '/' {
			y := m + 4
			if runOf(s, y, 5, isDigit)-y != 4 || y+4 >= n || s[y+4] != ':' {
				return 0, ""
			}
			end, ok := matchClock(s, y+5)
			if !ok {
				return 0, ""
			}
			return matchZone(s, end, true), phDatetime
		}
		mEnd := runOf(s, m, 3, isDigit)
		if mEnd == m || mEnd-m > 2 || mEnd >= n || s[mEnd] != sep {
			return 0, ""
		}
		y := mEnd + 1
		yEnd := runOf(s, y, 5, isDigit)
		if yEnd-y != 4 {
			return 0, ""
		}
		return dateTail(s, yEnd)
	}
	return 0, ""
}

// dateTail continues a date ending at k with an optional "T15:04:05" or
// " 15:04:05" and zone.
func dateTail(s string, k int) (int, string) {
	if k+1 < len(s) && (s[k] == 'T' || s[k] == ' ' || s[k] == '_') && isDigit(s[k+1]) {
		if end, ok := matchClock(s, k+1); ok || end > 0 {
			return matchZone(s, end, true), phDatetime
		}
	}
	if !boundary(s, k) {
		return 0, ""
	}
	return k, phDate
}

func validMonthDay(m, d string) bool {
	mm := int(m[0]-'0')*10 + int(m[1]-'0')
	dd := int(d[0]-'0')*10 + int(d[1]-'0')
	return mm >= 1 && mm <= 12 && dd >= 1 && dd <= 31
}

// matchClock matches HH:MM[:SS[.frac]] at k. It returns the end (0 when
// nothing matched) and whether seconds were present.
func matchClock(s string, k int) (int, bool) {
	h := runOf(s, k, 3, isDigit)
	if h == k || h-k > 2 || h+2 >= len(s) || s[h] != ':' {
		return 0, false
	}
	m := runOf(s, h+1, 3, isDigit)
	if m-h-1 != 2 || s[h+1] > '5' {
		return 0, false
	}
	if m+2 < len(s) && s[m] == ':' && isDigit(s[m+1]) {
		sec := runOf(s, m+1, 3, isDigit)
		if sec-m-1 != 2 || s[m+1] > '6' {
			return 0, false
		}
		end := sec
		if end+1 < len(s) && (s[end] == '.' || s[end] == ',') && isDigit(s[end+1]) {
			end = runOf(s, end+1, 10, isDigit)
		}
		return end, true
	}
	return m, false
}

// matchZone extends a time ending at k with a zone: "Z", "+07:00", "-0700",
// and, when spaced is set, " +0000 UTC" or " UTC".
func matchZone(s string, k int, spaced bool) int {
	n := len(s)
	if k < n && s[k] == 'Z' && boundary(s, k+1) {
		return k + 1
	}
	z := k
	if spaced && z+1 < n && s[z] == ' ' && (s[z+1] == '+' || s[z+1] == '-') {
		z++
	}
	if z < n && (s[z] == '+' || s[z] == '-') {
		e := runOf(s, z+1, 5, isDigit)
		if e-z-1 == 2 && e+2 < n && s[e] == ':' && runOf(s, e+1, 3, isDigit)-e-1 == 2 {
			e += 3
		}
		if (e-z-1 == 2 || e-z-1 == 4 || e-z-4 == 2) && boundary(s, e) {
			k = e
		}
	}
	if spaced && k+2 < n && s[k] == ' ' && isUpper(s[k+1]) {
		e := runOf(s, k+1, 6, isUpper)
		if e-k-1 >= 2 && e-k-1 <= 5 && boundary(s, e) && isZoneAbbrev(s[k+1:e]) {
			k = e
		}
	}
	return k
}

// isZoneAbbrev accepts the abbreviations seen in logs ("UTC", "GMT", "CEST",
// "PST") and nothing that is a common upper-case word.
func isZoneAbbrev(z string) bool {
	if z == "UTC" || z == "GMT" || z == "Z" {
		return true
	}
	return len(z) >= 3 && len(z) <= 4 && (z[len(z)-1] == 'T') && z != "NOT" && z != "GET" && z != "PUT"
}

// matchTime matches a clock with seconds, "15:04:05.123Z".
func matchTime(s string, i int) int {
	end, sec := matchClock(s, i)
	if !sec {
		return 0
	}
	end = matchZone(s, end, false)
	if !boundary(s, end) {
		return 0
	}
	return end
}

var monthNames = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
var dayNames = [...]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// fullNames are the spelled-out month and day names nameAt accepts.
var fullNames = map[string]bool{
	"January": true, "February": true, "March": true, "April": true, "June": true, "July": true,
	"August": true, "September": true, "October": true, "November": true, "December": true,
	"Monday": true, "Tuesday": true, "Wednesday": true, "Thursday": true, "Friday": true,
	"Saturday": true, "Sunday": true,
}

func monthIndex(w string) int {
	for k, m := range monthNames {
		if w == m {
			return k
		}
	}
	return -1
}

// nameAt matches one of names at k, in its short form or spelled out
// ("Jan"/"January", "Mon"/"Monday"), and returns the end.
func nameAt(s string, k int, names []string) int {
	if k+3 > len(s) {
		return 0
	}
	for _, name := range names {
		if s[k:k+3] == name {
			e := k + 3
			for e < len(s) && isLetter(s[e]) && !isUpper(s[e]) {
				e++
			}
			if e == k+3 || fullNames[s[k:e]] {
				return e
			}
		}
	}
	return 0
}

func skipSpaces(s string, k int) int {
	for k < len(s) && s[k] == ' ' {
		k++
	}
	return k
}

// matchNamedDate matches dates that spell the month: RFC 1123 "Mon, 02 Jan
// 2006 15:04:05 MST", RFC 2822 "Mon, 2 Jan 2006 15:04:05 -0700", RFC 850
// "Monday, 02-Jan-06 15:04:05 MST", ANSI C "Mon Jan  2 15:04:05 2006", Unix
// "Mon Jan 2 15:04:05 MST 2006", syslog "Jan  2 15:04:05" and "2 Jan 2006".
// A month and day alone ("May 5") are not a date.
func matchNamedDate(s string, i int) (int, string) {
	k := i
	if e := nameAt(s, k, dayNames[:]); e > 0 {
		k = e
		if k < len(s) && s[k] == ',' {
			k++
		}
		if k >= len(s) || s[k] != ' ' {
			return 0, ""
		}
		k = skipSpaces(s, k)
	}
	full := false
	if d := runOf(s, k, 3, isDigit); d > k && d-k <= 2 && d < len(s) && (s[d] == ' ' || s[d] == '-') {
		sep := s[d]
		m := nameAt(s, d+1, monthNames[:])
		if m == 0 || m >= len(s) || s[m] != sep {
			return 0, ""
		}
		y := runOf(s, m+1, 5, isDigit)
		if y-m-1 != 4 && y-m-1 != 2 {
			return 0, ""
		}
		k, full = y, true
	} else if m := nameAt(s, k, monthNames[:]); m > 0 && m < len(s) && s[m] == ' ' {
		d := skipSpaces(s, m)
		e := runOf(s, d, 3, isDigit)
		if e == d || e-d > 2 {
			return 0, ""
		}
		k = e
		if k+5 < len(s) && s[k] == ',' && s[k+1] == ' ' && runOf(s, k+2, 5, isDigit)-k-2 == 4 {
			k, full = k+6, true
		}
	} else {
		return 0, ""
	}
	clock := false
	if t := skipSpaces(s, k); t > k && t < len(s) && isDigit(s[t]) {
		if end, sec := matchClock(s, t); sec {
			k, clock = matchZone(s, end, true), true
			if y := skipSpaces(s, k); y > k && runOf(s, y, 5, isDigit)-y == 4 && boundary(s, y+4) {
				k = y + 4
			}
		}
	}
	switch {
	case !boundary(s, k):
		return 0, ""
	case clock:
		return k, phDatetime
	case full:
		return k, phDate
	}
	return 0, ""
}

// durationUnits are the units a number may carry to be a duration, glued
// ("150ms", "2h30m") or after one space ("3 seconds"; single letters only glued).
var durationUnits = map[string]bool{
	"ns": true, "us": true, "µs": true, "μs": true, "ms": true, "s": true, "m": true, "h": true, "d": true,
	"sec": true, "secs": true, "second": true, "seconds": true, "min": true, "mins": true,
	"minute": true, "minutes": true, "hr": true, "hrs": true, "hour": true, "hours": true,
	"day": true, "days": true, "week": true, "weeks": true, "millisecond": true, "milliseconds": true,
	"microsecond": true, "microseconds": true, "nanosecond": true, "nanoseconds": true,
}

// matchDuration matches a number with a time unit at i: "150ms", "1.5s",
// "2h30m15s", "3 seconds".
func matchDuration(s string, i int) int {
	k := i
	for parts := 0; ; parts++ {
		d := runOf(s, k, len(s), isDigit)
		if d == k {
			return 0
		}
		if d+1 < len(s) && s[d] == '.' && isDigit(s[d+1]) {
			d = runOf(s, d+1, len(s), isDigit)
		}
		u := d
		spaced := false
		if parts == 0 && u+1 < len(s) && s[u] == ' ' {
			u++
			spaced = true
		}
		e := u
		for e < len(s) && (isLetter(s[e]) || s[e] >= 0x80) {
			e++
		}
		unit := s[u:e]
		if e == u || !durationUnits[unit] || (spaced && len(unit) < 2) {
			return 0 // after a first part, a digit follows: not a boundary
		}
		k = e
		if spaced || k >= len(s) || !isDigit(s[k]) {
			if !boundary(s, k) {
				return 0
			}
			return k
		}
	}
}
