package symbolicate

import (
	"slices"
	"strings"
	"testing"

	"github.com/go-sourcemap/sourcemap"
)

// TestDecodeMapAnswersAsTheLibrary compares decodeMap with go-sourcemap on
// a real esbuild map (minified, with names and sourcesContent full of
// escapes): every generated position of the bundle, and every source's
// text.
func TestDecodeMapAnswersAsTheLibrary(t *testing.T) {
	js, sm := bigBundle(t, 300)
	for _, url := range []string{"~/static/main.js.map", "https://cdn.example.com/static/main.js.map"} {
		lib, err := sourcemap.Parse(url, sm)
		if err != nil {
			t.Fatal(err)
		}
		c, cost, err := decodeMap(url, sm)
		if err != nil {
			t.Fatal(err)
		}
		fm, ok := c.(*flatMap)
		if !ok || cost <= 0 || len(fm.mappings) < 1000 {
			t.Fatalf("decodeMap = %T, cost %d", c, cost)
		}
		checked, named := 0, 0
		for l, line := range strings.Split(string(js), "\n") {
			for col := 0; col <= len(line)+1; col++ {
				ws, wn, wl, wc, wok := lib.Source(l+1, col)
				gs, gn, gl, gc, gok := fm.Source(l+1, col)
				if ws != gs || wn != gn || wl != gl || wc != gc || wok != gok {
					t.Fatalf("%s %d:%d: got %q %q %d:%d %v, the library %q %q %d:%d %v", url, l+1, col, gs, gn, gl, gc, gok, ws, wn, wl, wc, wok)
				}
				checked++
				if gn != "" {
					named++
				}
			}
		}
		if checked < 10000 || named == 0 {
			t.Fatalf("compared %d positions (%d named): the bundle is too small to test", checked, named)
		}
		for _, src := range fm.sources {
			if got, want := fm.SourceContent(src), lib.SourceContent(src); got != want || got == "" {
				t.Errorf("SourceContent(%s): %d bytes, the library %d", src, len(got), len(want))
			}
		}
	}
}

func TestDecodeMapRefusesBrokenMaps(t *testing.T) {
	_, sm := bigBundle(t, 20)
	for _, n := range []int{0, 1, 10, len(sm) / 3, len(sm) / 2, len(sm) - 2} {
		if _, _, err := decodeMap("a.js.map", sm[:n]); err == nil {
			t.Errorf("a map cut at %d of %d bytes parsed", n, len(sm))
		}
	}
	for _, doc := range []string{
		`{"version":2,"sources":[],"mappings":"AAAA"}`,
		`{"version":3,"sources":[],"mappings":""}`,
		`{"version":3,"sources":[],"mappings":"AA!A"}`,
		`{"version":3,"sources":[],"mappings":"AAAA`,
		`{"version":3,"sources":{},"mappings":"AAAA"}`,
		`["version",3]`,
	} {
		if _, _, err := decodeMap("a.js.map", []byte(doc)); err == nil {
			t.Errorf("%s parsed", doc)
		}
	}
}

// TestDecodeMapLeavesSectionsToTheLibrary: an index map (sections) is
// parsed by go-sourcemap.
func TestDecodeMapLeavesSectionsToTheLibrary(t *testing.T) {
	doc := `{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":["src/a.js"],"names":["boom"],"mappings":"AAAAA","sourcesContent":["boom()\n"]}}]}`
	c, _, err := decodeMap("a.js.map", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(*sourcemap.Consumer); !ok {
		t.Fatalf("decodeMap = %T", c)
	}
	src, name, line, _, ok := c.Source(1, 0)
	if !ok || src != "src/a.js" || name != "boom" || line != 1 || c.SourceContent(src) != "boom()\n" {
		t.Errorf("Source = %q %q %d %v", src, name, line, ok)
	}
}

// TestDuplicateSourceNames: a map that lists one name twice (the Sentry
// esbuild plugin's maps list the file and its proxy module under one name)
// gives a frame the context and function of the entry its mapping points
// at, not of the first entry with that name.
func TestDuplicateSourceNames(t *testing.T) {
	doc := `{"version":3,"file":"dup.js","sources":["x.js","x.js"],` +
		`"sourcesContent":["function first() {\n  a();\n}\n","// second\n// file\nb();\n"],"names":[],"mappings":"AAAA,ICEA"}`
	c, _, err := decodeMap("https://shop.example.com/static/dup.js.map", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	pm := &parsedMap{c: c}
	f, ok := resolve(pm, RawFrame{Function: "b", File: "https://shop.example.com/static/dup.js", Line: 1, Column: 5})
	if !ok {
		t.Fatal("frame not mapped")
	}
	if f.Line != 3 || f.Context == nil || f.Context.Line != "b();" || !slices.Equal(f.Context.Pre, []string{"// second", "// file"}) {
		t.Errorf("line %d, context %+v; want line 3, b(); after the second entry's comments", f.Line, f.Context)
	}
	if fn := functionName(&f, nil); fn == "first" {
		t.Errorf("function %q: the first entry's, which the frame is not in", fn)
	}
	// The first entry keeps its own text.
	g, ok := resolve(pm, RawFrame{File: "https://shop.example.com/static/dup.js", Line: 1, Column: 1})
	if !ok || g.Context == nil || g.Context.Line != "function first() {" {
		t.Errorf("first entry: %+v, %v", g.Context, ok)
	}
}
