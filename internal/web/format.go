package web

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/dustin/go-humanize"
)

// Numbers and titles as pages show them.

func init() {
	funcs["count"] = count
	funcs["sampleOf"] = sampleOf
	funcs["titleOf"] = titleOf
	funcs["symbol"] = symbol
	funcs["plural"] = func(n any, one, many string) string { return countNoun(toInt64(n), one, many) }
}

// count writes an integer with thousands separators: 12,345. Every count a
// page shows goes through it (the "count" template func).
func count(n any) string { return humanize.Comma(toInt64(n)) }

// toInt64 converts the integer types pages count in.
func toInt64(n any) int64 {
	switch v := n.(type) {
	case int:
		return int64(v)
	case int64:
		return v
	case int32:
		return int64(v)
	}
	panic(fmt.Sprintf("web: count of a %T", n))
}

// countNoun writes n with the singular or plural noun: "1 error",
// "12,345 errors".
func countNoun(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return humanize.Comma(n) + " " + many
}

// placeholder matches the variable parts grouping and INFO summaries put in
// titles and templates: <int>, <uuid>, <ip>..., and those of a template its
// sender gave (printf's %s and %(name)s, {name}, {0}, {}).
var placeholder = regexp.MustCompile(`<[a-z][a-z0-9_]*>|%[-+#0-9.]*[sdifvqxXeEgG]|%\([A-Za-z_][A-Za-z0-9_]*\)[sdif]|\{[A-Za-z0-9_.]*\}`)

// sampleOf is the sample shown under a title or template made of
// placeholders ("order <int>-<int>-<int> failed"): the first line of a real
// message of it, cut to 120 characters. It is "" when the title has no
// placeholder (it then reads well alone) or the sample says nothing more.
func sampleOf(title, sample string) string {
	if !placeholder.MatchString(title) {
		return ""
	}
	s := firstLine(strings.TrimSpace(sample))
	if s == "" || s == title {
		return ""
	}
	return s
}

// shownTitle is a group's or ticket's title as lists and headings show it
// (issue 29): Text is what a person reads, Template, when set, the title
// with placeholders that groups the events, for the hover text.
type shownTitle struct{ Text, Template string }

// titleOf shows a title made of placeholders ("order <int> failed") as the
// latest sample message's first line ("order 1234 failed"), keeping the
// title as the template; any other title as it is. Python's __main__.
// module prefix is dropped from both.
func titleOf(title, sample string) shownTitle {
	if s := sampleOf(title, sample); s != "" {
		return shownTitle{Text: symbol(s), Template: symbol(title)}
	}
	return shownTitle{Text: symbol(title)}
}

// symbol drops the "__main__." Python puts before the names of a script
// run directly (__main__.PaymentError, __main__.charge): it says nothing
// about where the error is.
func symbol(s string) string { return strings.ReplaceAll(s, "__main__.", "") }
