package grouping

import (
	"strings"
	"testing"
)

// classPairs are must-merge and must-not-merge pairs of the labelled corpus
// (testdata/events) for the classes of issue 12 and for those the corpus
// revealed since. Every pair is also covered by TestCorpusQuality through
// the labels; naming them here keeps each class's evidence visible and fails
// with the class's name.
var classPairs = []struct {
	class string
	a, b  string
	merge bool
}{
	// A framework's wrapper message must not decide: the real exception
	// and its frames do.
	{"wrapper", "java/spring-npe-webseries", "java/spring-npe-webseries-b", true},
	{"wrapper", "java/spring-npe-webseries", "java/spring-npe-forgot-password", false},
	{"wrapper", "java/sechub-error-page-class-cast", "java/activiti-api-docs-number-format", false},
	{"wrapper", "dotnet/smartstore-slug-route", "dotnet/smartstore-slug-route-b", true},
	{"wrapper", "dotnet/smartstore-slug-route", "dotnet/halma-runner-dispose", false},
	{"wrapper", "dotnet/rtvs-get-sessions", "dotnet/kestrel-writefast", false},
	{"wrapper", "python/hackeragenda-admin-user", "python/latimes-debug-toolbar-keyerror", false},
	{"wrapper", "php/installer-view-envconfig", "php/crud-generator-view-errors", false},
	{"wrapper", "php/crud-admin-console-refused", "php/fusio-console-no-such-file", false},

	// One place failing in two ways is two problems; one failure with
	// other ids, hosts, ports, lines, threads is one.
	{"same frames", "python/thetatau-refused-270", "python/thetatau-refused-666", true},
	{"same frames", "python/thetatau-refused-666", "python/thetatau-timeout", false},
	{"same frames", "php/dbal-address-not-available", "php/dbal-address-not-available-b", true},
	{"same frames", "php/dbal-address-not-available", "php/dbal-refused-same-line", false},
	{"same frames", "log/influxdb-relay-index-59622", "log/influxdb-relay-index-37106", true},
	{"same frames", "log/influxdb-relay-index-59622", "log/influxdb-relay-slice-58848", false},
	{"same frames", "go/edv-index-64862", "go/edv-index-1242", true},
	{"same frames", "dotnet/musicstore-no-matching", "dotnet/musicstore-no-elements", false},

	// A bracketed (or Node's bare) IPv6 address with a port reads like
	// IPv4 with a port; the port a client dials names the service.
	{"ipv6", "go/awsdtc-template-ipv6", "go/awsdtc-template-ipv4", true},
	{"ipv6", "go/chicha-speed-ipv6", "go/chicha-speed-ipv4", true},
	{"ipv6", "js/node-pg-node17-ipv6", "js/csfloat-econnrefused", true},
	{"ipv6", "go/awsdtc-template-ipv6", "go/chicha-speed-ipv6", false},
	{"ipv6", "log/utron-todo-refused-ipv6", "log/gophercon-redis-refused", false},

	// Go traces re-indented on their way (pasted, quoted, logged) parse.
	{"go indentation", "go/buildkite-nil-map", "go/tbls-nil-map", false},
	{"go indentation", "go/grtm-loop-map-read", "go/new-api-model-price", false},
	{"go indentation", "go/goreplay-parse-request", "go/http-panic-proxy-websocket", false},

	// Mono's frames lose their IL offsets and assembly ids.
	{"mono", "dotnet/godot-mono-unhandled", "dotnet/godot-mono-fatal", true},
	{"mono", "dotnet/godot-mono-fatal", "dotnet/godot-mono-rebuilt", true},
	{"mono", "dotnet/godot-mono-unhandled", "dotnet/kestrel-mono-loop-size", false},

	// A collector's prefix on every line (logcat, Heroku) is cut.
	{"line prefix", "android/amazmod-find-view", "android/amazmod-find-view-logcat", true},
	{"line prefix", "dotnet/heroku-signing-credentials", "dotnet/heroku-signing-credentials-console", true},

	// Log lines: request query strings and logback threads are data.
	{"log fields", "log/nodebb-nginx-socketio-timeout", "log/nodebb-nginx-socketio-timeout-b", true},
	{"log fields", "log/k8s-nginx-fpm-timeout-save-a", "log/k8s-nginx-fpm-timeout-login", false},
	{"log fields", "java/spring-npe-no-trace", "java/spring-npe-no-trace-b", true},
}

// TestCorpusClasses checks classPairs under the current version (and their
// labels), and that each class of issue 12 has a pair that must merge and
// one that must not.
func TestCorpusClasses(t *testing.T) {
	t.Parallel()
	byID := map[string]corpusEvent{}
	for _, e := range loadEvents(t) {
		byID[e.ID] = e
	}
	kinds := map[string]map[bool]bool{}
	for _, p := range classPairs {
		a, okA := byID[p.a]
		b, okB := byID[p.b]
		if !okA || !okB {
			t.Fatalf("%s: %s or %s is not in testdata/events", p.class, p.a, p.b)
		}
		if (a.Group == b.Group) != p.merge {
			t.Errorf("%s: %s and %s are labelled %q and %q, the pair says merge=%v", p.class, p.a, p.b, a.Group, b.Group, p.merge)
		}
		fa, fb := Fingerprint(a.In), Fingerprint(b.In)
		if got := fa.Fingerprint == fb.Fingerprint; got != p.merge {
			t.Errorf("%s: %s vs %s merged %v, want %v\n a: %q\n b: %q", p.class, p.a, p.b, got, p.merge, fa.Parts, fb.Parts)
		}
		if kinds[p.class] == nil {
			kinds[p.class] = map[bool]bool{}
		}
		kinds[p.class][p.merge] = true
	}
	for _, class := range []string{"wrapper", "same frames", "ipv6"} {
		if !kinds[class][true] || !kinds[class][false] {
			t.Errorf("class %q lacks a must-merge or a must-not-merge pair", class)
		}
	}
	real := 0
	for _, p := range classPairs {
		if !strings.HasPrefix(byID[p.a].Source, "variant of ") && !strings.HasPrefix(byID[p.b].Source, "variant of ") {
			real++
		}
	}
	t.Logf("%d class pairs, %d of them between two real events", len(classPairs), real)
}
