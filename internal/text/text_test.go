package text_test

import (
	"testing"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/text"
)

func TestFault(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"Acme", ""},
		{"", ""},
		{"tab\there, newline\nthere", ""},
		{"Zoë, 東京, 😀, U+00A0\u00a0, U+FFFD \ufffd", ""},
		{"zero-width\u200bspace and bidi \u202e are not controls (Cf)", ""},
		{"nul\x00", "must not contain control characters"},
		{"\x07bell", "must not contain control characters"},
		{"esc\x1b[31m", "must not contain control characters"},
		{"del\x7f", "must not contain control characters"},
		{"carriage\rreturn", "must not contain control characters"},
		{"next line\u0085", "must not contain control characters"},
		{"c1 \u009b", "must not contain control characters"},
		{"latin-1 \xe9", "must be UTF-8 text"},
		{"\xff", "must be UTF-8 text"},
	} {
		if got := text.Fault(tc.in); got != tc.want {
			t.Errorf("Fault(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

type filters struct {
	Environments *[]string `json:"environments,omitempty"`
	Services     []string  `json:"services"`
}

type listParams struct {
	Cursor string `query:"cursor"`
}

type input struct {
	listParams
	ProjectID   string `path:"project_id"`
	Environment string `query:"environment"`
	Body        struct {
		Name     string         `json:"name"`
		Password string         `json:"password" text:"secret"`
		Filters  *filters       `json:"filters,omitempty"`
		Attrs    map[string]any `json:"attributes"`
		Raw      []byte         `json:"raw"`
		Ignored  string         `json:"-"`
		Plain    struct{ Inner string }
	}
}

func TestWalkNamesTheField(t *testing.T) {
	envs := func(vs ...string) *[]string { return &vs }
	for _, tc := range []struct {
		name string
		set  func(in *input)
		want string // the problem's detail; "" for none
	}{
		{"clean", func(in *input) {
			in.Body.Name, in.Body.Filters = "web\tapp\n", &filters{Environments: envs("production")}
			in.Body.Attrs = map[string]any{"k": []any{"v", map[string]any{"deep": "ok"}}}
		}, ""},
		{"path", func(in *input) { in.ProjectID = "prj_\x00" }, "project_id: must not contain control characters"},
		{"query", func(in *input) { in.Environment = "prod\x1b" }, "environment: must not contain control characters"},
		{"embedded query", func(in *input) { in.Cursor = "\x07" }, "cursor: must not contain control characters"},
		{"body", func(in *input) { in.Body.Name = "a\x00" }, "name: must not contain control characters"},
		{"list item", func(in *input) { in.Body.Filters = &filters{Environments: envs("ok", "pro\u0085d")} },
			"filters.environments[1]: must not contain control characters"},
		{"plain list", func(in *input) { in.Body.Filters = &filters{Services: []string{"\x7f"}} }, "filters.services[0]: must not contain control characters"},
		{"any", func(in *input) {
			in.Body.Attrs = map[string]any{"a": "ok", "b": []any{1.5, map[string]any{"c": "x\x00"}}}
		},
			"attributes.b[1].c: must not contain control characters"},
		{"map key", func(in *input) { in.Body.Attrs = map[string]any{"k\x00": "v"} }, "attributes: must not contain control characters"},
		{"first in key order", func(in *input) { in.Body.Attrs = map[string]any{"z": "\x00", "a": "\x01"} }, "attributes.a: must not contain control characters"},
		{"untagged", func(in *input) { in.Body.Plain.Inner = "\x02" }, "Plain.Inner: must not contain control characters"},
		{"not UTF-8", func(in *input) { in.Environment = "\xff" }, "environment: must be UTF-8 text"},
		{"secret", func(in *input) { in.Body.Password = "pass\x00word" }, ""},
		{"bytes", func(in *input) { in.Body.Raw = []byte("\x00") }, ""},
		{"json dash", func(in *input) { in.Body.Ignored = "\x00" }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in input
			tc.set(&in)
			err := text.Walk(&in)
			got := ""
			if err != nil {
				p := problem.From(err)
				if p.Code() != "validation-failed" || p.Status != 422 {
					t.Fatalf("Walk = %v (%s, %d), want a 422 validation-failed", err, p.Code(), p.Status)
				}
				got = p.Detail
			}
			if got != tc.want {
				t.Errorf("Walk detail = %q, want %q", got, tc.want)
			}
		})
	}
}
