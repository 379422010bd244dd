package symbolicate

import (
	"bytes"
	"encoding/json"
	"errors"
)

// The scanner below splits a JSON object into its members' values, and an
// array into its elements, without decoding them: a source map's large
// values (mappings, sourcesContent) are then read in place instead of
// being validated, unquoted and copied by encoding/json first. Values that
// are used are decoded by encoding/json, which checks them.

var errJSON = errors.New("sourcemap: not a JSON object")

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at b[i] ('"').
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errJSON
		}
		j += k
		bs := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			bs++
		}
		j++
		if bs%2 == 0 {
			return j, nil
		}
	}
}

// skipValue returns the index after the value that starts at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errJSON
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				j, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = j
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errJSON
	}
	start := i
	for i < len(b) && bytes.IndexByte([]byte(",}] \t\r\n"), b[i]) < 0 {
		i++
	}
	if i == start {
		return 0, errJSON
	}
	return i, nil
}

// objectFields returns the members of the object b, by name, as their
// undecoded values.
func objectFields(b []byte) (map[string][]byte, error) {
	out := map[string][]byte{}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errJSON
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return out, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, errJSON
		}
		end, err := skipString(b, i)
		if err != nil {
			return nil, err
		}
		var name string
		if err := json.Unmarshal(b[i:end], &name); err != nil {
			return nil, errJSON
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, errJSON
		}
		i = skipSpace(b, i+1)
		end, err = skipValue(b, i)
		if err != nil {
			return nil, err
		}
		out[name] = b[i:end]
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, errJSON
		}
		switch b[i] {
		case '}':
			return out, nil
		case ',':
			i = skipSpace(b, i+1)
		default:
			return nil, errJSON
		}
	}
}

// arrayElems returns the elements of the array b, undecoded.
func arrayElems(b []byte) ([][]byte, error) {
	if len(b) == 0 || b[0] != '[' {
		return nil, errJSON
	}
	var out [][]byte
	i := skipSpace(b, 1)
	if i < len(b) && b[i] == ']' {
		return out, nil
	}
	for {
		end, err := skipValue(b, i)
		if err != nil {
			return nil, err
		}
		out = append(out, b[i:end])
		i = skipSpace(b, end)
		if i >= len(b) {
			return nil, errJSON
		}
		switch b[i] {
		case ']':
			return out, nil
		case ',':
			i = skipSpace(b, i+1)
		default:
			return nil, errJSON
		}
	}
}
