package symbolicate

// maxContextLine is the most characters a line of source context keeps, as
// Sentry keeps them: a vendored, minified line in sourcesContent would
// otherwise be stored whole with every event.
const maxContextLine = 140

// snip cuts a context line longer than maxContextLine to the part around
// col (0-based), marking what was cut with "{snip}".
func snip(line string, col int) string {
	r := []rune(line)
	if len(r) <= maxContextLine {
		return line
	}
	start := min(max(0, col-maxContextLine/2), len(r)-maxContextLine)
	out := string(r[start : start+maxContextLine])
	if start > 0 {
		out = "{snip} " + out
	}
	if start+maxContextLine < len(r) {
		out += " {snip}"
	}
	return out
}

// snipAll is snip of lines around no column (their start kept).
func snipAll(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = snip(l, 0)
	}
	return out
}
