package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/groupinginfo"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// groupingRoutes registers the grouping rules page.
func (d *Dashboard) groupingRoutes(mux *http.ServeMux) {
	d.get(mux, "/projects/{project_id}/grouping-rules", d.groupingRules)
	d.post(mux, "/projects/{project_id}/grouping-rules", d.saveGroupingRules)
}

// rulesData fills grouping-rules.html.
type rulesData struct {
	Project     store.Project
	Fingerprint string
	StackTrace  string
	Saved       store.GroupingRules
	CanEdit     bool
	Notice      string
	// Error is the rule that does not parse, shown at its line; nil when
	// none.
	Error *ruleError
}

// ruleError is a rule that does not parse, with the text of its field line
// by line so that the page can mark the line.
type ruleError struct {
	Field, Label, Message string
	Line                  int
	Lines                 []ruleLine
}

type ruleLine struct {
	N    int
	Text string
	Bad  bool
}

// groupingRules shows a project's grouping rules: a form for admins and
// owners, the rules as text for everyone else who can read the project.
func (d *Dashboard) groupingRules(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Viewer); err != nil {
		return err
	}
	data := rulesData{}
	if r.URL.Query().Get("saved") == "1" {
		data.Notice = "Grouping rules saved: they apply to the events processed from now on."
	}
	return d.renderRules(w, r, p, http.StatusOK, data, false)
}

// saveGroupingRules stores the rules as PUT grouping-rules does (admins and
// owners); a rule that does not parse shows the form again, its line
// marked.
func (d *Dashboard) saveGroupingRules(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Admin); err != nil {
		return err
	}
	if err := readForm(r); err != nil {
		return err
	}
	data := rulesData{Fingerprint: r.PostForm.Get("fingerprint"), StackTrace: r.PostForm.Get("stack_trace")}
	projectID := r.PathValue("project_id")
	_, err := groupinginfo.SaveGroupingRules(r.Context(), d.db, projectID, data.Fingerprint, data.StackTrace, p.User.ID, d.now())
	var pr *problem.Problem
	if errors.As(err, &pr) && pr.Status == http.StatusUnprocessableEntity {
		data.Error = ruleErrorOf(pr.Detail, data.Fingerprint, data.StackTrace)
		return d.renderRules(w, r, p, pr.Status, data, true)
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/projects/"+projectID+"/grouping-rules?saved=1", http.StatusSeeOther)
	return nil
}

// ruleErrorOf reads a refusal ("stack_trace: line 3: …", or a field's
// control characters) back into the field, line and message.
func ruleErrorOf(detail, fingerprint, stackTrace string) *ruleError {
	e := &ruleError{Message: detail}
	field, rest, _ := strings.Cut(detail, ": ")
	text := fingerprint
	switch field {
	case "fingerprint":
		e.Field, e.Label = field, "Fingerprint rules"
	case "stack_trace":
		e.Field, e.Label, text = field, "Stack trace rules", stackTrace
	default:
		return e
	}
	e.Message = rest
	if pe := parseError(fingerprint, stackTrace); pe != nil && pe.Field == field {
		e.Line, e.Message = pe.Line, pe.Msg
	}
	for k, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		e.Lines = append(e.Lines, ruleLine{N: k + 1, Text: l, Bad: k+1 == e.Line})
	}
	return e
}

// parseError is the rules' parse error, nil when they parse.
func parseError(fingerprint, stackTrace string) *grouping.RuleError {
	norm := func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
	_, err := grouping.ParseRules(norm(fingerprint), norm(stackTrace))
	var re *grouping.RuleError
	if errors.As(err, &re) {
		return re
	}
	return nil
}

func (d *Dashboard) renderRules(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, status int, data rulesData, submitted bool) error {
	ctx := r.Context()
	prj, crumbs, err := d.projectCrumbs(ctx, r.PathValue("project_id"))
	if err != nil {
		return err
	}
	saved, err := d.db.Read().GroupingRules(ctx, prj.ID)
	if err != nil {
		return err
	}
	data.Project, data.Saved = prj, saved
	if !submitted {
		data.Fingerprint, data.StackTrace = saved.Fingerprint, saved.StackTrace
	}
	role, _ := org.ParseRole(p.Member.Role)
	data.CanEdit = role.AtLeast(org.Admin)
	crumbs = append(crumbs, crumb{"Error groups", "/projects/" + prj.ID + "/groups"})
	d.render(w, r, status, "grouping-rules", p, frame{Title: "Grouping rules · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "groups", Data: data})
	return nil
}

// componentNames are the grouping components as the group page names them.
var componentNames = map[string]string{
	"error.type": "Exception type", "error.value": "Exception value", "message": "Message",
	"message_template": "Message template", "stack.frame": "Frame", "stack_trace_rule": "Stack trace rule",
	"fingerprint": "Custom fingerprint", "fingerprint_rule": "Fingerprint rule",
}

func init() {
	funcs["componentName"] = func(name string) string {
		if n, ok := componentNames[name]; ok {
			return n
		}
		return name
	}
}
