package grouping

import "strings"

// stripBundleHash drops the content hash esbuild and Vite (Rollup) write
// into a JavaScript bundle's name, which hex-only stripBuildHash leaves: a
// segment of its own ("app.D3QQW6G5.js", SvelteKit's "index.BfQ2x3Ad.js")
// or the last eight characters of the name after a dash
// ("index-BfQ2x3Ad.js", esbuild's "app-D3QQW6G5.js"). Rollup's base64url
// hash may itself hold a dash or an underscore ("index-B-x_3Ad1.js"), so
// the hash is found by its length, not by the last dash.
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
// content hash rather than part of a name. esbuild's is upper-case base32
// (A–Z, 2–7): eight such characters are its hash. Rollup's and Vite's is
// base64url: taken for a hash when it mixes capitals, small letters and
// digits ("BfQ2x3Ad") other than as camel-case words and numbers do
// ("Web3Auth", camelDigits), or, without a digit (a hash in four),
// capitals and small letters that change class at least four times
// ("BfQxAdzZ"), as a word's seldom do: kebab and snake names ("you-mean",
// "c_double"), words ("download"), camel case ("MyWidget", "ReactDOM",
// "tableDnD") and locales ("yue-Hant") stay. A Vite hash without a capital
// or a small letter (about one build in thirty), of few changes, or
// reading as camel case (in all about one build in six) is missed: that
// build's frames group apart, as before version 7.
func bundleHash(s string) bool {
	if len(s) != 8 {
		return false
	}
	var lower, upper, digit int
	base32 := true
	changes, prev := 0, -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		class := 3 // '-' or '_'
		switch {
		case c >= 'a' && c <= 'z':
			class = 0
			lower++
		case c >= 'A' && c <= 'Z':
			class = 1
			upper++
		case isDigit(c):
			class = 2
			digit++
		case c != '-' && c != '_':
			return false
		}
		base32 = base32 && (class == 1 || c >= '2' && c <= '7')
		if prev >= 0 && class != prev {
			changes++
		}
		prev = class
	}
	switch {
	case base32:
		return true
	case upper == 0 || lower == 0:
		return false
	case digit > 0:
		return !camelDigits(s)
	}
	return changes >= 4
}

// camelDigits reports whether s (letters and digits) reads as camel-case
// words and numbers ("Web3Auth", "toBase64", "iPhone12", "mp4Video",
// "Vector3D"): words of a capital or not then two small letters or more,
// runs of digits, a single small letter first or after digits, a single
// capital last. A base64url hash reads so about one time in twenty.
func camelDigits(s string) bool {
	lower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isDigit(c):
			for i < len(s) && isDigit(s[i]) {
				i++
			}
			continue
		case c == '-' || c == '_':
			return false
		}
		j := i + 1
		for j < len(s) && lower(s[j]) {
			j++
		}
		small := j - i
		if !lower(c) {
			small-- // the capital begins the word
		}
		switch {
		case small >= 2:
		case small == 1 && lower(c) && (i == 0 || isDigit(s[i-1])): // "iPhone", "4k"
		case small == 0 && j == len(s): // "Vector3D"
		default:
			return false
		}
		i = j
	}
	return true
}
