package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/otlp"
)

const pythonLedger = `Traceback (most recent call last):
  File "/srv/app/app/jobs.py", line 88, in <module>
    run_nightly()
  File "/srv/app/app/jobs.py", line 71, in run_nightly
    ledger.post_entry(entry)
  File "/srv/app/app/ledger.py", line 40, in post_entry
    self.session.execute(stmt)
  File "/srv/app/.venv/lib/python3.12/site-packages/sqlalchemy/orm/session.py", line 2306, in execute
    return self._execute_internal(
app.ledger.LedgerError: entry %d does not balance
`

// components returns a group's grouping components as "name=value" (a "-"
// prefix for those that do not contribute), with its version.
func components(t *testing.T, s *apitest.Server, token, groupID string) (float64, []string) {
	t.Helper()
	g := getJSON(t, s, token, "/v1/groups/"+groupID)
	gr, ok := g["grouping"].(map[string]any)
	if !ok {
		t.Fatalf("group without grouping: %v", g)
	}
	var out []string
	for _, c := range gr["components"].([]any) {
		c := c.(map[string]any)
		k := fmt.Sprintf("%s=%s", c["name"], c["value"])
		if c["contributes"] != true {
			k = "-" + k
		}
		out = append(out, k)
	}
	return gr["version"].(float64), out
}

func hasComponent(list []string, want string) bool {
	for _, c := range list {
		if c == want {
			return true
		}
	}
	return false
}

// TestGroupingTemplatesCulpritsComponents: templates group on REST and
// OTLP, the culprit is where a Python error was raised, and the group says
// why (CONTRACT 8, "Grouping, round three").
func TestGroupingTemplatesCulpritsComponents(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		tpl := "order %s could not be shipped: carrier %s unreachable"
		var evs []map[string]any
		for k, carrier := range []string{"DHL", "UPS", "FedEx Ground"} {
			evs = append(evs, ev(fmt.Sprintf("order %d could not be shipped: carrier %s unreachable", 100+k, carrier), "error",
				"attributes", map[string]any{"message_template": tpl}))
		}
		evs = append(evs, ev("entry 7 does not balance", "error", "stack_trace", fmt.Sprintf(pythonLedger, 7)),
			ev("entry 8 does not balance", "error", "stack_trace", fmt.Sprintf(pythonLedger, 8)))
		feed(t, s, w.Key, batchOf("api", evs...))

		all := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/groups?limit=100")
		if len(all) != 2 {
			t.Fatalf("%d groups, want 2 (one per template, one per error): %v", len(all), all)
		}
		ship := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "could not be shipped")
		if ship["event_count"] != float64(3) || ship["title"] != tpl {
			t.Errorf("template group = %v", ship)
		}
		sample := items(t, s, w.Viewer.Token, "/v1/groups/"+ship["id"].(string)+"/events")[0]
		if sample["message"] != "order 102 could not be shipped: carrier FedEx Ground unreachable" {
			t.Errorf("sample message %v, want the formatted text", sample["message"])
		}
		v, comps := components(t, s, w.Viewer.Token, ship["id"].(string))
		if v != float64(grouping.Version) || !hasComponent(comps, "message_template="+tpl) {
			t.Errorf("template group's grouping: version %v, %q", v, comps)
		}

		ledger := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "LedgerError")
		if ledger["culprit"] != "app/ledger.py in post_entry" || ledger["event_count"] != float64(2) {
			t.Errorf("python group = %v, want the culprit where the error was raised", ledger)
		}
		_, comps = components(t, s, w.Viewer.Token, ledger["id"].(string))
		for _, want := range []string{"error.type=app.ledger.LedgerError", "error.value=entry <int> does not balance",
			"stack.frame=app/ledger.py:post_entry", "-stack.frame=orm/session.py:execute"} {
			if !hasComponent(comps, want) {
				t.Errorf("python group's components %q lack %q", comps, want)
			}
		}

		// OTLP: the attribute message_template groups too.
		for _, carrier := range []string{"DHL", "Royal Mail"} {
			body := fmt.Sprintf(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"shipping"}}]},`+
				`"scopeLogs":[{"scope":{"name":"shop.shipping"},"logRecords":[{"timeUnixNano":"%d","severityNumber":17,"severityText":"ERROR",`+
				`"body":{"stringValue":"parcel for %s lost"},"attributes":[{"key":"message_template","value":{"stringValue":"parcel for {carrier} lost"}}]}]}]}]}`,
				time.Now().UnixNano(), carrier)
			s.Do(apitest.Request{Method: "POST", Path: otlp.Path, Token: w.Key, Body: []byte(body),
				Headers: map[string]string{"Content-Type": otlp.ContentTypeJSON}}).Expect(t, http.StatusOK, "")
		}
		drain(t, s)
		if g := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "parcel for"); g["event_count"] != float64(2) || g["title"] != "parcel for {carrier} lost" {
			t.Errorf("OTLP template group = %v", g)
		}
	})
}

// TestGroupingRulesAPI: who reads and writes the rules, a rule that does
// not parse names its line, and rules apply to the events processed after
// the change, on both databases.
func TestGroupingRulesAPI(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		path := "/v1/projects/" + w.ProjectID + "/grouping-rules"
		put := func(token string, body any) *apitest.Response {
			return s.Do(apitest.Request{Method: "PUT", Path: path, Token: token, Body: body})
		}
		if r := getJSON(t, s, w.Viewer.Token, path); r["fingerprint"] != "" || r["stack_trace"] != "" || r["updated_at"] != nil || r["project_id"] != w.ProjectID {
			t.Errorf("rules never set = %v", r)
		}
		rules := map[string]any{
			"fingerprint": "# payouts by batch are one problem\nerror.type:PayoutBatchException -> payout-batch, {{ error.type }}\n",
			"stack_trace": "stack.module:com.acme.payouts.BatchRunner -app",
		}
		put(w.Member.Token, rules).Expect(t, http.StatusForbidden, "forbidden")
		put(w.Viewer.Token, rules).Expect(t, http.StatusForbidden, "forbidden")
		put(w.Outsider.Token, rules).Expect(t, http.StatusNotFound, "not-found")
		bad := put(w.Admin.Token, map[string]any{"fingerprint": "error.type:A -> a", "stack_trace": "# ok\nstack.function:f +fly"}).
			Expect(t, http.StatusUnprocessableEntity, "validation-failed").JSON(t)
		if d, _ := bad["detail"].(string); !strings.HasPrefix(d, "stack_trace: line 2:") {
			t.Errorf("detail %q, want it to name stack_trace and line 2", d)
		}
		bad = put(w.Admin.Token, map[string]any{"fingerprint": "error.type:A -> a\nerror.tpye:B -> b"}).Expect(t, http.StatusUnprocessableEntity, "validation-failed").JSON(t)
		if d, _ := bad["detail"].(string); !strings.HasPrefix(d, "fingerprint: line 2:") || !strings.Contains(d, "error.tpye") {
			t.Errorf("detail %q, want it to name fingerprint, line 2 and the matcher", d)
		}
		if r := getJSON(t, s, w.Viewer.Token, path); r["fingerprint"] != "" {
			t.Errorf("rules after refusals = %v, want unchanged", r)
		}

		payout := func(batch string) map[string]any {
			return ev("Payout batch "+batch+" failed", "error", "stack_trace", "com.acme.payouts.PayoutBatchException: Payout batch "+batch+" failed\n"+
				"\tat com.acme.payouts.BatchRunner.run(BatchRunner.java:88)\n\tat com.acme.payouts.Scheduler.tick(Scheduler.java:41)\n"+
				"\tat java.base/java.lang.Thread.run(Thread.java:833)\n")
		}
		// Before the rules: the batch id is data the value keeps apart.
		feed(t, s, w.Key, batchOf("api", payout("2026-11-01/eu-sepa")))
		before := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/groups?limit=100")

		got := put(w.Admin.Token, rules).Expect(t, http.StatusOK, "").JSON(t)
		if got["fingerprint"] != "# payouts by batch are one problem\nerror.type:PayoutBatchException -> payout-batch, {{ error.type }}" ||
			got["stack_trace"] != rules["stack_trace"] || got["updated_at"] == nil {
			t.Errorf("PUT answer = %v", got)
		}
		if r := getJSON(t, s, w.Viewer.Token, path); r["fingerprint"] != got["fingerprint"] || r["stack_trace"] != got["stack_trace"] {
			t.Errorf("GET after PUT = %v", r)
		}
		feed(t, s, w.Key, batchOf("api", payout("2026-11-02/uk-bacs"), payout("2026-11-03/eu-sepa")))
		after := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/groups?limit=100")
		if len(after) != len(before)+1 {
			t.Fatalf("%d groups after the rules, want %d: the rule's group beside the old one", len(after), len(before)+1)
		}
		var ruled map[string]any
		for _, g := range after {
			if g["fingerprint_rule"] == "custom" {
				ruled = g
			}
		}
		if ruled == nil || ruled["event_count"] != float64(2) || ruled["culprit"] != "com.acme.payouts.Scheduler.tick" {
			t.Fatalf("rule's group = %v, want both later batches, the culprit past the frame -app took out", ruled)
		}
		_, comps := components(t, s, w.Viewer.Token, ruled["id"].(string))
		if !hasComponent(comps, "fingerprint=payout-batch, com.acme.payouts.PayoutBatchException") ||
			!hasComponent(comps, "fingerprint_rule=error.type:PayoutBatchException -> payout-batch, {{ error.type }}") ||
			!hasComponent(comps, "-stack_trace_rule=stack.module:com.acme.payouts.BatchRunner -app") ||
			!hasComponent(comps, "error.type=com.acme.payouts.PayoutBatchException") || !hasComponent(comps, "-stack.frame=com.acme.payouts.Scheduler:tick") {
			t.Errorf("rule group's components %q", comps)
		}
		// Owners may change them too; empty texts remove them.
		put(w.Owner.Token, map[string]any{}).Expect(t, http.StatusOK, "")
		if r := getJSON(t, s, w.Viewer.Token, path); r["fingerprint"] != "" || r["stack_trace"] != "" || r["updated_at"] == nil {
			t.Errorf("rules after clearing = %v", r)
		}
	})
}

// TestOwnFingerprintThroughIngest: through /v1/ingest, an event whose
// fingerprint is only {{ default }} joins the group the same event makes
// without one (one group, one ticket), and {{ transaction }} in an
// event's own fingerprint splits by the attribute transaction.
func TestOwnFingerprintThroughIngest(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		pay := func(n int, fp any, tx string) map[string]any {
			attrs := map[string]any{"transaction": tx}
			if fp != nil {
				attrs["fingerprint"] = fp
			}
			return ev(fmt.Sprintf("payment %d failed", n), "error", "attributes", attrs)
		}
		feed(t, s, w.Key, batchOf("dflt", pay(17, nil, "/a"), pay(18, []string{"{{ default }}"}, "/a"), pay(19, "{{ default }}", "/b")))
		groups := items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/groups")
		if len(groups) != 1 || groups[0]["event_count"] != float64(3) {
			t.Fatalf("groups = %d (first %v events), want one of 3 events", len(groups), groups[0]["event_count"])
		}
		if tk := items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/tickets"); len(tk) != 1 {
			t.Errorf("tickets = %d, want 1", len(tk))
		}
		feed(t, s, w.Key, batchOf("tx", pay(1, []string{"{{ default }}", "{{ transaction }}"}, "/checkout"),
			pay(2, []string{"{{ default }}", "{{ transaction }}"}, "/refund"), pay(3, []string{"{{ default }}", "{{ transaction }}"}, "/checkout")))
		counts := map[float64]int{}
		for _, g := range items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/groups?service=tx") {
			counts[g["event_count"].(float64)]++
		}
		if counts[2] != 1 || counts[1] != 1 || len(counts) != 2 {
			t.Errorf("groups of service tx by event count = %v, want one of 2 (/checkout) and one of 1 (/refund)", counts)
		}
	})
}
