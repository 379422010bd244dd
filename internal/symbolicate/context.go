package symbolicate

// maxContextLine is the most characters a line of source context keeps, as
// Sentry keeps them: a vendored, minified line in sourcesContent would
// otherwise be stored whole with every event.
const maxContextLine = 140

// snip cuts a context line longer than 150 characters to about
// maxContextLine around col (0-based), marking what was cut with "{snip}",
// as Sentry's trim_line does: from 60 characters before the (1-based)
// column, 140 characters, an end within 5 characters of the line's taken
// to it, and a cut at the end giving the whole 140 from there.
func snip(line string, col int) string {
	r := []rune(line)
	n := len(r)
	if n <= maxContextLine+10 {
		return line
	}
	column := min(col+1, n)
	start := max(column-60, 0)
	if start < 5 {
		start = 0
	}
	end := min(start+maxContextLine, n)
	if end > n-5 {
		end = n
	}
	if end == n {
		start = max(end-maxContextLine, 0)
	}
	out := string(r[start:end])
	if end < n {
		out += " {snip}"
	}
	if start > 0 {
		out = "{snip} " + out
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
