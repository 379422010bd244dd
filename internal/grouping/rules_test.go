package grouping

import (
	"errors"
	"strings"
	"testing"
)

const pyLedger = `Traceback (most recent call last):
  File "/srv/app/app/jobs.py", line 71, in run_nightly
    ledger.post_entry(entry)
  File "/srv/app/app/ledger.py", line 40, in post_entry
    self.session.execute(stmt)
  File "/srv/app/.venv/lib/python3.12/site-packages/sqlalchemy/orm/session.py", line 2306, in execute
    return self._execute_internal(
app.ledger.LedgerError: entry 9912 does not balance
`

const javaPayout = `com.acme.payouts.PayoutBatchException: Payout batch 2026-11-01/eu-sepa failed
	at com.acme.payouts.BatchRunner.run(BatchRunner.java:88)
	at com.acme.payouts.Scheduler.tick(Scheduler.java:41)
	at java.base/java.lang.Thread.run(Thread.java:833)
`

const jsCart = `TypeError: Cannot read properties of undefined (reading 'map')
    at parseCart (/srv/app/src/cart.js:28:20)
    at loadCart (/srv/app/src/cart.js:33:12)
    at handle (/srv/app/node_modules/express/lib/router/layer.js:95:5)
`

// jsBundle is a minified bundle's trace, its file name carrying the build's hash.
const jsBundle = "TypeError: x is undefined\n    at p (https://shop.example.com/static/main.3f9a1c.js:1:22)\n"

func mustRules(t *testing.T, fp, st string) *Rules {
	t.Helper()
	r, err := ParseRules(fp, st)
	if err != nil {
		t.Fatalf("ParseRules: %v", err)
	}
	return r
}

func TestParseRulesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, fp, st, field string
		line                int
		says                string
	}{
		{"no arrow", "# ok\nerror.type:Foo bar", "", "fingerprint", 2, "->"},
		{"unknown matcher", "error.typ:Foo -> x", "", "fingerprint", 1, "unknown matcher"},
		{"no value", "error.type:Foo ->", "", "fingerprint", 1, "no fingerprint"},
		{"unknown variable", "\n\nerror.type:Foo -> {{ nope }}", "", "fingerprint", 3, "unknown variable"},
		{"unterminated quote", `message:"abc -> x`, "", "fingerprint", 1, "unterminated"},
		{"no matcher", "-> x", "", "fingerprint", 1, "at least one matcher"},
		{"unknown action", "", "stack.function:foo +fly", "stack_trace", 1, "unknown action"},
		{"no action", "", "stack.function:foo", "stack_trace", 1, "no action"},
		{"bad app", "", "app:maybe -group", "stack_trace", 1, "yes or no"},
		{"bad family", "", "# c\nfamily:cobol -group", "stack_trace", 2, "family"},
		{"siblings", "", "[ app:yes ] | stack.function:f -group", "stack_trace", 1, "not supported"},
		{"matcher after action", "", "stack.function:f -group app:yes", "stack_trace", 1, "matchers come first"},
	}
	for _, tt := range tests {
		_, err := ParseRules(tt.fp, tt.st)
		var re *RuleError
		if !errors.As(err, &re) {
			t.Errorf("%s: error %v, want a *RuleError", tt.name, err)
			continue
		}
		if re.Field != tt.field || re.Line != tt.line || !strings.Contains(re.Msg, tt.says) {
			t.Errorf("%s: %+v, want %s line %d saying %q", tt.name, re, tt.field, tt.line, tt.says)
		}
	}
	// Sentry's syntax is taken whole (CONTRACT 8): a rule that parses is
	// saved, even one no grouped event meets (level:info).
	for _, ok := range []string{"level:warn* -> w", "level:WARNING -> w", "level:fatal -> f, {{ level }}", "!level:info -> w", "!level:debug app:yes -> w", "level:info -> never", "level:bogus -> never",
		"error.type:Foo -> a,{{ level }} ,b title=\"{{ level }}\"", "error.type:Foo -> repo-{{ function }}", `error.type:Foo -> "a"title="T"`,
		"error.type:Foo -> x title=\"\""} {
		if _, err := ParseRules(ok, ""); err != nil {
			t.Errorf("%q: %v, want it parsed", ok, err)
		}
	}
	// A comment may follow a stack trace rule's actions, as in Sentry's
	// grammar; it is not part of the rule's text.
	for _, line := range []string{"stack.function:inner -app # vendored", "stack.function:inner -app#vendored", "stack.function:inner ^-group -app\t# two"} {
		r, err := ParseRules("", line)
		if err != nil {
			t.Errorf("%q: %v, want it parsed", line, err)
			continue
		}
		if got := r.stack[0].text; strings.Contains(got, "#") || !strings.HasPrefix(line, got) || len(r.stack[0].actions) == 0 {
			t.Errorf("%q: text %q, %d actions; want the rule without its comment", line, got, len(r.stack[0].actions))
		}
	}
	if _, err := ParseRules("", "stack.function:inner # no action"); err == nil || !strings.Contains(err.Error(), "no action") {
		t.Errorf("a comment in place of the actions: %v, want no action", err)
	}
	if r, err := ParseRules("# only a comment\n\n", "  \n"); r != nil || err != nil {
		t.Errorf("empty rules = %v, %v; want nil, nil", r, err)
	}
}

func TestProjectFingerprintRules(t *testing.T) {
	t.Parallel()
	in := func(trace, rules string) Input {
		return Input{StackTrace: trace, Level: "error", Rules: mustRules(t, rules, ""),
			Attributes: map[string]string{"region": "eu", "logger": "com.acme.payouts.Runner", "tags.site": "shop-2",
				"exception.type": "builtins.TimeoutError", "exception.message": "upstream shop-7 timed out"}}
	}
	fp := func(i Input) Result { return Fingerprint(i) }
	def := Fingerprint(Input{StackTrace: pyLedger})

	tests := []struct {
		name, trace, rules string
		match              bool
	}{
		{"bare type", pyLedger, "error.type:LedgerError -> ledger", true},
		{"qualified type", pyLedger, "error.type:app.ledger.LedgerError -> ledger", true},
		{"type glob", pyLedger, "error.type:*Error -> ledger", true},
		{"type is case-sensitive", pyLedger, "error.type:ledgererror -> ledger", false},
		{"value, any case", pyLedger, `error.value:"ENTRY * does not balance" -> ledger`, true},
		{"message", pyLedger, `message:"*does not balance" -> ledger`, true},
		{"negation", pyLedger, "!error.type:LedgerError -> ledger", false},
		{"level", pyLedger, "level:ERROR -> ledger", true},
		{"tag as attribute", pyLedger, "tags.region:eu -> ledger", true},
		{"sentry tag", pyLedger, "tags.site:shop-* -> ledger", true},
		{"missing tag", pyLedger, "tags.zone:* -> ledger", false},
		{"logger", javaPayout, "logger:com.acme.payouts.* -> payouts", true},
		{"python module", pyLedger, "stack.module:app.ledger -> ledger", true},
		{"java module", javaPayout, "stack.module:com.acme.payouts.BatchRunner -> payouts", true},
		{"js module is the path", jsCart, "stack.module:*/src/cart.js -> cart", true},
		{"function", pyLedger, "stack.function:post_entry -> ledger", true},
		{"abs_path ** crosses directories", pyLedger, `stack.abs_path:"**/app/ledger.py" -> ledger`, true},
		{"abs_path * does not", pyLedger, `stack.abs_path:"/srv/*/ledger.py" -> ledger`, false},
		{"abs_path file name as printed", jsBundle, `stack.abs_path:main.3f9a1c.js -> bundle`, true},
		{"abs_path file name grouping reads", jsBundle, `stack.abs_path:main.js -> bundle`, true},
		{"abs_path path without the origin", jsBundle, `stack.abs_path:/static/main.*.js -> bundle`, true},
		{"same frame", pyLedger, "stack.function:post_entry stack.module:app.jobs -> ledger", false},
		{"app", pyLedger, "app:no stack.function:execute -> ledger", true},
		{"family", jsCart, "family:javascript -> cart", true},
		{"family other", pyLedger, "family:javascript,native -> ledger", false},
		{"OpenTelemetry exception.type", "", "error.type:TimeoutError -> otel", true},
		{"OpenTelemetry exception.message", "", `error.value:"upstream * timed out" -> otel`, true},
	}
	for _, tt := range tests {
		res := fp(in(tt.trace, tt.rules))
		if got := res.Rule == RuleCustom; got != tt.match {
			t.Errorf("%s: matched %v, want %v (parts %q)", tt.name, got, tt.match, res.Parts)
		}
	}
	// The platform a Sentry SDK named wins over how the trace reads: a
	// native frame rendered "at main (/src/main.c:4)" reads as JavaScript.
	native := "SIGSEGV: Segfault\n    at main (/src/main.c:4)"
	for platform, family := range map[string]string{"native": "native", "cocoa": "native", "cpp": "native", "node": "javascript", "python": "other", "": "javascript"} {
		i := in(native, "family:"+family+" -> fam")
		i.Attributes = map[string]string{"platform": platform}
		if res := fp(i); res.Rule != RuleCustom {
			t.Errorf("platform %q: family:%s did not match (parts %q)", platform, family, res.Parts)
		}
	}

	// Variables, literals, {{ default }} and the first matching rule.
	rules := "error.type:Nope -> never\nerror.type:LedgerError -> ledger, {{ error.type }}, {{ tags.region }}, {{ function }}, {{ module }} title=\"Ledger: {{ error.value }}\"\nerror.type:* -> other"
	res := fp(in(pyLedger, rules))
	want := []string{"custom", "ledger", "app.ledger.LedgerError", "eu", "post_entry", "app.ledger"}
	if strings.Join(res.Parts, "|") != strings.Join(want, "|") {
		t.Errorf("parts %q, want %q", res.Parts, want)
	}
	if res.Title != "Ledger: entry 9912 does not balance" {
		t.Errorf("title %q", res.Title)
	}
	// Text running into a variable is two values, as Sentry reads it.
	if res := fp(in(pyLedger, "error.type:LedgerError -> repo-{{ function }}")); strings.Join(res.Parts, "|") != "custom|repo-|post_entry" {
		t.Errorf("repo-{{ function }}: parts %q, want custom, repo-, post_entry", res.Parts)
	}
	// A title whose variables the event lacks is the default title, not
	// blank, and so is an empty one; one that renders with spaces around is
	// trimmed; a quote escaped in it is a quote.
	for title, want := range map[string]string{"{{ tags.nope }} {{ transaction }}": fp(in(pyLedger, "")).Title, "": fp(in(pyLedger, "")).Title,
		"  {{ tags.region }} {{ tags.nope }}": "eu", `say \"hi\" in {{ tags.region }}`: `say "hi" in eu`,
		`C:\temp \\ {{ tags.region }}`: `C:\temp \ eu`, `\{\{ x }} {{ tags.region }}`: `\{\{ x }} eu`} {
		res := fp(in(pyLedger, "error.type:LedgerError -> ledger title=\""+title+"\""))
		if res.Title != want || want == "" {
			t.Errorf("title=%q gave %q, want %q", title, res.Title, want)
		}
		if plain := fp(in(pyLedger, "error.type:LedgerError -> ledger")); res.Fingerprint != plain.Fingerprint {
			t.Errorf("title=%q changed the fingerprint", title)
		}
	}
	// The fingerprint shows what the variables gave (the rule shows them as written).
	if res.Components[0].Name != "fingerprint" || res.Components[0].Value != "ledger, app.ledger.LedgerError, eu, post_entry, app.ledger" ||
		res.Components[1].Name != "fingerprint_rule" || !strings.HasPrefix(res.Components[1].Value, "error.type:LedgerError") {
		t.Errorf("components %+v", res.Components[:2])
	}
	for _, c := range res.Components[2:] {
		if c.Contributes != (c.Name == "error.type") { // {{ error.type }} puts it in
			t.Errorf("component %+v contributes beside a fingerprint without {{ default }}", c)
		}
	}
	// In a JVM chain error.value is also the root cause's, the value the
	// default fingerprint and its component take.
	jvm := func(outer string) Input {
		return Input{StackTrace: "com.acme.WrapperException: " + outer + "\n\tat com.acme.Runner.run(Runner.java:10)\nCaused by: com.acme.ledger.LedgerException: entry 5 does not balance\n\tat com.acme.ledger.Ledger.post(Ledger.java:42)\n\t... 1 more",
			Level: "error", Rules: mustRules(t, "error.type:* -> jvm, {{ error.value }}", "")}
	}
	a, b := Fingerprint(jvm("batch one")), Fingerprint(jvm("batch two"))
	if a.Fingerprint != b.Fingerprint || a.Parts[2] != "entry 5 does not balance" {
		t.Errorf("{{ error.value }} in a JVM chain: parts %q and %q, want one group on the root cause's value", a.Parts, b.Parts)
	}
	if r := Fingerprint(Input{StackTrace: jvm("x").StackTrace, Level: "error", Rules: mustRules(t, `error.value:"*does not balance" -> bal`, "")}); r.Rule != RuleCustom {
		t.Errorf("error.value does not match a JVM chain's root cause: %q", r.Parts)
	}
	// {{ message }} puts the message in, as its component shows.
	byMessage := Fingerprint(Input{Message: "queue 7 is full", Level: "error", Rules: mustRules(t, "message:* -> q, {{ message }}", "")})
	found := false
	for _, c := range byMessage.Components {
		if c.Name == "message" {
			found = true
			if !c.Contributes || c.Value != "queue 7 is full" {
				t.Errorf("{{ message }}: component %+v, want the message as sent contributing", c)
			}
		}
	}
	// {{ error.value }} takes the value as sent (two values, two groups),
	// and its component shows that, not the parameterised value.
	for _, c := range a.Components {
		if c.Name == "error.value" && (!c.Contributes || c.Value != "entry 5 does not balance") {
			t.Errorf("{{ error.value }}: component %+v, want the value as sent contributing", c)
		}
	}
	if !found {
		t.Errorf("{{ message }}: no message component in %+v", byMessage.Components)
	}
	withDefault := fp(in(pyLedger, "error.type:LedgerError -> {{ default }}, eu"))
	if withDefault.Parts[1] != def.Fingerprint || withDefault.Fingerprint == def.Fingerprint {
		t.Errorf("{{ default }}: parts %q, default %s", withDefault.Parts, def.Fingerprint)
	}
	// A project rule wins over the event's own fingerprint.
	i := in(pyLedger, "error.type:LedgerError -> ledger")
	i.Fingerprint = []string{"sdk"}
	if got := fp(i).Parts; got[1] != "ledger" {
		t.Errorf("rule beside an SDK fingerprint: %q", got)
	}
}

func TestStackTraceRules(t *testing.T) {
	t.Parallel()
	base := Fingerprint(Input{StackTrace: javaPayout})
	run := func(rules string) Result {
		return Fingerprint(Input{StackTrace: javaPayout, Rules: mustRules(t, "", rules)})
	}
	// -group takes a frame out of the fingerprint; the group changes.
	r := run("stack.function:tick -group")
	if r.Fingerprint == base.Fingerprint || strings.Contains(strings.Join(r.Parts, " "), "tick") {
		t.Errorf("-group: parts %q", r.Parts)
	}
	var sawRule, sawOut bool
	for _, c := range r.Components {
		sawRule = sawRule || c.Name == "stack_trace_rule" && c.Value == "stack.function:tick -group"
		sawOut = sawOut || c.Name == "stack.frame" && strings.HasSuffix(c.Value, ":tick") && !c.Contributes
	}
	if !sawRule || !sawOut {
		t.Errorf("components %+v", r.Components)
	}
	// -app moves the culprit to the next in-app frame toward main.
	if r := run("stack.module:com.acme.payouts.BatchRunner -app"); r.Culprit != "com.acme.payouts.Scheduler.tick" {
		t.Errorf("-app: culprit %q", r.Culprit)
	}
	// +app makes a library frame the application's.
	if r := run(`stack.abs_path:Thread.java +app`); !r.Frames[2].InApp {
		t.Errorf("+app: frames %+v", r.Frames)
	}
	// ^-group: the frames toward the crash; v-group: away from it.
	if r := run("stack.function:tick ^-group"); strings.Contains(strings.Join(r.Parts, " "), "run") || !strings.Contains(strings.Join(r.Parts, " "), "tick") {
		t.Errorf("^-group: parts %q", r.Parts)
	}
	if r := run("stack.function:run v-group"); !strings.Contains(strings.Join(r.Parts, " "), "BatchRunner:run") || strings.Contains(strings.Join(r.Parts, " "), "tick") {
		t.Errorf("v-group: parts %q", r.Parts)
	}
	// Python prints the outermost frame first: ^ still means toward the crash.
	py := Fingerprint(Input{StackTrace: pyLedger, Rules: mustRules(t, "", "stack.function:run_nightly ^-group")})
	if strings.Contains(strings.Join(py.Parts, " "), "post_entry") || !strings.Contains(strings.Join(py.Parts, " "), "run_nightly") {
		t.Errorf("python ^-group: parts %q", py.Parts)
	}
}

func TestCulpritFrameOrder(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, trace, want string }{
		{"python prints the outermost first", pyLedger, "app/ledger.py in post_entry"},
		{"java prints the innermost first", javaPayout, "com.acme.payouts.BatchRunner.run"},
		{"javascript prints the innermost first", jsCart, "src/cart.js in parseCart"},
		{"go prints deferred functions above the panic", "panic: boom [recovered]\n\tpanic: boom\n\ngoroutine 1 [running]:\n" +
			"main.main.func1()\n\t/app/main.go:9 +0x4c\npanic({0x4a0e40?, 0x4d8b38?})\n\t/usr/local/go/src/runtime/panic.go:770 +0x132\n" +
			"main.inner(...)\n\t/app/main.go:14\nmain.main()\n\t/app/main.go:17 +0x45\n", "main.inner"},
		{"go frames from a Sentry SDK name the runtime's panic as runtime.panic", "panic: boom\n\ngoroutine 1 [running]:\n" +
			"main.cleanup()\n\t/app/main.go:9\nruntime.panic()\n\t/usr/local/go/src/runtime/panic.go:770\n" +
			"main.inner()\n\t/app/main.go:14\nmain.main()\n\t/app/main.go:17\n", "main.inner"},
	} {
		if got := Fingerprint(Input{StackTrace: tt.trace}).Culprit; got != tt.want {
			t.Errorf("%s: culprit %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	tpl := "order %s could not be shipped: carrier %s unreachable"
	a := Fingerprint(Input{Message: "order 1 could not be shipped: carrier DHL unreachable", Template: tpl})
	b := Fingerprint(Input{Message: "order 2 could not be shipped: carrier FedEx Ground unreachable", Template: tpl})
	if a.Fingerprint != b.Fingerprint || a.Template != tpl || a.Title != tpl {
		t.Errorf("template: %q / %q, template %q, title %q", a.Parts, b.Parts, a.Template, a.Title)
	}
	if len(a.Components) != 1 || a.Components[0] != (Component{Name: "message_template", Value: tpl, Contributes: true}) {
		t.Errorf("components %+v", a.Components)
	}
	other := Fingerprint(Input{Message: "order 1 could not be billed", Template: "order %s could not be billed"})
	if other.Fingerprint == a.Fingerprint {
		t.Error("two templates share a fingerprint")
	}
	// Version 2 knew no templates: the formatted text splits.
	v2a, _ := FingerprintVersion(Input{Message: "order 1 could not be shipped: carrier DHL unreachable", Template: tpl}, 2)
	v2b, _ := FingerprintVersion(Input{Message: "order 2 could not be shipped: carrier FedEx Ground unreachable", Template: tpl}, 2)
	if v2a.Fingerprint == v2b.Fingerprint {
		t.Error("version 2 grouped on the template")
	}
}
