package sdktest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// errata is a real Errata server (internal/apitest: the app over loopback
// HTTP on a fresh database) with a project "shop" and an API key, whose DSN
// comes from the key creation answer, as a person would copy it.
type errata struct {
	s         *apitest.Server
	token     string
	projectID string
	dsn       string
}

func startErrata(t *testing.T, s *apitest.Server) *errata {
	t.Helper()
	owner := s.SignUp(t, "owner@example.com")
	org := s.CreateOrg(t, owner.Token, "Acme")
	e := &errata{s: s, token: owner.Token, projectID: s.CreateProject(t, owner.Token, org, "shop")}
	_, key, dsn := s.CreateKeyDSN(t, owner.Token, e.projectID)
	e.dsn = dsn
	if !strings.HasPrefix(e.dsn, "http://"+key+"@") {
		t.Fatalf("dsn %q does not carry the key", e.dsn)
	}
	return e
}

// outcome is what Errata made of what an SDK sent: the project's error
// groups with their tickets, and its INFO counts.
type outcome struct {
	groups      []map[string]any
	tickets     map[string]map[string]any // by group id
	info, debug float64                   // summed over the INFO summaries
}

// outcome processes everything accepted and reads the result through the
// API.
func (e *errata) outcome(t *testing.T) outcome {
	t.Helper()
	if err := e.s.App.Processor.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	get := func(path string) []any {
		t.Helper()
		return e.s.Do(apitest.Request{Method: "GET", Path: path, Token: e.token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
	}
	o := outcome{tickets: map[string]map[string]any{}}
	for _, g := range get("/v1/projects/" + e.projectID + "/groups?limit=100") {
		g := g.(map[string]any)
		o.groups = append(o.groups, g)
		if tid, ok := g["ticket_id"].(string); ok {
			o.tickets[g["id"].(string)] = e.s.Do(apitest.Request{Method: "GET", Path: "/v1/tickets/" + tid, Token: e.token}).Expect(t, http.StatusOK, "").JSON(t)
		}
	}
	for _, s := range get("/v1/projects/" + e.projectID + "/info-summaries?limit=100") {
		o.info += s.(map[string]any)["event_count"].(float64)
		o.debug += s.(map[string]any)["debug_count"].(float64)
	}
	return o
}

// wantGroup is an error group an SDK's reports must make.
type wantGroup struct {
	title    string // a part of the title
	service  string
	level    string
	severity string // of its ticket
	stack    bool   // grouped by its stack trace
}

// check finds each wanted group, with its ticket, and no other; and the
// INFO counts.
func (o outcome) check(t *testing.T, want []wantGroup, info, debug float64) {
	t.Helper()
	var titles []string
	for _, g := range o.groups {
		titles = append(titles, g["title"].(string))
	}
	if len(o.groups) != len(want) {
		t.Errorf("%d error groups %q, want %d", len(o.groups), titles, len(want))
	}
	for _, w := range want {
		var g map[string]any
		for _, x := range o.groups {
			if strings.Contains(x["title"].(string), w.title) {
				g = x
			}
		}
		if g == nil {
			t.Errorf("no error group titled like %q; groups %q", w.title, titles)
			continue
		}
		if g["service"] != w.service || g["level"] != w.level || g["event_count"] != float64(1) {
			t.Errorf("group %q: service %v, level %v, %v events; want %s, %s, 1", g["title"], g["service"], g["level"], g["event_count"], w.service, w.level)
		}
		if rule := g["fingerprint_rule"]; w.stack && (rule != "stacktrace" || g["culprit"] == "") {
			t.Errorf("group %q: fingerprint rule %v, culprit %q; want grouped by its stack", g["title"], rule, g["culprit"])
		}
		tk, ok := o.tickets[g["id"].(string)]
		if !ok {
			t.Errorf("group %q has no ticket", g["title"])
		} else if tk["severity"] != w.severity || tk["status"] != "open" {
			t.Errorf("group %q: ticket %v %v, want %s and open", g["title"], tk["severity"], tk["status"], w.severity)
		}
	}
	if o.info != info || o.debug != debug {
		t.Errorf("INFO summaries count %v info and %v debug events, want %v and %v", o.info, o.debug, info, debug)
	}
}
