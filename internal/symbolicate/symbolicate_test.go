package symbolicate

import (
	"slices"
	"strings"
	"testing"
)

func TestMapCacheKeepsWithinBudget(t *testing.T) {
	c := newMapCache(100)
	c.put("a", &parsedMap{cost: 40})
	c.put("b", &parsedMap{cost: 40})
	if c.get("a") == nil { // a is now the most recently used
		t.Fatal("a missing")
	}
	c.put("c", &parsedMap{cost: 40}) // evicts b, the least recently used
	if c.get("b") != nil || c.get("a") == nil || c.get("c") == nil {
		t.Errorf("cache kept b or lost a or c")
	}
	if c.size() != 80 {
		t.Errorf("size = %d, want 80", c.size())
	}
	c.put("huge", &parsedMap{cost: 101}) // never kept: over the budget alone
	if c.get("huge") != nil || c.size() != 80 {
		t.Errorf("a map over the budget was kept")
	}
}

func TestEnclosingFunction(t *testing.T) {
	src := strings.Split(`export function parseAmount(input) {
  const value = Number(input);
  if (Number.isNaN(value)) {
    throw new TypeError("not a number: " + input);
  }
}
const total = (items) => {
  return items.reduce((a, b) => a + b);
};
class Cart {
  async refresh(id) {
    if (!id) {
      throw new Error("no id");
    }
  }
}`, "\n")
	for line, want := range map[int]string{4: "parseAmount", 8: "total", 13: "refresh", 1: "parseAmount"} {
		if got := enclosingFunction(src, line, -1); got != want {
			t.Errorf("line %d: %q, want %q", line, got, want)
		}
	}
	if got := enclosingFunction([]string{"init();", "if (x) {", "  go();"}, 3, -1); got != "" {
		t.Errorf("top-level code: %q, want none", got)
	}
	// Functions that closed above the position do not hold it: top-level
	// code after one is in none, and a nested one closed within its outer
	// function leaves the outer one's name. Braces in parameters, strings
	// and comments are not the body's.
	later := strings.Split(`function banner() {
  console.log("{ welcome");
}
const cart = [1, 2];
total(cart);
export function Checkout({ items }) {
  const label = (x) => { return "}" + x; };
  // } not the end
  return total(items);
}
const double = (x) => x * 2;
function fetchRow(id) {
  const finder = id < 0 ? globalThis.__missing : (x) => x;
  return finder(id);
}
export const load = (ids) =>
  ids.map((id) => fetchRow(id));
const typed: Handler = (e) => {
  return e;
};
const obj = { go: () => run(), stop: function () { halt(); } };`, "\n")
	for _, c := range []struct {
		line, col int
		want      string
	}{{5, 0, ""}, {2, 4, "banner"}, {9, 2, "Checkout"}, {7, 26, "label"}, {11, 25, "double"},
		{13, 30, "fetchRow"}, {17, 20, "load"}, {19, 2, "typed"}, {21, 25, "go"}, {21, 55, "stop"}} {
		if got := enclosingFunction(later, c.line, c.col); got != c.want {
			t.Errorf("line %d column %d: %q, want %q", c.line, c.col, got, c.want)
		}
	}
}

func TestTildeAndJoin(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/static/main.js": "~/static/main.js",
		"/app/dist/main.js":                  "~/app/dist/main.js",
		"app:///main.js":                     "~/main.js",
		"file:///app/dist/main.js":           "~/app/dist/main.js",
		"//cdn.example.com/main.js":          "//cdn.example.com/main.js",
		"/srv/my app/C#/main.js":             "~/srv/my app/C#/main.js",
		"dist/main.js":                       "dist/main.js",
		`C:\app\main.js`:                     `C:\app\main.js`,
	} {
		if got := tilde(in); got != want {
			t.Errorf("tilde(%q) = %q, want %q", in, got, want)
		}
	}
	if got := joinURL("~/static/main.js", "main.js.map"); got != "~/static/main.js.map" {
		t.Errorf("joinURL = %q", got)
	}
	if got := joinURL("~/static/js/main.js", "/maps/main.js.map"); got != "~/maps/main.js.map" {
		t.Errorf("joinURL = %q", got)
	}
	// A file uploaded under its full URL (sentry-cli --url-prefix https://…).
	for ref, want := range map[string]string{
		"main.3f9a1c.js.map":    "https://shop.example.com/static/main.3f9a1c.js.map",
		"/maps/main.js.map":     "https://shop.example.com/maps/main.js.map",
		"../maps/main.js.map":   "https://shop.example.com/maps/main.js.map",
		"https://cdn.example/m": "https://cdn.example/m",
	} {
		if got := joinURL("https://shop.example.com/static/main.3f9a1c.js", ref); got != want {
			t.Errorf("joinURL(full URL, %q) = %q, want %q", ref, got, want)
		}
	}
	// A file found as "~/static/x.js" whose reference resolves against
	// its full URL to a map uploaded under that URL.
	names := mapNames("~/static/h1.js", "https://shop.example.com/static/h1.js", "../maps/h1.map")
	if !slices.Contains(names, "https://shop.example.com/maps/h1.map") || !slices.Contains(names, "~/maps/h1.map") {
		t.Errorf("mapNames = %q, want the map's full URL and its ~/ form", names)
	}
	if got := sourceMappingURL([]byte("x()\n//# sourceMappingURL=main.js.map\n")); got != "main.js.map" {
		t.Errorf("sourceMappingURL = %q", got)
	}
	if got := cleanSource("webpack://shop/./src/cart.ts"); got != "src/cart.ts" {
		t.Errorf("cleanSource = %q", got)
	}
}

func TestSnipLongContextLines(t *testing.T) {
	long := strings.Repeat("a", 500) + "THROW" + strings.Repeat("b", 500)
	got := snip(long, 500)
	if !strings.Contains(got, "THROW") || !strings.HasPrefix(got, "{snip} ") || !strings.HasSuffix(got, " {snip}") || len([]rune(got)) > maxContextLine+14 {
		t.Errorf("snip around column 500 = %q (%d characters), want the throw, both ends marked, about %d characters", got, len([]rune(got)), maxContextLine)
	}
	if got := snip(long, 0); strings.HasPrefix(got, "{snip}") || !strings.HasSuffix(got, " {snip}") {
		t.Errorf("snip at the start = %q, want its start and the end marked", got)
	}
	if got := snip("short line", 3); got != "short line" {
		t.Errorf("snip of a short line = %q", got)
	}
	if got := snip(strings.Repeat("é", 300), 299); len([]rune(got)) > maxContextLine+7 || !strings.HasPrefix(got, "{snip} é") {
		t.Errorf("snip of a multi-byte line at its end = %q, want whole characters", got)
	}
	// Sentry's window: from 60 characters before the 1-based column, 140
	// of them; lines of up to 150 whole.
	line := strings.Repeat("a", 176) + "THROW" + strings.Repeat("b", 218)
	if got, want := snip(line, 176), "{snip} "+line[117:257]+" {snip}"; got != want {
		t.Errorf("snip at column 177 =\n%q, want\n%q", got, want)
	}
	if l := strings.Repeat("x", 150); snip(l, 100) != l {
		t.Error("a line of 150 characters was cut")
	}
}
