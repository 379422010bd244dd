package sentry

import (
	"bytes"
	"encoding/json"

	"github.com/errata-dev/errata/internal/ingest"
)

// breadcrumb is one entry of a Sentry event's breadcrumbs.
type breadcrumb struct {
	Timestamp json.RawMessage `json:"timestamp"` // RFC 3339 string or seconds
	Type      string          `json:"type"`
	Category  string          `json:"category"`
	Level     string          `json:"level"`
	Message   string          `json:"message"`
	Data      json.RawMessage `json:"data"`
}

// maxContextLines caps the source lines kept on either side of a frame's
// line; SDKs send five.
const maxContextLines = 10

// eventDetail is what a Sentry event keeps for the event detail only
// (CONTRACT 8): its last ingest.MaxBreadcrumbs breadcrumbs and the source
// context of its frames, encoded; nil when it has neither.
func eventDetail(se *sentryEvent, excs []exception, m *mapping) json.RawMessage {
	var d ingest.Detail
	crumbs := se.Breadcrumbs.Values
	if len(crumbs) > ingest.MaxBreadcrumbs {
		crumbs = crumbs[len(crumbs)-ingest.MaxBreadcrumbs:]
	}
	if len(crumbs) > 0 {
		d.Breadcrumbs = make([]ingest.Breadcrumb, 0, len(crumbs))
	}
	for k := range crumbs {
		c := &crumbs[k]
		b := ingest.Breadcrumb{
			Category: limitBytes(clean(c.Category), ingest.MaxBreadcrumbCategory),
			Level:    limitBytes(clean(c.Level), ingest.MaxBreadcrumbLevel),
			Message:  limitBytes(clean(c.Message), ingest.MaxBreadcrumbMessage),
		}
		if b.Category == "" {
			b.Category = limitBytes(clean(c.Type), ingest.MaxBreadcrumbCategory)
		}
		if ms := eventTime(c.Timestamp, -1); ms >= 0 {
			b.Timestamp = &ms
		}
		if data := bytes.TrimSpace(c.Data); len(data) > 0 && data[0] == '{' && len(data) <= ingest.MaxBreadcrumbDataBytes && json.Valid(data) {
			b.Data = m.redact.Redact(data)
		}
		d.Breadcrumbs = append(d.Breadcrumbs, b)
	}
	add := func(frames []frame) {
		for k := range frames {
			f := &frames[k]
			if f.ContextLine == "" || f.Lineno <= 0 || len(d.Sources) >= maxFrames*maxChain {
				continue
			}
			d.Sources = append(d.Sources, ingest.FrameSource{File: clean(framePath(f)), Function: clean(frameFunction(f)), Line: f.Lineno,
				Pre: contextLines(f.PreContext, true), Text: clean(cutUTF8(f.ContextLine, maxContextBytes)), Post: contextLines(f.PostContext, false)})
		}
	}
	for k := range excs {
		if st := excs[k].Stacktrace; st != nil {
			add(st.Frames)
		}
	}
	add(threadFrames(se))
	return d.Encode()
}

// maxContextBytes caps one line of source context.
const maxContextBytes = 1024

// contextLines keeps the maxContextLines lines nearest the frame's line:
// the last ones before it (pre), the first ones after it.
func contextLines(lines []string, pre bool) []string {
	if len(lines) > maxContextLines {
		if pre {
			lines = lines[len(lines)-maxContextLines:]
		} else {
			lines = lines[:maxContextLines]
		}
	}
	out := make([]string, len(lines))
	for k, l := range lines {
		out[k] = clean(cutUTF8(l, maxContextBytes))
	}
	return out
}
