package web

import (
	"strings"

	"github.com/errata-dev/errata/internal/grouping"
)

// Stack traces are shown as their own lines, frame by frame, with the
// frames and the application-or-library decision of internal/grouping: the
// parser that fingerprints events and names a group's culprit, so the page
// sets apart exactly the frames the grouping counted as application code.

// stackItem is one frame of a trace, or one line that is not part of a frame.
type stackItem struct {
	Lines []string
	Frame bool
	App   bool // an application frame (not the standard library or a dependency)
}

// parseStack splits a stack trace into frames and plain lines, in order;
// every line of s (split at "\n", without "\r") is in exactly one item. A
// frame is the line grouping.ParseStack says it starts on plus the lines
// right after it that are indented deeper (a Go frame's location, a Python
// frame's source line). Unknown formats are all plain lines.
func parseStack(s string) (language string, items []stackItem) {
	lines := strings.Split(s, "\n")
	for k, l := range lines {
		lines[k] = strings.TrimSuffix(l, "\r")
	}
	st := grouping.ParseStack(s)
	starts := make(map[int]bool, len(st.Lines))
	for k, n := range st.Lines {
		if _, seen := starts[n]; !seen && n >= 0 && n < len(lines) && k < len(st.Frames) {
			starts[n] = st.Frames[k].InApp
		}
	}
	for k := 0; k < len(lines); k++ {
		app, isFrame := starts[k]
		if !isFrame {
			items = append(items, stackItem{Lines: lines[k : k+1]})
			continue
		}
		end, depth := k+1, indent(lines[k])
		for end < len(lines) {
			if _, next := starts[end]; next || strings.TrimSpace(lines[end]) == "" || indent(lines[end]) <= depth {
				break
			}
			end++
		}
		items = append(items, stackItem{Lines: lines[k:end], Frame: true, App: app})
		k = end - 1
	}
	return st.Language, items
}

// indent is the width of a line's leading blanks, a tab counting as one.
func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

// stackBlock is what a trace page shows in one piece: plain text, one
// application frame, or a run of library frames, collapsed.
type stackBlock struct {
	Kind   string // "text", "app" or "library"
	Text   string
	Frames int // frames in a library run
}

// stackView is a trace laid out for a page.
type stackView struct {
	Language string
	Blocks   []stackBlock
	// AppFrames counts application frames; 0 means none was recognised.
	AppFrames, LibraryFrames int
}

// newStackView lays out a trace: consecutive plain lines join into one text
// block, each application frame stands alone, and consecutive library frames
// join into one block the page collapses. Trailing blank lines are dropped.
func newStackView(s string) stackView {
	s = strings.TrimRight(s, "\r\n")
	lang, items := parseStack(s)
	v := stackView{Language: lang}
	var cur *stackBlock
	for _, it := range items {
		kind := "text"
		switch {
		case it.Frame && it.App:
			kind = "app"
			v.AppFrames++
		case it.Frame:
			kind = "library"
			v.LibraryFrames++
		}
		if cur == nil || cur.Kind != kind || kind == "app" {
			v.Blocks = append(v.Blocks, stackBlock{Kind: kind})
			cur = &v.Blocks[len(v.Blocks)-1]
		} else {
			cur.Text += "\n"
		}
		cur.Text += strings.Join(it.Lines, "\n")
		if it.Frame && !it.App {
			cur.Frames++
		}
	}
	return v
}
