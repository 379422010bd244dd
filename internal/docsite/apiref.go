package docsite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"sort"
	"strings"
)

// The API reference, GET /docs/api: the served OpenAPI document (the JSON of
// /v1/openapi.json, read once at the first request, when every route is
// registered) rendered as one page: operations by tag with their parameters,
// request bodies and answers, then the webhooks and every schema, each type
// linking to its schema. Descriptions are plain text, escaped.

// The parts of an OpenAPI 3.1 document the page shows.
type (
	oaDoc struct {
		Info struct {
			Title, Version, Description string
		}
		Servers []struct{ URL string }
		Tags    []struct{ Name, Description string }
		Paths   map[string]map[string]json.RawMessage
		// Webhooks are the deliveries Errata sends.
		Webhooks   map[string]map[string]json.RawMessage
		Components struct {
			Schemas         map[string]*oaSchema
			SecuritySchemes map[string]struct{ Type, Scheme, Description string }
		}
	}
	oaOperation struct {
		OperationID string
		Summary     string
		Description string
		Tags        []string
		Deprecated  bool
		Parameters  []struct {
			Name, In, Description string
			Required              bool
			Schema                *oaSchema
		}
		RequestBody *struct {
			Description string
			Required    bool
			Content     map[string]struct{ Schema *oaSchema }
		}
		Responses map[string]struct {
			Description string
			Content     map[string]struct{ Schema *oaSchema }
		}
		Security []map[string][]string
	}
	oaSchema struct {
		Ref                  string `json:"$ref"`
		Type                 any    // a name, or a list of names in 3.1
		Format               string
		Description          string
		Properties           map[string]*oaSchema
		Required             []string
		Items                *oaSchema
		Enum                 []any
		OneOf                []*oaSchema
		AnyOf                []*oaSchema
		AdditionalProperties any
	}
)

// The page's model.
type (
	apiRef struct {
		Title, Version string
		Intro          template.HTML
		Servers        []string
		Schemes        []apiScheme
		Tags           []*apiTag
		Webhooks       []apiOp
		Schemas        []apiSchema
	}
	apiScheme struct {
		Name, Type  string
		Description template.HTML
	}
	apiTag struct {
		Name, ID    string
		Description template.HTML
		Ops         []apiOp
	}
	apiOp struct {
		ID, Method, Path, Summary string
		Description               template.HTML
		Deprecated                bool
		Security                  []string
		Params                    []apiField
		Bodies                    []apiContent
		BodyRequired              bool
		Responses                 []apiResponse
	}
	apiField struct {
		Name, In    string
		Required    bool
		Type        template.HTML
		Description template.HTML
	}
	apiContent struct {
		MediaType string
		Type      template.HTML
	}
	apiResponse struct {
		Status      string
		Description template.HTML
		Contents    []apiContent
	}
	apiSchema struct {
		Name, ID    string
		Description template.HTML
		Type        template.HTML // when it is not an object with properties
		Props       []apiField
	}
)

var methods = []string{"get", "put", "post", "patch", "delete", "head", "options", "trace"}

func (s *site) apiReference(w http.ResponseWriter, r *http.Request) {
	s.apiOnce.Do(func() { s.apiPage, s.apiErr = s.renderAPI() })
	if s.apiErr != nil {
		http.Error(w, "docs: the API reference: "+s.apiErr.Error(), http.StatusInternalServerError)
		return
	}
	writePage(w, r, s.apiPage)
}

func (s *site) renderAPI() ([]byte, error) {
	raw, err := s.openapi()
	if err != nil {
		return nil, err
	}
	ref, err := buildAPIRef(raw)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := tmpl.ExecuteTemplate(&buf, "api.html", ref); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// buildAPIRef reads an OpenAPI document into the page's model.
func buildAPIRef(raw []byte) (*apiRef, error) {
	var doc oaDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("the OpenAPI document: %w", err)
	}
	ref := &apiRef{Title: doc.Info.Title, Version: doc.Info.Version, Intro: textHTML(doc.Info.Description)}
	for _, sv := range doc.Servers {
		ref.Servers = append(ref.Servers, sv.URL)
	}
	for _, name := range sortedKeys(doc.Components.SecuritySchemes) {
		sc := doc.Components.SecuritySchemes[name]
		ref.Schemes = append(ref.Schemes, apiScheme{Name: name, Type: strings.TrimSpace(sc.Type + " " + sc.Scheme), Description: textHTML(sc.Description)})
	}
	tags := map[string]*apiTag{}
	for _, t := range doc.Tags {
		tag := &apiTag{Name: t.Name, ID: "tag-" + anchor(t.Name), Description: textHTML(t.Description)}
		tags[t.Name] = tag
		ref.Tags = append(ref.Tags, tag)
	}
	ops, err := operations(doc.Paths)
	if err != nil {
		return nil, err
	}
	for _, o := range ops {
		name := "Other"
		if len(o.tags) > 0 {
			name = o.tags[0]
		}
		tag, ok := tags[name]
		if !ok {
			tag = &apiTag{Name: name, ID: "tag-" + anchor(name)}
			tags[name] = tag
			ref.Tags = append(ref.Tags, tag)
		}
		tag.Ops = append(tag.Ops, o.apiOp)
	}
	kept := ref.Tags[:0]
	for _, t := range ref.Tags {
		if len(t.Ops) > 0 {
			kept = append(kept, t)
		}
	}
	ref.Tags = kept
	hooks, err := operations(doc.Webhooks)
	if err != nil {
		return nil, err
	}
	for _, o := range hooks {
		o.ID = "webhook-" + anchor(o.Path+"-"+o.Method)
		ref.Webhooks = append(ref.Webhooks, o.apiOp)
	}
	for _, name := range sortedKeys(doc.Components.Schemas) {
		ref.Schemas = append(ref.Schemas, schemaEntry(name, doc.Components.Schemas[name]))
	}
	return ref, nil
}

type taggedOp struct {
	apiOp
	tags []string
}

// operations are the operations of paths, by path then method.
func operations(paths map[string]map[string]json.RawMessage) ([]taggedOp, error) {
	var out []taggedOp
	for _, p := range sortedKeys(paths) {
		for _, m := range methods {
			raw, ok := paths[p][m]
			if !ok {
				continue
			}
			var op oaOperation
			if err := json.Unmarshal(raw, &op); err != nil {
				return nil, fmt.Errorf("%s %s: %w", strings.ToUpper(m), p, err)
			}
			out = append(out, taggedOp{apiOp: convertOp(p, m, &op), tags: op.Tags})
		}
	}
	return out, nil
}

func convertOp(p, m string, op *oaOperation) apiOp {
	id := op.OperationID
	if id == "" {
		id = m + "-" + p
	}
	o := apiOp{ID: "op-" + anchor(id), Method: strings.ToUpper(m), Path: p, Summary: op.Summary,
		Description: textHTML(op.Description), Deprecated: op.Deprecated}
	for _, sec := range op.Security {
		o.Security = append(o.Security, sortedKeys(sec)...)
	}
	for _, prm := range op.Parameters {
		o.Params = append(o.Params, apiField{Name: prm.Name, In: prm.In, Required: prm.Required,
			Type: typeHTML(prm.Schema), Description: textHTML(prm.Description)})
	}
	if rb := op.RequestBody; rb != nil {
		o.BodyRequired = rb.Required
		for _, mt := range sortedKeys(rb.Content) {
			o.Bodies = append(o.Bodies, apiContent{MediaType: mt, Type: typeHTML(rb.Content[mt].Schema)})
		}
	}
	for _, code := range sortedKeys(op.Responses) {
		res := op.Responses[code]
		ar := apiResponse{Status: code, Description: textHTML(res.Description)}
		for _, mt := range sortedKeys(res.Content) {
			ar.Contents = append(ar.Contents, apiContent{MediaType: mt, Type: typeHTML(res.Content[mt].Schema)})
		}
		o.Responses = append(o.Responses, ar)
	}
	return o
}

func schemaEntry(name string, sc *oaSchema) apiSchema {
	e := apiSchema{Name: name, ID: "schema-" + anchor(name)}
	if sc == nil {
		return e
	}
	e.Description = textHTML(sc.Description)
	if len(sc.Properties) == 0 {
		e.Type = typeHTML(&oaSchema{Type: sc.Type, Format: sc.Format, Items: sc.Items, Enum: sc.Enum, OneOf: sc.OneOf,
			AnyOf: sc.AnyOf, AdditionalProperties: sc.AdditionalProperties, Ref: sc.Ref})
	}
	e.Props = properties(sc)
	return e
}

func properties(sc *oaSchema) []apiField {
	required := map[string]bool{}
	for _, r := range sc.Required {
		required[r] = true
	}
	var out []apiField
	for _, name := range sortedKeys(sc.Properties) {
		p := sc.Properties[name]
		out = append(out, apiField{Name: name, Required: required[name], Type: typeHTML(p), Description: textHTML(describe(p))})
	}
	return out
}

func describe(sc *oaSchema) string {
	if sc == nil {
		return ""
	}
	return sc.Description
}

// typeHTML is a schema's type in words, every referenced schema a link to
// its entry; all text escaped.
func typeHTML(sc *oaSchema) template.HTML {
	var b strings.Builder
	writeType(&b, sc, 0)
	return template.HTML(b.String()) // built from escaped pieces only
}

func writeType(b *strings.Builder, sc *oaSchema, depth int) {
	esc := template.HTMLEscapeString
	switch {
	case sc == nil:
		b.WriteString("any")
	case depth > 4:
		b.WriteString("…")
	case sc.Ref != "":
		name := sc.Ref[strings.LastIndexByte(sc.Ref, '/')+1:]
		fmt.Fprintf(b, `<a href="#schema-%s"><code>%s</code></a>`, esc(anchor(name)), esc(name))
	case len(sc.OneOf)+len(sc.AnyOf) > 0:
		for i, alt := range append(append([]*oaSchema{}, sc.OneOf...), sc.AnyOf...) {
			if i > 0 {
				b.WriteString(" or ")
			}
			writeType(b, alt, depth+1)
		}
	default:
		types := typeNames(sc.Type)
		for i, t := range types {
			if i > 0 {
				b.WriteString(" or ")
			}
			switch {
			case t == "array":
				b.WriteString("array of ")
				writeType(b, sc.Items, depth+1)
			case t == "object" && len(sc.Properties) > 0:
				b.WriteString("object with ")
				for j, name := range sortedKeys(sc.Properties) {
					if j > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(b, "<code>%s</code> (", esc(name))
					writeType(b, sc.Properties[name], depth+1)
					b.WriteString(")")
				}
			case t == "object":
				if add, ok := sc.AdditionalProperties.(map[string]any); ok && len(add) > 0 {
					raw, _ := json.Marshal(add)
					var inner oaSchema
					_ = json.Unmarshal(raw, &inner)
					b.WriteString("map of ")
					writeType(b, &inner, depth+1)
				} else {
					b.WriteString("object")
				}
			default:
				b.WriteString(esc(t))
				if sc.Format != "" {
					fmt.Fprintf(b, " (%s)", esc(sc.Format))
				}
			}
		}
		if len(types) == 0 {
			b.WriteString("any")
		}
		if len(sc.Enum) > 0 {
			b.WriteString(": one of ")
			for i, v := range sc.Enum {
				if i > 0 {
					b.WriteString(", ")
				}
				raw, _ := json.Marshal(v)
				fmt.Fprintf(b, "<code>%s</code>", esc(string(raw)))
			}
		}
	}
}

func typeNames(t any) []string {
	switch v := t.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// anchor makes s usable in an id: letters, digits, '-', '_' and '.' kept,
// the rest '-'.
func anchor(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, s)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
