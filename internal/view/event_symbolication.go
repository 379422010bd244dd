package view

import (
	"encoding/json"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/symbolicate"
)

// RawFrameView is a JavaScript frame as the event carried it, before a
// source map gave its original position (CONTRACT 8: "the minified frame is
// kept as raw").
type RawFrameView struct {
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

// Schema describes a raw frame, or null.
func (RawFrameView) Schema(huma.Registry) *huma.Schema {
	return nullableObject("The minified frame as the event carried it; present only on a frame a source map gave its original position",
		map[string]*huma.Schema{"function": stringSchema(), "file": stringSchema(), "line": {Type: huma.TypeInteger}, "column": {Type: huma.TypeInteger}})
}

// SymbolicationView is what source map symbolication did to an event: the
// frames it mapped (original position, context and the raw frame) and its
// notes on the frames it could not map ("no source map for
// ~/static/main.3f9a1c.js (release 1.2.0)").
type SymbolicationView struct {
	Frames []SymbolicatedFrame `json:"frames" nullable:"false"`
	Notes  []string            `json:"notes" nullable:"false"`
}

// SymbolicatedFrame is one frame a source map mapped.
type SymbolicatedFrame struct {
	Function string        `json:"function"`
	File     string        `json:"file"`
	Line     int           `json:"line"`
	Column   int           `json:"column"`
	Context  *FrameContext `json:"context"`
	Raw      RawFrameView  `json:"raw"`
}

// Schema describes the symbolication, or null.
func (SymbolicationView) Schema(r huma.Registry) *huma.Schema {
	frame := &huma.Schema{Type: huma.TypeObject, Required: []string{"function", "file", "line", "column", "context", "raw"}, AdditionalProperties: false,
		Properties: map[string]*huma.Schema{"function": stringSchema(), "file": stringSchema(), "line": {Type: huma.TypeInteger},
			"column": {Type: huma.TypeInteger}, "context": FrameContext{}.Schema(r), "raw": RawFrameView{}.Schema(r)}}
	return nullableObject("What source map symbolication did to a JavaScript event: the frames it mapped and notes on those it could not (\"no source map for ~/static/main.3f9a1c.js (release 1.2.0)\"); absent when the event had no JavaScript frame to map",
		map[string]*huma.Schema{"frames": {Type: huma.TypeArray, Items: frame}, "notes": linesSchema()})
}

// symbolication reads what symbolication stored with an event
// (symbolicate.Result); nil when it did nothing.
func symbolication(raw string) *symbolicate.Result {
	if raw == "" {
		return nil
	}
	var res symbolicate.Result
	if json.Unmarshal([]byte(raw), &res) != nil || len(res.Frames)+len(res.Notes) == 0 {
		return nil
	}
	return &res
}

// symbolicationView is res for the event detail, nil for nil.
func symbolicationView(res *symbolicate.Result) *SymbolicationView {
	if res == nil {
		return nil
	}
	v := &SymbolicationView{Frames: make([]SymbolicatedFrame, 0, len(res.Frames)), Notes: strs(res.Notes)}
	for _, f := range res.Frames {
		sf := SymbolicatedFrame{Function: f.Function, File: f.File, Line: f.Line, Column: f.Column, Raw: rawFrame(f.Raw)}
		if f.Context != nil {
			sf.Context = &FrameContext{Pre: strs(f.Context.Pre), Line: f.Context.Line, Post: strs(f.Context.Post)}
		}
		v.Frames = append(v.Frames, sf)
	}
	return v
}

func rawFrame(r symbolicate.RawFrame) RawFrameView {
	return RawFrameView{Function: r.Function, File: r.File, Line: r.Line, Column: r.Column}
}

// symbolicatedSources is the source context symbolication found for the
// original frames it wrote into the trace.
func symbolicatedSources(res *symbolicate.Result) []ingest.FrameSource {
	if res == nil {
		return nil
	}
	var out []ingest.FrameSource
	for _, f := range res.Frames {
		if f.Context != nil {
			out = append(out, ingest.FrameSource{File: f.File, Function: f.Function, Line: f.Line, Pre: f.Context.Pre, Text: f.Context.Line, Post: f.Context.Post})
		}
	}
	return out
}

// withRaw gives each parsed frame that symbolication mapped its raw frame:
// the mapped frame of the same original line, column and file, each used
// once.
func withRaw(fs []FrameView, res *symbolicate.Result) {
	if res == nil {
		return
	}
	used := make([]bool, len(res.Frames))
	for k := range fs {
		f := &fs[k]
		if f.Line == nil {
			continue
		}
		for i, sf := range res.Frames {
			if used[i] || sf.Line != *f.Line || (f.Column != nil && *f.Column != sf.Column) ||
				!(sameFile(sf.File, f.File) || sameFile(sf.File, f.Module)) {
				continue
			}
			used[i] = true
			r := rawFrame(sf.Raw)
			f.Raw = &r
			break
		}
	}
}
