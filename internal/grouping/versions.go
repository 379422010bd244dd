package grouping

// Version is the fingerprint algorithm version Fingerprint computes, stored
// with every group. Bump it whenever a change could move an existing event
// into a different group, and keep the older versions computable: a group
// made by an older version keeps receiving the events whose fingerprint under
// that version matches it (see FingerprintVersion).
const Version = 7

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
	// goLoose reads Go traces whose lines were re-indented on their way
	// (pasted, quoted, logged): locations indented by spaces or not at all,
	// an indented "goroutine N [running]:" header, frames without it.
	goLoose bool
	// linePrefix cuts the log prefix a collector repeats on every line of a
	// trace (adb logcat, journald, Heroku, docker compose) before parsing.
	linePrefix bool
	// hashNames reads a file named by a hash (Laravel's compiled views,
	// storage/framework/views/<sha1>.php, named after the template's path
	// on that machine) as one file whatever the hash.
	hashNames bool
	// mono reads Mono's .NET frames ("at T.M (Args) [0x00001] in <mvid>:0",
	// "<IL 0x00012, 0x000c4>"), whose IL offsets change with every build, and
	// its "[ERROR] FATAL UNHANDLED EXCEPTION:" header; before, they read as
	// JavaScript frames with the offsets in their names.
	mono bool
	// templates groups a message that comes with its template (Input.Template:
	// Sentry's logentry.message with params, the attribute message_template)
	// on the template, not on the formatted text: "order %s could not be
	// shipped" is one problem whatever the order and the carrier.
	templates bool
	// rootValue takes the exception value from the root cause of a JVM
	// chain (its last "Caused by:") rather than from the wrapper printed
	// first, which often carries data ("Payout batch 2026-11-01/eu-sepa
	// failed"): the root cause is what identifies the bug. Every type of
	// the chain still takes part.
	rootValue bool
	// nodeCore reads Node's built-in modules ("node:net", "node:fs",
	// and the bare "net.js" of Node before 16) as not in-app: before,
	// the rewrite of "node:net" to "net.js" made them application code,
	// and the culprit of an ECONNREFUSED was Node's socket code.
	nodeCore bool
	// ownVariables expands the variables of an event's own fingerprint
	// ({{ transaction }}, {{ error.type }}, {{ tags.region }}, …) as a
	// project's fingerprint rule does, and makes a fingerprint of only
	// {{ default }} (from the event or a rule) the default fingerprint
	// itself, as Sentry does; before, it was a custom fingerprint of
	// one part, another group.
	ownVariables bool
	// r8Lambdas reads the synthetic methods Android's R8 names after a
	// hash of the build ("$r8$lambda$Xk2v0abcDEF") as one method, as
	// "$$ExternalSyntheticLambda0" already was; numberedChunks reads a
	// bundler's numbered chunk file ("chunks/8812.js", renumbered by every
	// Next.js or webpack build) as one file.
	r8Lambdas, numberedChunks bool
	// rust reads Rust panics and their backtraces (parseRust): before,
	// the backtrace's "at ./src/x.rs:1:2" lines were read as JavaScript
	// frames without their functions, the standard library's among them,
	// and the thread's name and the panic's place were the message.
	rust bool
	// rubyLabels reads Ruby 3.4's frame labels, which name the method's
	// class ("in 'Order#ship!'"), as older Rubies' ("in `ship!'").
	rubyLabels bool
	// androidFiles reads the frames R8 writes for a release build,
	// "(SourceFile:12)" and "(r8-map-id-<hash>:12)", as Java frames without
	// a file, as "(Unknown Source)" (before, a trace of them was not read
	// as Java, or its first frames were lost).
	androidFiles bool
	// suppressedCauses skips the causes of a suppressed error
	// ("\tSuppressed: …" then "\tCaused by: …" at its indent), which were
	// read as the error's own.
	suppressedCauses bool
	// dependencies reads the in-app flag 'd' (a frame the SDK judged the
	// application's whose source map puts it in a dependency:
	// internal/symbolicate) as not in-app, as Sentry decides again from the
	// original path; before, as the SDK's 'y', so that a known error keeps
	// its group.
	dependencies bool
	// bundleHashes reads the content hash esbuild and Vite (Rollup) put in
	// a bundle's name, "app.D3QQW6G5.js", "index-BfQ2x3Ad.js" (base32 or
	// base64url, not only hex), as no part of the name (bundleHash), so
	// that a minified bundle without its source map keeps its group
	// across deploys.
	bundleHashes bool
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
	// queries turns the query string of a path ("/socket.io/?EIO=3&sid=x")
	// into "?<query>", as a URL's query is dropped with the URL.
	queries bool
	// threads turns the thread name logback prints after "--- "
	// ("[nio-8080-exec-3]", cut to 15 characters) into "[<thread>]".
	threads bool
	// spaces counts a run of spaces or tabs inside a line as one: loggers
	// pad columns, and a pasted line loses the padding.
	spaces bool
	// ipv6Port reads Node's unbracketed "::1:5432" as "<ip>:<int>", like
	// "127.0.0.1:5432".
	ipv6Port bool
	// dialPorts keeps the port of the address a client dials ("dial tcp
	// 10.0.0.5:6379", "connect ECONNREFUSED 127.0.0.1:5432"): it names the
	// service, so Redis and PostgreSQL being down are two problems.
	dialPorts bool
	// identityHashes turns the identity hash a JVM or Android object
	// prints after its class ("EtaFragment{a8e03d7}", "BinderProxy@1b2c3d",
	// five to seven hex digits, which the <hex> rule left) into <hex>:
	// it changes with every launch.
	identityHashes bool
	// braceHashes also reads the identity hash printed after an object's
	// closing brace ("StandaloneCoroutine{Cancelling}@5f3c2a1", the
	// toString of Kotlin's coroutines) as <hex>.
	braceHashes bool
}

// algorithms[v] is version v; nil below OldestVersion.
var algorithms = [...]*algorithm{
	1: {version: 1},
	2: {
		version: 2,
		params: paramRules{bracketIPv6: true, ids: true, codeLines: true, logFields: true,
			queries: true, threads: true, spaces: true, ipv6Port: true, dialPorts: true},
		value:      true,
		wrappers:   true,
		stackTitle: true,
		goLoose:    true,
		linePrefix: true,
		hashNames:  true,
		mono:       true,
	},
	3: {
		version: 3,
		params: paramRules{bracketIPv6: true, ids: true, codeLines: true, logFields: true,
			queries: true, threads: true, spaces: true, ipv6Port: true, dialPorts: true, identityHashes: true},
		value:      true,
		wrappers:   true,
		stackTitle: true,
		goLoose:    true,
		linePrefix: true,
		hashNames:  true,
		mono:       true,
		templates:  true,
		rootValue:  true,
	},
	4: {
		version: 4,
		params: paramRules{bracketIPv6: true, ids: true, codeLines: true, logFields: true,
			queries: true, threads: true, spaces: true, ipv6Port: true, dialPorts: true, identityHashes: true},
		value:        true,
		wrappers:     true,
		stackTitle:   true,
		goLoose:      true,
		linePrefix:   true,
		hashNames:    true,
		mono:         true,
		templates:    true,
		rootValue:    true,
		nodeCore:     true,
		ownVariables: true,
	},
	5: {
		version: 5,
		params: paramRules{bracketIPv6: true, ids: true, codeLines: true, logFields: true,
			queries: true, threads: true, spaces: true, ipv6Port: true, dialPorts: true, identityHashes: true, braceHashes: true},
		value:            true,
		wrappers:         true,
		stackTitle:       true,
		goLoose:          true,
		linePrefix:       true,
		hashNames:        true,
		mono:             true,
		templates:        true,
		rootValue:        true,
		nodeCore:         true,
		ownVariables:     true,
		r8Lambdas:        true,
		numberedChunks:   true,
		rust:             true,
		rubyLabels:       true,
		androidFiles:     true,
		suppressedCauses: true,
	},
	6: {
		version: 6,
		params: paramRules{bracketIPv6: true, ids: true, codeLines: true, logFields: true,
			queries: true, threads: true, spaces: true, ipv6Port: true, dialPorts: true, identityHashes: true, braceHashes: true},
		value:            true,
		wrappers:         true,
		stackTitle:       true,
		goLoose:          true,
		linePrefix:       true,
		hashNames:        true,
		mono:             true,
		templates:        true,
		rootValue:        true,
		nodeCore:         true,
		ownVariables:     true,
		r8Lambdas:        true,
		numberedChunks:   true,
		rust:             true,
		rubyLabels:       true,
		androidFiles:     true,
		suppressedCauses: true,
		dependencies:     true,
	},
	7: {
		version: 7,
		params: paramRules{bracketIPv6: true, ids: true, codeLines: true, logFields: true,
			queries: true, threads: true, spaces: true, ipv6Port: true, dialPorts: true, identityHashes: true, braceHashes: true},
		value:            true,
		wrappers:         true,
		stackTitle:       true,
		goLoose:          true,
		linePrefix:       true,
		hashNames:        true,
		mono:             true,
		templates:        true,
		rootValue:        true,
		nodeCore:         true,
		ownVariables:     true,
		r8Lambdas:        true,
		numberedChunks:   true,
		rust:             true,
		rubyLabels:       true,
		androidFiles:     true,
		suppressedCauses: true,
		dependencies:     true,
		bundleHashes:     true,
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
