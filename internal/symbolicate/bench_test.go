package symbolicate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-sourcemap/sourcemap"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
	"github.com/errata-dev/errata/internal/testtool"
)

// bigBundle builds, with the real esbuild, a minified bundle of n generated
// functions and returns it and its source map.
func bigBundle(b testing.TB, n int) (js, sourceMap []byte) {
	b.Helper()
	esbuild := filepath.Join(testtool.NPMPackage(b, "esbuild", "0.28.2"), "bin", "esbuild")
	dir := b.TempDir()
	var src strings.Builder
	for i := range n {
		fmt.Fprintf(&src, "export function handler%d(order) {\n  const total = order.items.reduce((sum, item) => sum + item.price * %d, 0);\n"+
			"  if (total > %d) {\n    throw new RangeError(\"order too large: \" + total);\n  }\n  return { id: order.id, total, tax: total * 0.2 };\n}\n\n", i, i+1, i*7)
	}
	if err := os.WriteFile(filepath.Join(dir, "app.js"), []byte(src.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "out", "main.js")
	if o, err := exec.Command(esbuild, filepath.Join(dir, "app.js"), "--bundle", "--minify", "--sourcemap", "--format=esm", "--outfile="+out).CombinedOutput(); err != nil {
		b.Fatalf("esbuild: %v\n%s", err, o)
	}
	js, _ = os.ReadFile(out)
	sourceMap, _ = os.ReadFile(out + ".map")
	return js, sourceMap
}

// BenchmarkEvent symbolicates an event of 20 minified frames with its
// source map (about 2 MB) cached: the worker's cost per event
// (docs/performance.md).
func BenchmarkEvent(b *testing.B) {
	js, sm := bigBundle(b, 3500)
	db, p := storedMap(b, sm)
	ctx := context.Background()
	// 20 frames at throw sites spread over the bundle's one long line.
	line := strings.Split(string(js), "\n")[0]
	var trace strings.Builder
	trace.WriteString("RangeError: order too large: 12\n")
	for i, from := 0, 0; i < 20; i++ {
		k := strings.Index(line[from:], "throw new RangeError")
		if k < 0 {
			b.Fatalf("frame %d: no throw left in the bundle", i)
		}
		from += k + 1
		fmt.Fprintf(&trace, "    at h%d (https://shop.example.com/static/main.js:1:%d)\n", i, from)
		from += len(line) / 25
	}
	s := New(db, DefaultCache)
	ev := ingest.Event{Release: "1.0", StackTrace: trace.String(), Level: ingest.Error}
	first := ev
	if err := s.Event(ctx, p.ID, &first); err != nil || !strings.Contains(first.StackTrace, "app.js") {
		b.Fatalf("symbolicated = %q, %v", first.StackTrace, err)
	}
	for b.Loop() {
		e := ev
		if err := s.Event(ctx, p.ID, &e); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(sm))/(1<<20), "map-MiB")
}

// BenchmarkParse parses a large source map (about 30 MiB, 63,000
// functions) as a cache miss does (decodeMap), and with go-sourcemap for
// comparison.
func BenchmarkParse(b *testing.B) {
	_, sm := bigBundle(b, 63000)
	b.Run("decodeMap", func(b *testing.B) {
		for b.Loop() {
			if _, err := parse("~/static/main.js.map", sm); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(sm))/(1<<20), "map-MiB")
	})
	b.Run("go-sourcemap", func(b *testing.B) {
		for b.Loop() {
			if _, err := sourcemap.Parse("~/static/main.js.map", sm); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(sm))/(1<<20), "map-MiB")
	})
	b.Run("cold", func(b *testing.B) { benchCold(b, sm) })
}

// benchCold symbolicates a frame through a map stored as sentry-cli
// uploads it, by a Symbolicator with an empty cache (ERRATA_SOURCEMAP_CACHE
// default), as the worker does on a cache miss: the map read from the
// store in pieces and parsed. It reports the process's peak resident set
// and how far it rose above what it was before.
func benchCold(b *testing.B, sm []byte) {
	db, p := storedMap(b, sm)
	ctx := context.Background()
	ev := ingest.Event{Release: "1.0", StackTrace: "RangeError: x\n    at h (https://shop.example.com/static/main.js:1:100)\n", Level: ingest.Error}
	var peak, rise float64
	for b.Loop() {
		runtime.GC()
		before := testtool.RSS(b, "VmRSS")
		testtool.ResetPeakRSS(b)
		e := ev
		if err := New(db, DefaultCache).Event(ctx, p.ID, &e); err != nil || !strings.Contains(e.StackTrace, "app.js") {
			b.Fatalf("symbolicated = %q, %v", e.StackTrace, err)
		}
		hwm := testtool.RSS(b, "VmHWM")
		peak, rise = max(peak, hwm), max(rise, hwm-before)
	}
	b.ReportMetric(peak, "peak-RSS-MiB")
	b.ReportMetric(rise, "RSS-rise-MiB")
}

// storedMap returns a SQLite database with a project whose release 1.0 has
// sm stored as ~/static/main.js.map, as an upload leaves it.
func storedMap(b *testing.B, sm []byte) (*store.DB, store.Project) {
	db := storetest.Open(b, store.SQLite)
	ctx := context.Background()
	w := db.Write()
	o := store.Org{ID: id.New(id.Org), Name: "Acme", Plan: "team", CreatedAt: time.Now(), UpdatedAt: time.Now()}
	p := store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "web", CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := w.CreateOrg(ctx, o); err != nil {
		b.Fatal(err)
	}
	if err := w.CreateProject(ctx, p); err != nil {
		b.Fatal(err)
	}
	rel, err := w.EnsureRelease(ctx, p.ID, "1.0", id.New(id.Release), time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if err := w.CreateArtifact(ctx, store.Artifact{ID: id.New(id.Artifact), ProjectID: p.ID, ReleaseID: rel.ID, URL: "~/static/main.js.map",
		Kind: "source_map", Data: sm, CreatedAt: time.Now()}); err != nil {
		b.Fatal(err)
	}
	return db, p
}
