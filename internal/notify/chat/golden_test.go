package chat

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/ from the current code")

// goldenFile is what a golden file records of one rendering: the request
// it makes, the body indented when it is JSON.
type goldenFile struct {
	ContentType string            `json:"content_type"`
	Headers     map[string]string `json:"headers,omitempty"`
	Body        json.RawMessage   `json:"body,omitempty"`
	Text        string            `json:"text,omitempty"`
}

func golden(t *testing.T, r Rendered) []byte {
	t.Helper()
	g := goldenFile{ContentType: r.ContentType, Headers: r.Headers}
	if r.ContentType == jsonType {
		var buf bytes.Buffer
		if err := json.Indent(&buf, r.Body, "  ", "  "); err != nil {
			t.Fatalf("body is not JSON: %v\n%s", err, r.Body)
		}
		g.Body = buf.Bytes()
	} else {
		g.Text = string(r.Body)
	}
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(g); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestGolden compares each format's rendering of each sample with
// testdata/golden/<format>-<case>.json; run with -update to accept a
// deliberate change, after reading the diff.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, format := range Formats()[1:] {
		for _, c := range goldenCases {
			name := format + "-" + c.name
			t.Run(name, func(t *testing.T) {
				r, err := Render(format, c.n())
				if err != nil {
					t.Fatal(err)
				}
				checkLimits(t, format, r)
				got := golden(t, r)
				path := filepath.Join("testdata", "golden", name+".json")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from the rendering:\ngot  %s\nwant %s", path, got, want)
				}
			})
		}
	}
}
