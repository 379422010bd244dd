// Package symbolicate maps the minified JavaScript frames of an event's
// stack trace to their original file, function, line and column through
// the source maps uploaded for its project (CONTRACT 8, docs/sourcemaps.md).
// It runs in the processing worker, never before an event is accepted: a
// map is found by the debug id the event names for the frame's file, else
// by the event's release, dist and the file's URL ("~/static/main.js"
// style, as sentry-cli uploads them). Parsed maps are cached within a byte
// budget (ERRATA_SOURCEMAP_CACHE).
package symbolicate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
)

// DefaultCache is the parsed-map cache budget without ERRATA_SOURCEMAP_CACHE.
const DefaultCache = 256 << 20

// contextLines is how many lines of original source a frame gets on either
// side.
const contextLines = 5

// lookupTTL is how long the artifact found for a file is reused before
// the database is asked again; missTTL how long "none" is, so that a map
// uploaded after a first error is used within seconds by every process
// (the process that took the upload forgets its misses at once: Forget).
const (
	lookupTTL = time.Minute
	missTTL   = 2 * time.Second
)

// Symbolicator maps events' frames. It is safe for concurrent use.
type Symbolicator struct {
	db    *store.DB
	cache *mapCache
	now   func() time.Time

	mu    sync.Mutex
	found map[string]lookup // project, debug id or release+dist+URL → artifact id ("" none)
}

type lookup struct {
	artifactID string
	at         time.Time
}

// New returns a Symbolicator whose parsed maps take at most cacheBytes.
func New(db *store.DB, cacheBytes int64) *Symbolicator {
	if cacheBytes <= 0 {
		cacheBytes = DefaultCache
	}
	return &Symbolicator{db: db, cache: newMapCache(cacheBytes), now: time.Now, found: map[string]lookup{}}
}

// Frame is a symbolicated frame as stored with the event (the event detail's
// frames): the original position, context, and the minified frame as sent.
type Frame struct {
	Function string   `json:"function,omitempty"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Context  *Context `json:"context,omitempty"`
	Raw      RawFrame `json:"raw"`
}

// Context is source around a frame's line.
type Context struct {
	Pre  []string `json:"pre"`
	Line string   `json:"line"`
	Post []string `json:"post"`
}

// RawFrame is the minified frame as the event carried it.
type RawFrame struct {
	Function string `json:"function,omitempty"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

// Result is what symbolication stored with an event (ingest.Event's
// Symbolication): the frames it mapped, newest call first as in the
// trace, and notes on those it could not.
type Result struct {
	Frames []Frame  `json:"frames,omitempty"`
	Notes  []string `json:"notes,omitempty"`
}

// v8Frame is one "    at fn (file:line:col)" or "    at file:line:col" line.
var v8Frame = regexp.MustCompile(`^(\s+at )(?:(.+?) \((.+?):(\d+):(\d+)\)|(.+?):(\d+):(\d+))$`)

// isScript reports whether a frame's file looks like a JavaScript file
// served to a browser or run by Node.
func isScript(file string) bool {
	p := file
	if u, err := url.Parse(file); err == nil && u.Path != "" {
		p = u.Path
	}
	switch path.Ext(p) {
	case ".js", ".mjs", ".cjs", ".jsx":
		return true
	}
	return false
}

// Event symbolicates e, an event of project projectID, in place: its stack
// trace's JavaScript frames are rewritten to their original positions and
// e.Symbolication records the raw frames and notes. Without any JavaScript
// frame it does nothing. Database failures are returned; a missing or
// broken map is a note, never an error.
func (s *Symbolicator) Event(ctx context.Context, projectID string, e *ingest.Event) error {
	if e.StackTrace == "" || !strings.Contains(e.StackTrace, "    at ") {
		return nil
	}
	lines := strings.Split(e.StackTrace, "\n")
	var res Result
	var debugIDs map[string]string
	var dist string
	refsRead := false
	noted := map[string]bool{}
	var done []mapped // in the trace's order, newest call first
	for i, l := range lines {
		m := v8Frame.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		raw := RawFrame{Function: m[2], File: m[3]}
		ln, col := m[4], m[5]
		if m[6] != "" {
			raw.File, ln, col = m[6], m[7], m[8]
		}
		raw.Line, _ = strconv.Atoi(ln)
		raw.Column, _ = strconv.Atoi(col)
		if !isScript(raw.File) {
			continue
		}
		if !refsRead { // only events with a script frame pay for reading their attributes
			debugIDs, dist = eventRefs(e.Attributes)
			refsRead = true
		}
		pm, note, err := s.mapFor(ctx, projectID, e.Release, dist, debugIDs[raw.File], raw.File)
		if err != nil {
			return err
		}
		if pm == nil {
			if !noted[note] {
				noted[note] = true
				res.Notes = append(res.Notes, note)
			}
			continue
		}
		mf, ok := resolve(pm, raw)
		if !ok {
			n := fmt.Sprintf("no mapping for %s:%d:%d in its source map", tilde(raw.File), raw.Line, raw.Column)
			if !noted[n] {
				noted[n] = true
				res.Notes = append(res.Notes, n)
			}
			continue
		}
		mf.line, mf.prefix = i, m[1]
		done = append(done, mf)
	}
	for k := range done {
		f := &done[k]
		var caller *mapped
		// The caller is the next line of the trace, when that line is a
		// mapped frame: not a native frame, nor another exception of a
		// chain after its "Caused by:" line.
		if k+1 < len(done) && done[k+1].line == f.line+1 {
			caller = &done[k+1]
		}
		f.Function = functionName(f, caller)
		res.Frames = append(res.Frames, f.Frame)
		lines[f.line] = f.prefix + render(f.Frame)
	}
	if len(done) > 0 {
		e.Attributes = demoteDependencies(e.Attributes, lines, done)
		e.StackTrace = strings.Join(lines, "\n")
	}
	if len(res.Frames) > 0 || len(res.Notes) > 0 {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		e.Symbolication = b
	}
	return nil
}

func render(f Frame) string {
	loc := f.File + ":" + strconv.Itoa(f.Line) + ":" + strconv.Itoa(f.Column)
	if f.Function == "" {
		return loc
	}
	return f.Function + " (" + loc + ")"
}

// mapped is a frame resolve mapped, with what naming its function takes.
type mapped struct {
	Frame
	pm     *parsedMap
	source sourceKey // the map's entry of the original file
	callee string    // the map's name at the frame's position: what it calls
	line   int       // the frame's line in the stack trace text
	prefix string    // the text before the frame on that line
}

// resolve maps a raw frame through pm; its function is left for
// functionName. V8 columns are 1-based, the map's 0-based.
func resolve(pm *parsedMap, raw RawFrame) (mapped, bool) {
	source, name, line, col, ok := locate(pm.c, raw.Line, max(raw.Column-1, 0))
	if !ok || source.name == "" || line <= 0 {
		return mapped{}, false
	}
	f := mapped{Frame: Frame{File: cleanSource(source.name), Line: line, Column: col + 1, Raw: raw}, pm: pm, source: source, callee: name}
	src := pm.sourceLines(source)
	if line <= len(src) {
		f.Context = &Context{Line: snip(src[line-1], col), Pre: snipAll(src[max(0, line-1-contextLines) : line-1]), Post: snipAll(src[line:min(len(src), line+contextLines)])}
	}
	return f, true
}

// cleanSource shortens the source paths bundlers write ("webpack://app/./src/a.js",
// "../src/a.ts") to the project-relative path.
func cleanSource(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
		if j := strings.IndexByte(s, '/'); j >= 0 {
			s = s[j+1:]
		}
	}
	for strings.HasPrefix(s, "../") || strings.HasPrefix(s, "./") {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "../"), "./")
	}
	return s
}

// eventRefs reads the Sentry mapping's debug ids (file → id) and dist.
func eventRefs(attrs json.RawMessage) (map[string]string, string) {
	if len(attrs) == 0 || !strings.Contains(string(attrs), "sentry.") {
		return nil, ""
	}
	var a map[string]any
	if json.Unmarshal(attrs, &a) != nil {
		return nil, ""
	}
	dist, _ := a[ingest.AttrDist].(string)
	ids := map[string]string{}
	if v, ok := a[ingest.AttrDebugIDs].(string); ok {
		for _, l := range strings.Split(v, "\n") {
			if id, file, ok := strings.Cut(l, " "); ok {
				ids[file] = id
			}
		}
	}
	return ids, dist
}

// mapFor finds and parses the source map of file: by debug id, else by
// release, dist and URL. Without one it returns the note to record.
func (s *Symbolicator) mapFor(ctx context.Context, projectID, release, dist, debugID, file string) (*parsedMap, string, error) {
	a, err := s.find(ctx, projectID, release, dist, debugID, file)
	if err != nil {
		return nil, "", err
	}
	if a.ID == "" {
		note := "no source map for " + tilde(file)
		switch {
		case release != "" && dist != "": // a dist the upload did not name is a common miss
			note += " (release " + release + ", dist " + dist + ")"
		case release != "":
			note += " (release " + release + ")"
		}
		if debugID != "" {
			note += " (debug id " + debugID + ")"
		}
		return nil, note, nil
	}
	if pm := s.cache.get(a.ID); pm != nil {
		return pm, "", nil
	}
	data, err := s.db.Read().ArtifactData(ctx, a)
	if err != nil {
		return nil, "", err
	}
	pm, err := parse(a.URL, data)
	if err != nil {
		return nil, "the source map " + a.URL + " for " + tilde(file) + " does not parse: " + err.Error(), nil
	}
	s.cache.put(a.ID, pm)
	return pm, "", nil
}

// parse parses a source map (decodeMap); its cost is about the memory
// the parsed map holds.
func parse(url string, data []byte) (*parsedMap, error) {
	c, cost, err := decodeMap(url, data)
	if err != nil {
		return nil, err
	}
	return &parsedMap{c: c, cost: cost}, nil
}

// Forget drops the remembered misses of a project's files: an upload to
// it may have brought their maps.
func (s *Symbolicator) Forget(projectID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, l := range s.found {
		if l.artifactID == "" && strings.HasPrefix(k, projectID+"\x00") {
			delete(s.found, k)
		}
	}
}

// find returns the source map artifact of a file (ID "" when there is
// none), remembering the answer for lookupTTL (missTTL for none).
func (s *Symbolicator) find(ctx context.Context, projectID, release, dist, debugID, file string) (store.Artifact, error) {
	key := projectID + "\x00" + debugID + "\x00" + release + "\x00" + dist + "\x00" + file
	now := s.now()
	s.mu.Lock()
	l, ok := s.found[key]
	if len(s.found) > 100_000 {
		clear(s.found)
	}
	s.mu.Unlock()
	if ok && l.artifactID == "" && now.Sub(l.at) < missTTL {
		return store.Artifact{}, nil
	}
	if ok && l.artifactID != "" && now.Sub(l.at) < lookupTTL {
		if pm := s.cache.get(l.artifactID); pm != nil {
			return store.Artifact{ID: l.artifactID}, nil
		}
	}
	a, err := s.lookup(ctx, projectID, release, dist, debugID, file)
	if err != nil {
		return store.Artifact{}, err
	}
	s.mu.Lock()
	s.found[key] = lookup{a.ID, now}
	s.mu.Unlock()
	return a, nil
}

func (s *Symbolicator) lookup(ctx context.Context, projectID, release, dist, debugID, file string) (store.Artifact, error) {
	c := s.db.Read()
	if debugID != "" {
		a, err := c.ArtifactByDebugID(ctx, projectID, debugID, "source_map")
		if !errors.Is(err, store.ErrNotFound) {
			return a, err
		}
	}
	if release == "" {
		return store.Artifact{}, nil
	}
	rel, err := c.ReleaseByVersion(ctx, projectID, release)
	if errors.Is(err, store.ErrNotFound) {
		return store.Artifact{}, nil
	}
	if err != nil {
		return store.Artifact{}, err
	}
	for _, name := range candidates(file) {
		got, err := c.ArtifactByURL(ctx, rel.ID, dist, name)
		if errors.Is(err, store.ErrNotFound) { // only the map was uploaded, as <file>.map
			got, err = c.ArtifactByURL(ctx, rel.ID, dist, name+".map")
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
		}
		if err != nil {
			return store.Artifact{}, err
		}
		if got.Kind == "source_map" {
			return got, nil
		}
		if got.DebugID != "" {
			a, err := c.ArtifactByDebugID(ctx, projectID, got.DebugID, "source_map")
			if !errors.Is(err, store.ErrNotFound) {
				return a, err
			}
		}
		ref := got.SourceMap
		if ref == "" {
			tail, err := c.ArtifactTail(ctx, got.ID, 4096)
			if err != nil {
				return store.Artifact{}, err
			}
			ref = sourceMappingURL(tail)
		}
		if ref == "" {
			ref = path.Base(name) + ".map"
		}
		// An absolute reference (https://shop.example.com/maps/x.map) may
		// have been uploaded in the "~/path" form, as the file itself.
		for _, mapName := range mapNames(name, file, ref) {
			a, err := c.ArtifactByURL(ctx, rel.ID, dist, mapName)
			if !errors.Is(err, store.ErrNotFound) {
				return a, err
			}
		}
	}
	return store.Artifact{}, nil
}

var mappingURL = regexp.MustCompile(`(?m)^//[#@]\s*sourceMappingURL=(\S+)\s*$`)

// sourceMappingURL reads the reference a minified file ends with (data
// is its last 4 KiB).
func sourceMappingURL(data []byte) string {
	if m := mappingURL.FindSubmatch(data); m != nil && !strings.HasPrefix(string(m[1]), "data:") {
		return string(m[1])
	}
	return ""
}
