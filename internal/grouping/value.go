package grouping

import "strings"

// maxValue is the longest exception value, in runes, that takes part in a
// fingerprint: past it, a value is data (a dump, a response body).
const maxValue = 200

// nullValues are what loggers print for an exception without a message
// (logback's "java.lang.NullPointerException: null"): the same as none.
var nullValues = map[string]bool{"null": true, "None": true, "nil": true, "undefined": true, "(null)": true, "<nil>": true}

// valueTails end an exception value with the query that failed: Laravel's
// "… (SQL: select …)" and "… (Connection: mysql, SQL: …)". The query is
// where the failure happened, which the frames already say; its bound values
// are data.
var valueTails = []string{" (SQL: ", " (Connection: "}

// exceptionValue is what an exception's message contributes to a
// fingerprint under algorithm a: its first line without the failed query,
// parameterised with the value rules, at most maxValue runes.
func exceptionValue(msg string, a *algorithm) string {
	msg = strings.TrimSpace(msg)
	if k := strings.IndexByte(msg, '\n'); k >= 0 {
		msg = strings.TrimSpace(msg[:k])
	}
	for _, tail := range valueTails {
		if k := strings.Index(msg, tail); k >= 0 {
			msg = strings.TrimSpace(msg[:k])
		}
	}
	if nullValues[msg] {
		return ""
	}
	return truncate(parameterize(msg, a.valueRules()), maxValue)
}
