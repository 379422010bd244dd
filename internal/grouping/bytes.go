package grouping

// Byte classes. Bytes of multi-byte UTF-8 runes count as word bytes so a
// replacement never splits a word written in another script.

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isUpper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isWord(c byte) bool   { return isDigit(c) || isLetter(c) || c == '_' || c >= 0x80 }

func isHexDigit(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

// isSignContext reports whether a '-' or '+' after c is a sign, not a hyphen.
func isSignContext(c byte) bool {
	switch c {
	case ' ', '\t', '=', '(', '[', '{', ',', ':', '"', '\'':
		return true
	}
	return false
}

func wordEnd(s string, i int) int {
	for i < len(s) && isWord(s[i]) {
		i++
	}
	return i
}

func allHex(s string) bool {
	for k := 0; k < len(s); k++ {
		if !isHexDigit(s[k]) {
			return false
		}
	}
	return len(s) > 0
}

func countHex(s string) (digits, letters int) {
	for k := 0; k < len(s); k++ {
		if isDigit(s[k]) {
			digits++
		} else {
			letters++
		}
	}
	return digits, letters
}

// runOf returns the end of the run of at most max bytes at i satisfying f.
func runOf(s string, i, max int, f func(byte) bool) int {
	j := i
	for j < len(s) && j-i < max && f(s[j]) {
		j++
	}
	return j
}

// boundary reports whether position j ends a token (no word byte follows).
func boundary(s string, j int) bool { return j >= len(s) || !isWord(s[j]) }

// isIdentityHash reports whether s[i:j] is an object's identity hash as
// the JVM and Android print it after the class: "{a8e03d7}" or "@1b2c3d",
// five to eight hex digits with a decimal digit and a letter among them
// (decimal digits alone are <int> already).
func isIdentityHash(s string, i, j int, afterBrace bool) bool {
	if i < 2 || (s[i-1] != '{' && s[i-1] != '@') || j-i < 5 || j-i > 8 {
		return false
	}
	if !isWord(s[i-2]) && !(afterBrace && s[i-1] == '@' && s[i-2] == '}') {
		return false
	}
	digit, letter := false, false
	for k := i; k < j; k++ {
		if !isHexDigit(s[k]) {
			return false
		}
		digit = digit || isDigit(s[k])
		letter = letter || !isDigit(s[k])
	}
	return digit && letter
}
