package symbolicate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"

	"github.com/go-sourcemap/sourcemap"
)

// consumer answers the original position of a generated one and the
// original text of a source. A *sourcemap.Consumer is one (index maps,
// with "sections", are parsed by it); flatMap is the others.
type consumer interface {
	Source(genLine, genColumn int) (source, name string, line, column int, ok bool)
	SourceContent(source string) string
}

// sourceKey names one entry of a map's sources: its name, and for a
// flatMap its index too, since a map may list one name twice (the Sentry
// esbuild plugin's maps list src/main.js for the file and again for its
// proxy module), and each entry has its own text. index is -1 when the
// consumer answers by name only.
type sourceKey struct {
	name  string
	index int
}

// locate is consumer.Source with the source's key.
func locate(c consumer, genLine, genColumn int) (key sourceKey, name string, line, column int, ok bool) {
	if m, ok := c.(*flatMap); ok {
		return m.sourceAt(genLine, genColumn)
	}
	source, name, line, column, ok := c.Source(genLine, genColumn)
	return sourceKey{source, -1}, name, line, column, ok
}

// content is the original text of the source key names.
func content(c consumer, key sourceKey) string {
	if m, ok := c.(*flatMap); ok && key.index >= 0 {
		return m.contentAt(key.index)
	}
	return c.SourceContent(key.name)
}

// flatMap is a source map (without sections) decoded by decodeMap: its
// mappings decoded, its sources and names, and its sourcesContent kept as
// the JSON strings they are, decoded when a frame first needs one. It
// answers exactly as github.com/go-sourcemap/sourcemap does (the test
// compares them on esbuild's maps), at about a third of its parse time and
// without keeping the mappings text or a second copy of the sources.
type flatMap struct {
	sources  []string
	names    []json.RawMessage
	contents [][]byte // sourcesContent[i] as JSON (a string or null)
	mappings []mapping
}

// mapping is one decoded segment, as go-sourcemap keeps it: lines are
// 1-based, columns 0-based, namesInd -1 for none.
type mapping struct {
	genLine, genColumn                   int32
	sourcesInd, sourceLine, sourceColumn int32
	namesInd                             int32
}

// mappingSize is the bytes a mapping takes, for the cache's cost.
const mappingSize = 24

// decodeMap parses a source map. A map with sections is left to
// go-sourcemap. cost is about the memory the result holds.
func decodeMap(sourcemapURL string, data []byte) (c consumer, cost int64, err error) {
	fields, err := objectFields(data)
	if err != nil {
		return nil, 0, err
	}
	if _, ok := fields["sections"]; ok {
		c, err := sourcemap.Parse(sourcemapURL, data)
		return c, int64(len(data)) * 3, err
	}
	var version int
	var root string
	if v := fields["version"]; v != nil {
		if err := json.Unmarshal(v, &version); err != nil {
			return nil, 0, fmt.Errorf("sourcemap: version: %w", err)
		}
	}
	if version != 3 && version != 0 {
		return nil, 0, fmt.Errorf("sourcemap: got version=%d, but only 3rd version is supported", version)
	}
	m := &flatMap{}
	for name, dst := range map[string]any{"sourceRoot": &root, "sources": &m.sources, "names": &m.names} {
		if v := fields[name]; v != nil {
			if err := json.Unmarshal(v, dst); err != nil {
				return nil, 0, fmt.Errorf("sourcemap: %s: %w", name, err)
			}
		}
	}
	if err := m.absSources(sourcemapURL, root); err != nil {
		return nil, 0, err
	}
	if v := fields["sourcesContent"]; v != nil && !bytes.Equal(v, []byte("null")) {
		// One copy of the array, so that the map's bytes can go.
		if m.contents, err = arrayElems(bytes.Clone(v)); err != nil {
			return nil, 0, fmt.Errorf("sourcemap: sourcesContent: %w", err)
		}
		cost += 2 * int64(len(v)) // and the texts decoded (and split) for frames
	}
	var text []byte
	if v := fields["mappings"]; v != nil {
		if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			return nil, 0, errors.New("sourcemap: mappings is not a string")
		}
		// Base64 and separators need no unquoting; decodeMappings refuses
		// any other byte (an escape too).
		text = v[1 : len(v)-1]
	}
	if m.mappings, err = decodeMappings(text); err != nil {
		return nil, 0, err
	}
	cost += int64(cap(m.mappings)) * mappingSize
	for _, s := range m.sources {
		cost += int64(len(s)) + 16
	}
	for _, n := range m.names {
		cost += int64(len(n)) + 24
	}
	return m, cost, nil
}

// absSources resolves the sources against sourceRoot or the map's URL, as
// go-sourcemap does.
func (m *flatMap) absSources(sourcemapURL, root string) error {
	var rootURL *url.URL
	if root != "" {
		u, err := url.Parse(root)
		if err != nil {
			return err
		}
		if u.IsAbs() {
			rootURL = u
		}
	} else if sourcemapURL != "" {
		u, err := url.Parse(sourcemapURL)
		if err != nil {
			return err
		}
		if u.IsAbs() {
			u.Path = path.Dir(u.Path)
			rootURL = u
		}
	}
	for i, src := range m.sources {
		if path.IsAbs(src) {
			continue
		}
		if u, err := url.Parse(src); err == nil && u.IsAbs() {
			continue
		}
		switch {
		case rootURL != nil:
			u := *rootURL
			u.Path = path.Join(u.Path, src)
			m.sources[i] = u.String()
		case root != "":
			m.sources[i] = path.Join(root, src)
		}
	}
	return nil
}

// Source answers as sourcemap.Consumer.Source does: the mapping at or
// before the generated position (lines 1-based, columns 0-based).
func (m *flatMap) Source(genLine, genColumn int) (source, name string, line, column int, ok bool) {
	key, name, line, column, ok := m.sourceAt(genLine, genColumn)
	return key.name, name, line, column, ok
}

// sourceAt is Source with the index of the source in the map's sources
// (-1 when the mapping names none).
func (m *flatMap) sourceAt(genLine, genColumn int) (key sourceKey, name string, line, column int, ok bool) {
	key.index = -1
	ms := m.mappings
	if len(ms) == 0 {
		return
	}
	i := sort.Search(len(ms), func(i int) bool {
		if int(ms[i].genLine) == genLine {
			return int(ms[i].genColumn) >= genColumn
		}
		return int(ms[i].genLine) >= genLine
	})
	var match *mapping
	if i == len(ms) {
		match = &ms[i-1]
		if int(match.genLine) != genLine {
			return
		}
	} else {
		match = &ms[i]
		if int(match.genLine) > genLine || int(match.genColumn) > genColumn {
			if i == 0 {
				return
			}
			match = &ms[i-1]
		}
	}
	if match.sourcesInd >= 0 && int(match.sourcesInd) < len(m.sources) {
		key = sourceKey{m.sources[match.sourcesInd], int(match.sourcesInd)}
	}
	if match.namesInd >= 0 {
		name = m.name(int(match.namesInd))
	}
	return key, name, int(match.sourceLine), int(match.sourceColumn), true
}

func (m *flatMap) name(i int) string {
	if i >= len(m.names) || len(m.names[i]) == 0 {
		return ""
	}
	raw := m.names[i]
	if raw[0] == '"' && raw[len(raw)-1] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// SourceContent decodes the original text of source ("" when the map has
// none): of its first entry, when the map lists the name twice.
func (m *flatMap) SourceContent(source string) string {
	for i, s := range m.sources {
		if s == source {
			return m.contentAt(i)
		}
	}
	return ""
}

// contentAt decodes the original text of the map's i-th source ("" when
// it has none).
func (m *flatMap) contentAt(i int) string {
	var text string
	if i >= 0 && i < len(m.contents) {
		_ = json.Unmarshal(m.contents[i], &text) // not a string: no text
	}
	return text
}

// vlqValue is the value of a base64 digit, 0xff for a byte that is none.
var vlqValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" {
		t[c] = byte(i)
	}
	return t
}()

var errMappings = errors.New("sourcemap: mappings are malformed")

// decodeMappings decodes a map's mappings as go-sourcemap does: fields
// are deltas of the previous segment's; a segment without a name gets
// namesInd -1; a sixth field starts over at the generated column.
func decodeMappings(s []byte) ([]mapping, error) {
	if len(s) == 0 {
		return nil, errors.New("sourcemap: mappings are empty")
	}
	out := make([]mapping, 0, bytes.Count(s, []byte{','})+bytes.Count(s, []byte{';'}))
	v := mapping{genLine: 1, sourceLine: 1}
	field, hasValue, hasName := 0, false, false
	push := func() {
		if !hasValue {
			return
		}
		m := v
		if !hasName {
			m.namesInd = -1
		}
		out = append(out, m)
		hasValue, hasName = false, false
	}
	for i := 0; i < len(s); {
		switch s[i] {
		case ',':
			push()
			field, i = 0, i+1
			continue
		case ';':
			push()
			v.genLine++
			v.genColumn = 0
			field, i = 0, i+1
			continue
		}
		var n int32
		var shift uint
		for {
			if i >= len(s) || shift > 30 {
				return nil, errMappings
			}
			d := vlqValue[s[i]]
			if d == 0xff {
				return nil, errMappings
			}
			i++
			n |= int32(d&31) << shift
			if d&32 == 0 {
				break
			}
			shift += 5
		}
		if n&1 != 0 {
			n = -(n >> 1)
		} else {
			n >>= 1
		}
		switch field {
		case 0:
			v.genColumn += n
		case 1:
			v.sourcesInd += n
		case 2:
			v.sourceLine += n
		case 3:
			v.sourceColumn += n
		case 4:
			v.namesInd += n
			hasName = true
		}
		field = (field + 1) % 5
		hasValue = true
	}
	push()
	return out, nil
}
