package grouping

// Version is the fingerprint algorithm version Fingerprint computes, stored
// with every group. Bump it whenever a change could move an existing event
// into a different group, and keep the older versions computable: a group
// made by an older version keeps receiving the events whose fingerprint under
// that version matches it (see FingerprintVersion).
const Version = 2

// OldestVersion is the oldest version FingerprintVersion still computes.
const OldestVersion = 1

// Versions lists the versions FingerprintVersion computes, oldest first.
func Versions() []int {
	vs := make([]int, 0, len(algorithms))
	for v, a := range algorithms {
		if a != nil {
			vs = append(vs, v)
		}
	}
	return vs
}

// algorithm is what differs between versions. Everything else is shared
// code, so that an older version stays exactly what it was: each new
// behaviour is switched on by a field here and off for the versions before.
type algorithm struct {
	version int
	params  paramRules
	// value adds the exception value (the primary exception's first message
	// line, parameterised with valueRules) to a stack's parts, so that one
	// place failing in two ways gives two groups.
	value bool
	// wrappers teaches the parsers the log and framework wrappers around a
	// trace: logback's packaging data after Java frames, "http: panic
	// serving …", Node's rejection prefixes, Rails' request lines.
	wrappers bool
	// stackTitle titles a group whose trace names its exception by that
	// exception, not by the event's message (often a framework's wrapper:
	// "Internal Server Error: /x").
	stackTitle bool
}

// paramRules are the parameterisation rules that differ between versions.
type paramRules struct {
	// bracketIPv6 turns "[::1]:8080" into "<ip>:<int>", like "10.0.0.1:8080",
	// and reads more bare IPv6 forms.
	bracketIPv6 bool
	// ids turns long generated identifiers (16 bytes or more, with three
	// digits and three letters) into <id>.
	ids bool
	// quoted replaces every quoted string ('…', "…", `…`, “…”) by <quoted>,
	// not only those after '=' or ':'; paths replaces absolute paths by
	// <path>. Both only for exception values, where the type and the frames
	// already pin the place.
	quoted, paths bool
	// codeLines keeps the line number of a source location in a message
	// ("src/main.rs:319:101" keeps 319): without frames, it is what tells
	// two call sites in one file apart.
	codeLines bool
	// logFields reads structured log lines: a JSON "message" or "msg"
	// value is parameterised, not replaced whole; more country domains end
	// host names.
	logFields bool
}

// algorithms[v] is version v; nil below OldestVersion.
var algorithms = [...]*algorithm{
	1: {version: 1},
	2: {
		version:    2,
		params:     paramRules{bracketIPv6: true, ids: true, codeLines: true, logFields: true},
		value:      true,
		wrappers:   true,
		stackTitle: true,
	},
}

// current is the algorithm of Version.
var current = algorithms[Version]

// valueRules parameterise an exception value for version a.
func (a *algorithm) valueRules() *paramRules {
	p := a.params
	p.quoted, p.paths = true, true
	return &p
}

// FingerprintVersion computes the fingerprint in would have under algorithm
// version (OldestVersion to Version), byte for byte what that version's
// release computed. ok is false for a version it does not know.
func FingerprintVersion(in Input, version int) (res Result, ok bool) {
	if version < 0 || version >= len(algorithms) || algorithms[version] == nil {
		return Result{}, false
	}
	return fingerprint(in, algorithms[version]), true
}
