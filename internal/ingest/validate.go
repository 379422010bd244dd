package ingest

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// check returns the detail of the batch's first validation error, or "".
func (bt *batch) check() string {
	switch {
	case bt.notObject: // most often the events alone, an array
		return "events: is required: the body must be a JSON object, {\"events\": [ … ]}, not a bare array or value"
	case bt.eventsBad:
		return "events: must be an array of events"
	case !bt.hasEvents:
		return "events: is required"
	case bt.n == 0 || bt.n > MaxEvents:
		return "events: must hold 1 to " + strconv.Itoa(MaxEvents) + " events, not " + strconv.Itoa(bt.n)
	}
	if detail := checkString("service", bt.service, fService, bt.bad, MaxServiceLen); detail != "" {
		return detail
	}
	if blank(bt.service) {
		return "service: " + blankService
	}
	if detail := checkString("environment", bt.environment, fEnvironment, bt.bad, MaxEnvironmentLen); detail != "" {
		return detail
	}
	if detail := checkString("release", bt.release, fRelease, bt.bad, MaxReleaseLen); detail != "" {
		return detail
	}
	// A missing service is the first field of its event, but whether it is
	// missing depends on the batch's service, which may come after the events.
	if bt.service == "" && bt.missSvc >= 0 && (bt.errIdx < 0 || bt.missSvc <= bt.errIdx) {
		return "events[" + strconv.Itoa(bt.missSvc) + "].service: is required on the batch or on every event"
	}
	return bt.errText
}

// checkEvent validates the i-th event in the fixed field order, except for a
// missing service, and sets its level and timestamp from what was sent. It
// returns the detail of the first error, or "".
func (bt *batch) checkEvent(i int, ev *Event, st *eventState, attr *attrScan) string {
	if ev.Service == "" && st.bad&fService == 0 && bt.missSvc < 0 {
		bt.missSvc = i
	}
	prefix := func() string { return "events[" + strconv.Itoa(i) + "]." }
	field := func(name, problem string) string { return prefix() + name + problem }
	for _, f := range [...]struct {
		name string
		v    string
		bit  uint16
		max  int
	}{
		{"service", ev.Service, fService, MaxServiceLen},
		{"environment", ev.Environment, fEnvironment, MaxEnvironmentLen},
		{"release", ev.Release, fRelease, MaxReleaseLen},
	} {
		if detail := checkString(f.name, f.v, f.bit, st.bad, f.max); detail != "" {
			return prefix() + detail
		}
		if f.bit == fService && blank(f.v) {
			return field("service", ": "+blankService)
		}
	}
	switch {
	case st.bad&fMessage != 0:
		return field("message", ": must be a string")
	case strings.TrimSpace(ev.Message) == "":
		// A blank message would make a group with a blank title.
		return field("message", ": is required and must not be empty or only white space")
	case TooLong(ev.Message, MaxMessageBytes):
		return field("message", ": is longer than "+strconv.Itoa(MaxMessageBytes)+" characters")
	}
	if st.bad&fLevel != 0 {
		return field("level", ": must be a string")
	}
	if st.has&fLevel != 0 {
		l, ok := ParseLevel(st.level)
		if !ok {
			return field("level", ": "+quote(st.level)+" is not a level; use debug, info, warn, error or fatal (or a usual synonym)")
		}
		ev.Level = l
	}
	if st.bad&fTimestamp != 0 {
		return field("timestamp", ": must be a string")
	}
	if st.has&fTimestamp != 0 {
		ms, ok := parseTimestamp(st.timestamp)
		if !ok {
			return field("timestamp", ": "+quote(st.timestamp)+" is not an RFC 3339 date-time with a time zone, such as 2024-05-01T12:00:00.000Z")
		}
		ev.Timestamp = ms
	}
	switch {
	case st.bad&fStackTrace != 0:
		return field("stack_trace", ": must be a string")
	case TooLong(ev.StackTrace, MaxStackTraceBytes):
		return field("stack_trace", ": is longer than "+strconv.Itoa(MaxStackTraceBytes)+" characters")
	}
	if detail := checkString("trace_id", ev.TraceID, fTraceID, st.bad, MaxTraceIDLen); detail != "" {
		return prefix() + detail
	}
	if detail := checkString("span_id", ev.SpanID, fSpanID, st.bad, MaxSpanIDLen); detail != "" {
		return prefix() + detail
	}
	switch size := len(attr.raw) - attr.ws; {
	case st.bad&fAttributes != 0:
		return field("attributes", ": must be an object")
	case attr.keys > MaxAttributes:
		return field("attributes", ": has "+strconv.Itoa(attr.keys)+" keys, more than "+strconv.Itoa(MaxAttributes))
	case attr.depth > MaxAttributesDepth:
		return field("attributes", ": nested more than "+strconv.Itoa(MaxAttributesDepth)+" levels deep")
	case size > MaxAttributesBytes:
		return field("attributes", ": is "+strconv.Itoa(size)+" bytes of JSON, more than "+strconv.Itoa(MaxAttributesBytes))
	}
	return ""
}

// checkString checks an optional string field against its type and its
// length in code points.
func checkString(name, v string, bit, bad uint16, max int) string {
	if bad&bit != 0 {
		return name + ": must be a string"
	}
	if len(v) > max && utf8.RuneCountInString(v) > max {
		return name + ": is longer than " + strconv.Itoa(max) + " characters"
	}
	return ""
}

// quote quotes a value for a detail, cut short: details are logged and shown.
func quote(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) > max {
		r := []rune(s)[:max]
		return strconv.Quote(string(r)) + "…"
	}
	return strconv.Quote(s)
}

// parseTimestamp parses an RFC 3339 date-time into Unix milliseconds:
// YYYY-MM-DD, then 'T', 't' or a space, then hh:mm:ss, an optional fraction
// of any length after '.' or ',' (truncated to milliseconds), then 'Z', 'z',
// ±hh:mm or ±hhmm. Seconds may be 60 (a leap second is the next second).
func parseTimestamp(s string) (int64, bool) {
	if len(s) < 20 {
		return 0, false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec := num(11, 2), num(14, 2), num(17, 2)
	if s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':' ||
		(s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
		year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 60 {
		return 0, false
	}
	i, ms := 19, 0
	if s[i] == '.' || s[i] == ',' {
		i++
		k := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			if i-k < 3 {
				ms = ms*10 + int(s[i]-'0')
			}
			i++
		}
		switch i - k {
		case 0:
			return 0, false
		case 1:
			ms *= 100
		case 2:
			ms *= 10
		}
	}
	offset := 0
	switch rest := s[i:]; {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && rest[3] == ':' || len(rest) == 5:
		h, m := num(i+1, 2), num(i+len(rest)-2, 2)
		if h < 0 || h > 23 || m < 0 || m > 59 {
			return 0, false
		}
		offset = h*3600 + m*60
		switch rest[0] {
		case '+':
		case '-':
			offset = -offset
		default:
			return 0, false
		}
	default:
		return 0, false
	}
	secs := daysFromCivil(year, month, day)*86400 + int64(hour*3600+minute*60+sec-offset)
	return secs*1000 + int64(ms), true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil counts days from 1970-01-01 to a proleptic Gregorian date
// (Howard Hinnant's algorithm), for years 0 to 9999.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12 // March is 0
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// TooLong reports whether s holds more than max code points (CONTRACT 6:
// lengths count Unicode code points; "16 KiB" of a message is 16,384 of
// them). Text within max bytes is within max code points uncounted.
func TooLong(s string, max int) bool {
	return len(s) > max && utf8.RuneCountInString(s) > max
}

// blankService is the detail of a service made only of white space: it is
// required, and such a one would name a group's service with nothing
// readable.
const blankService = "must not be only white space"

// blank reports whether s is set but only white space.
func blank(s string) bool { return s != "" && strings.TrimSpace(s) == "" }
