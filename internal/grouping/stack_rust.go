package grouping

import "strings"

// isRustPanic reports whether a trace is a Rust panic: "thread 'main'
// panicked at …" (from version 5; before, its "at ./src/x.rs:1:2" lines
// were read as JavaScript frames without their functions).
func isRustPanic(s string) bool {
	i := strings.Index(s, " panicked at ")
	return i > 0 && strings.Contains(s[:i], "thread '")
}

// parseRust reads a Rust panic and its backtrace (RUST_BACKTRACE=1):
//
//	thread 'main' panicked at src/orders.rs:42:14:
//	order 8812 has no lines
//	stack backtrace:
//	   0: rust_begin_unwind
//	             at /rustc/90b35a62…/library/std/src/panicking.rs:645:5
//	   2: shop::orders::ship
//	             at ./src/orders.rs:42:14
//
// The panic's message (on the lines after the header since Rust 1.73,
// quoted in it before: "panicked at 'order 8812 has no lines',
// src/orders.rs:42:14") is its value; the thread, which names nothing about
// the bug, is left out. Frames are "module::path::function" with the
// symbol's hash cut; the standard library's, the runtime's and the
// registry's crates are not in-app.
func parseRust(lines []string, a *algorithm) Stack {
	st := Stack{Language: "rust", Types: []string{"panic"}}
	k := 0
	for ; k < len(lines); k++ {
		l := strings.TrimSpace(lines[k])
		i := strings.Index(l, " panicked at ")
		if i < 0 || !strings.Contains(l[:i], "thread '") { // a logger's prefix may come first
			continue
		}
		if rest := l[i+len(" panicked at "):]; strings.HasPrefix(rest, "'") {
			// "'msg', file:line:col", or log-panics' "'msg': file:line".
			j := strings.LastIndex(rest, "', ")
			if j2 := strings.LastIndex(rest, "': "); j2 > j {
				j = j2
			}
			if j > 0 {
				st.Message, st.place = rest[1:j], rest[j+3:]
			}
		} else {
			st.place = strings.TrimSuffix(rest, ":")
			var msg []string
			for k+1 < len(lines) {
				t := strings.TrimSpace(lines[k+1])
				if isBacktraceHeader(t) || strings.HasPrefix(t, "note: ") {
					break
				}
				msg = append(msg, t)
				k++
			}
			// A message of several lines (anyhow's "Caused by:" list, a
			// pretty-printed error) is read as one line: all of it tells the
			// panic apart, and its numbered causes are not frames.
			st.Message = strings.Join(strings.Fields(strings.Join(msg, " ")), " ")
		}
		break
	}
	st.place = strings.ReplaceAll(st.place, "\\", "/")
	for k < len(lines) && !isBacktraceHeader(strings.TrimSpace(lines[k])) {
		k++ // frames come after "stack backtrace:"
	}
	for ; k < len(lines); k++ {
		t := strings.TrimSpace(lines[k])
		n := rustFrameIndex(t)
		if n == 0 {
			continue
		}
		f := rustFrame(t[n:])
		at := k
		if k+1 < len(lines) {
			if loc, ok := strings.CutPrefix(strings.TrimSpace(lines[k+1]), "at "); ok {
				path := cutLineCol(loc)
				f.Path, f.File = path, baseName(path)
				if p := strings.ReplaceAll(path, "\\", "/"); strings.HasPrefix(p, "/rustc/") || strings.Contains(p, "/.cargo/registry/") || strings.Contains(p, "/.cargo/git/") {
					f.InApp = false
				}
				k++
			}
		}
		st.add(f, at)
	}
	return st
}

// isBacktraceHeader reports whether t starts a backtrace: Rust's "stack
// backtrace:", or anyhow's and std::backtrace's "Stack backtrace:".
func isBacktraceHeader(t string) bool {
	return strings.EqualFold(t, "stack backtrace:")
}

// rustFrameIndex returns where the symbol of a backtrace line "  12: sym"
// starts, 0 when t is not one.
func rustFrameIndex(t string) int {
	n := runOf(t, 0, len(t), isDigit)
	if n == 0 || n+2 > len(t) || t[n] != ':' || t[n+1] != ' ' {
		return 0
	}
	return n + 2
}

// rustFrame reads a symbol: "shop::orders::ship::h1a2b3c4d5e6f7a8b" is
// module "shop::orders", function "ship". RUST_BACKTRACE=full puts the
// address first ("0x55d4a1b23000 - shop::orders::ship"); a closure's frame
// ("ship::{{closure}}") is its function's. Only a path is application code:
// "main", "_start" and "__libc_start_main" are the C runtime's.
func rustFrame(sym string) Frame {
	sym = strings.TrimSpace(sym)
	if addr, rest, ok := strings.Cut(sym, " - "); ok && strings.HasPrefix(addr, "0x") && allHex(addr[2:]) {
		sym = strings.TrimSpace(rest)
	}
	if k := strings.LastIndex(sym, "::h"); k >= 0 && len(sym)-k-3 == 16 && allHex(sym[k+3:]) {
		sym = sym[:k]
	}
	for {
		// "::{{closure}}", or "::{closure#0}" in the v0 mangling.
		k := strings.LastIndex(sym, "::{")
		if k < 0 || !(sym[k:] == "::{{closure}}" || strings.HasPrefix(sym[k:], "::{closure#") && strings.HasSuffix(sym, "}")) {
			break
		}
		sym = sym[:k]
	}
	module, fn := "", sym
	if k := strings.LastIndex(sym, "::"); k >= 0 && !strings.Contains(sym[k:], ">") {
		module, fn = sym[:k], sym[k+2:]
	}
	crate, _, path := strings.Cut(strings.TrimLeft(sym, "<"), "::")
	return Frame{Module: module, Function: fn, InApp: path && !rustNonApp[crate]}
}

// rustNonApp are the crates of the standard library, the panic machinery
// and widespread runtimes.
var rustNonApp = map[string]bool{
	"std": true, "core": true, "alloc": true, "rust_begin_unwind": true, "panic_unwind": true, "backtrace": true,
	"tokio": true, "futures": true, "futures_util": true, "futures_core": true, "hyper": true, "axum": true,
	"tower": true, "actix_web": true, "actix_rt": true, "rayon": true, "rayon_core": true, "async_std": true,
	"serde": true, "serde_json": true, "anyhow": true, "thiserror": true, "log": true, "env_logger": true,
	"tracing": true, "tracing_core": true, "tracing_subscriber": true, "tokio_util": true, "tokio_stream": true,
	"hyper_util": true, "h2": true, "http": true, "tower_http": true, "tower_service": true, "reqwest": true,
	"sqlx": true, "sqlx_core": true, "sqlx_postgres": true, "sqlx_mysql": true, "sqlx_sqlite": true,
	"diesel": true, "sea_orm": true, "warp": true, "rocket": true, "tonic": true, "prost": true, "mio": true,
	"parking_lot": true, "crossbeam": true, "crossbeam_channel": true, "async_trait": true,
}

// cutLineCol cuts ":line:col" (or ":line") off a location.
func cutLineCol(loc string) string {
	for range 2 {
		k := strings.LastIndexByte(loc, ':')
		if k < 0 || k == len(loc)-1 || runOf(loc, k+1, len(loc), isDigit) != len(loc) {
			break
		}
		loc = loc[:k]
	}
	return loc
}
