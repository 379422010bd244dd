package grouping

import "strings"

// stripBundleHash drops the content hash esbuild and Vite (Rollup) write
// into a bundle's name, which hex-only stripBuildHash leaves: a segment of
// its own ("app.D3QQW6G5.js", SvelteKit's "index.BfQ2x3Ad.js") or the
// last eight characters of the name after a dash ("index-BfQ2x3Ad.js",
// esbuild's "app-D3QQW6G5.js"). Rollup's base64url hash may itself hold a
// dash or an underscore ("index-B-x_3Ad1.js"), so the hash is found by its
// length, not by the last dash.
func stripBundleHash(name string) string {
	segs := strings.Split(name, ".")
	out := segs[:0]
	for k, seg := range segs {
		if k > 0 && k < len(segs)-1 && bundleHash(seg) {
			continue
		}
		if n := len(seg); n >= 10 && seg[n-9] == '-' && bundleHash(seg[n-8:]) {
			seg = seg[:n-9]
		}
		out = append(out, seg)
	}
	return strings.Join(out, ".")
}

// bundleHash reports whether s looks like a bundler's eight-character
// content hash: base64url (Rollup, Vite) or upper-case base32 (esbuild),
// not a word. A digit, a dash or an underscore among letters, or letters
// of both cases out of a word's order ("BfQ2x3Ad", "BfQxAdzZ"), make it a
// hash; all lower case ("download"), a capitalised or camel-case word
// ("Checkout", "MyWidget", "userList") do not. Eight upper-case letters
// are esbuild's hash without a digit (about one build in five).
func bundleHash(s string) bool {
	if len(s) != 8 {
		return false
	}
	var lower, upper, other int
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			lower++
		case c >= 'A' && c <= 'Z':
			upper++
		case isDigit(c) || c == '-' || c == '_':
			other++
		default:
			return false
		}
	}
	switch {
	case other == len(s):
		return false // a number or a date: isVariable's
	case other > 0:
		return lower+upper > 0
	case upper == 0:
		return false
	case lower == 0:
		return true
	}
	return !camelWord(s)
}

// camelWord reports whether s (letters only) reads as a word or words in
// camel case: each capital followed by at least one small letter.
func camelWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' && (i+1 == len(s) || s[i+1] < 'a' || s[i+1] > 'z') {
			return false
		}
	}
	return true
}
