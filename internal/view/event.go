package view

import (
	"context"
	"encoding/json"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
)

// FrameContext is the source around a frame's line, when the sender gave it.
type FrameContext struct {
	Pre  []string `json:"pre" nullable:"false"`
	Line string   `json:"line"`
	Post []string `json:"post" nullable:"false"`
}

// FrameView is one frame of an event's stack trace.
type FrameView struct {
	Function string        `json:"function"`
	Module   string        `json:"module"`
	File     string        `json:"file"`
	Line     *int          `json:"line" nullable:"true"`
	Column   *int          `json:"column" nullable:"true"`
	InApp    bool          `json:"in_app"`
	Context  *FrameContext `json:"context" doc:"The source lines around the frame's line; null when the sender gave none"`
	Raw      *RawFrameView `json:"raw,omitempty"`
}

// nullableObject is the schema of an object that may be null: huma allows
// null only on scalar fields, so these types describe themselves.
func nullableObject(doc string, props map[string]*huma.Schema) *huma.Schema {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	sort.Strings(req)
	return &huma.Schema{Type: huma.TypeObject, Nullable: true, Description: doc, Properties: props, Required: req, AdditionalProperties: false}
}

// stringSchema and linesSchema are made afresh for every use: huma writes
// into a schema as it registers it (PrecomputeMessages), so one shared by
// servers built at once would be a data race.
func stringSchema() *huma.Schema { return &huma.Schema{Type: huma.TypeString} }

func linesSchema() *huma.Schema { return &huma.Schema{Type: huma.TypeArray, Items: stringSchema()} }

// Schema describes a frame's context, or null.
func (FrameContext) Schema(huma.Registry) *huma.Schema {
	return nullableObject("Source lines before, at and after the frame's line", map[string]*huma.Schema{"pre": linesSchema(), "line": stringSchema(), "post": linesSchema()})
}

// Schema describes an event's user, or null.
func (EventUser) Schema(huma.Registry) *huma.Schema {
	return nullableObject("The user an event names", map[string]*huma.Schema{"id": stringSchema()})
}

// Schema describes an event's request, or null.
func (EventRequest) Schema(huma.Registry) *huma.Schema {
	return nullableObject("The HTTP request an event names", map[string]*huma.Schema{"url": stringSchema(), "method": stringSchema()})
}

// BreadcrumbView is one of the steps an SDK recorded before the event.
type BreadcrumbView struct {
	Timestamp *Timestamp     `json:"timestamp" nullable:"true"`
	Category  string         `json:"category"`
	Level     string         `json:"level"`
	Message   string         `json:"message"`
	Data      map[string]any `json:"data" nullable:"true"`
}

// EventUser is the user an event names.
type EventUser struct {
	ID string `json:"id" doc:"The attribute user.id"`
}

// EventRequest is the HTTP request an event names.
type EventRequest struct {
	URL    string `json:"url" doc:"The attribute request.url"`
	Method string `json:"method" doc:"The attribute request.method"`
}

// EventDetail is a stored event whole (CONTRACT 8).
type EventDetail struct {
	ID              string             `json:"id" doc:"evt_ identifier"`
	GroupID         string             `json:"group_id"`
	ProjectID       string             `json:"project_id"`
	Timestamp       Timestamp          `json:"timestamp"`
	ReceivedAt      Timestamp          `json:"received_at"`
	Level           string             `json:"level" enum:"debug,info,warn,error,fatal"`
	Service         string             `json:"service"`
	Environment     string             `json:"environment"`
	Release         string             `json:"release"`
	Message         string             `json:"message"`
	StackTrace      string             `json:"stack_trace"`
	Frames          []FrameView        `json:"frames" nullable:"false" doc:"The stack trace's frames as parsed, in its printed order; empty when it did not parse"`
	Attributes      json.RawMessage    `json:"attributes" doc:"The event's attributes, secrets redacted"`
	Breadcrumbs     []BreadcrumbView   `json:"breadcrumbs" nullable:"false"`
	TraceID         string             `json:"trace_id"`
	SpanID          string             `json:"span_id"`
	User            *EventUser         `json:"user" doc:"null when the event names no user.id"`
	Request         *EventRequest      `json:"request" doc:"null when the event names no request"`
	PreviousEventID *string            `json:"previous_event_id" nullable:"true" doc:"The group's stored event before this one"`
	NextEventID     *string            `json:"next_event_id" nullable:"true" doc:"The group's stored event after this one"`
	Symbolication   *SymbolicationView `json:"symbolication,omitempty"`
}

// EventDetailOf reads stored event id whole, with its group, for the API's
// GET /v1/events/{event_id} and the dashboard's event page.
func EventDetailOf(ctx context.Context, c *store.Conn, id int64) (EventDetail, store.Group, error) {
	e, err := c.GroupEventByID(ctx, id)
	if err != nil {
		return EventDetail{}, store.Group{}, err
	}
	g, err := c.GroupByID(ctx, e.GroupID)
	if err != nil {
		return EventDetail{}, store.Group{}, err
	}
	prev, next, err := c.AdjacentEvents(ctx, e.GroupID, e.ID)
	if err != nil {
		return EventDetail{}, store.Group{}, err
	}
	return NewEventDetail(e, g, prev, next), g, nil
}

// NewEventDetail is the stored event e of group g whole, with the ids of the
// group's stored events before and after it (0: none).
func NewEventDetail(e store.GroupEvent, g store.Group, prev, next int64) EventDetail {
	d := EventDetail{ID: id.FormatEvent(e.ID), GroupID: e.GroupID, ProjectID: g.ProjectID, Timestamp: TS(e.Timestamp), ReceivedAt: TS(e.ReceivedAt),
		Level: ingest.Level(e.Level).String(), Service: g.Service, Environment: e.Environment, Release: e.Release, Message: e.Message,
		StackTrace: e.StackTrace, Attributes: json.RawMessage(e.Attributes),
		TraceID: e.TraceID, SpanID: e.SpanID, PreviousEventID: eventRef(prev), NextEventID: eventRef(next)}
	attrs := attributeStrings(e.Attributes)
	d.Frames = frames(e.StackTrace, attrs["sentry.in_app"])
	detail := ingest.ParseDetail(e.Detail)
	d.Breadcrumbs = breadcrumbs(detail.Breadcrumbs)
	sym := symbolication(e.Symbolication)
	withContext(d.Frames, append(symbolicatedSources(sym), detail.Sources...))
	withRaw(d.Frames, sym)
	d.Symbolication = symbolicationView(sym)
	d.User = eventUser(attrs)
	if url, method := attrs["request.url"], attrs["request.method"]; url != "" || method != "" {
		d.Request = &EventRequest{URL: url, Method: method}
	}
	return d
}

// strs is v, or an empty list for nil (a JSON [] rather than null).
func strs(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// breadcrumbs views an event's stored breadcrumbs.
func breadcrumbs(in []ingest.Breadcrumb) []BreadcrumbView {
	out := make([]BreadcrumbView, 0, len(in))
	for _, c := range in {
		v := BreadcrumbView{Category: c.Category, Level: c.Level, Message: c.Message}
		if c.Timestamp != nil {
			t := TS(time.UnixMilli(*c.Timestamp))
			v.Timestamp = &t
		}
		if len(c.Data) > 0 && json.Unmarshal(c.Data, &v.Data) != nil {
			v.Data = nil
		}
		out = append(out, v)
	}
	return out
}

// withContext gives the parsed frames the source context the SDK sent for
// the frame of the same line in the same file (its path, or a path ending
// with the other, either without a URL's query or fragment).
func withContext(fs []FrameView, sources []ingest.FrameSource) {
	if len(sources) == 0 {
		return
	}
	for k := range fs {
		f := &fs[k]
		if f.Line == nil {
			continue
		}
		for _, src := range sources {
			if src.Line == *f.Line && sameFile(src.File, f.File) {
				if src.Text != "" || len(src.Pre) > 0 || len(src.Post) > 0 {
					f.Context = &FrameContext{Pre: strs(src.Pre), Line: src.Text, Post: strs(src.Post)}
				}
				if f.Column == nil && src.Column > 0 {
					f.Column = &src.Column
				}
				break
			}
		}
	}
}

func sameFile(a, b string) bool {
	// The parsed frame names a URL without its query or fragment; the
	// SDK's abs_path keeps them (a cache-busting ?v=2, a page's #anchor).
	a, b = withoutQuery(a), withoutQuery(b)
	if a == "" || b == "" {
		return a == b
	}
	return a == b || strings.HasSuffix(a, "/"+b) || strings.HasSuffix(b, "/"+a)
}

func eventRef(n int64) *string {
	if n == 0 {
		return nil
	}
	s := id.FormatEvent(n)
	return &s
}

// lineCol finds a frame's line (and column) in its line of the trace:
// "file.js:10:5", "Foo.java:10)", `File "x.py", line 10`.
var lineCol = regexp.MustCompile(`(?:line (\d+))|(?::(\d+)(?::(\d+))?\)?\s*$)`)

// frames parses a stack trace's frames for the event detail; inApp is the
// in-app flags a Sentry SDK sent (attribute sentry.in_app), which win over
// the parser's judgement as they do in grouping.
func frames(trace, inApp string) []FrameView {
	st := grouping.ParseStack(trace)
	grouping.ApplyInApp(st.Frames, inApp)
	lines := strings.Split(trace, "\n")
	out := make([]FrameView, 0, len(st.Frames))
	for k, f := range st.Frames {
		v := FrameView{Function: f.Function, Module: grouping.ModuleName(&st.Frames[k], st.Language), File: shownFile(f), InApp: f.InApp}
		if k < len(st.Lines) && st.Lines[k] < len(lines) {
			line := lines[st.Lines[k]]
			if m := lineCol.FindStringSubmatchIndex(line); m != nil {
				v.Line = atoiPtr(sub(line, m, 1) + sub(line, m, 2))
				v.Column = atoiPtr(sub(line, m, 3))
				if m[4] >= 0 { // "file:line[:col]": the file as the line prints it
					if p := printedFile(line[:m[0]], f); p != "" {
						v.File = p
					}
				}
			} else {
				v.Line, v.Column = afterPath(lines[st.Lines[k]:min(st.Lines[k]+2, len(lines))], f.Path)
			}
		}
		out = append(out, v)
	}
	return out
}

// sub is submatch i of a FindStringSubmatchIndex result m on s, "" when
// it did not take part.
func sub(s string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

// printedFile is the file a frame's line prints before its ":line": the
// text after the last "(" or space (node:internal/process/task_queues,
// https://shop/x.js, Billing.java), without a URL's query or fragment,
// when it names the file the parser read (which may have normalised it:
// task_queues.js); "" otherwise.
func printedFile(before string, f grouping.Frame) string {
	p := withoutQuery(strings.TrimSpace(before[strings.LastIndexAny(before, "( ")+1:]))
	base := path.Base(f.File)
	if stem := strings.TrimSuffix(base, path.Ext(base)); p == "" || f.File == "" || !strings.Contains(p, stem) {
		return ""
	}
	return p
}

// shownFile is a frame's file as the trace prints it, its path whole
// (/srv/app/main.py, https://shop.example/static/main.3f9a1c.js) without
// a URL's query or fragment: grouping's File drops what changes between
// builds and machines (main.3f9a1c.js is main.js), the detail shows what
// was sent.
func shownFile(f grouping.Frame) string {
	if p := withoutQuery(f.Path); p != "" {
		return p
	}
	return f.File
}

// afterPath finds "path:line[:column]" (or PHP's "path(line)") in a frame's
// line or the one after it: Ruby prints "cart.rb:3:in `total'", Go the file
// on the line after the function ("\t/src/app/store.go:33 +0x1d").
func afterPath(lines []string, path string) (line, col *int) {
	if path == "" {
		return nil, nil
	}
	for _, l := range lines {
		i := strings.Index(l, path+":")
		if i < 0 {
			i = strings.Index(l, path+"(") // PHP: "/var/www/app.php(12): fn()"
		}
		if i < 0 {
			continue
		}
		rest := l[i+len(path)+1:]
		n := digits(rest)
		if n == "" {
			continue
		}
		line = atoiPtr(n)
		if rest = rest[len(n):]; strings.HasPrefix(rest, ":") {
			col = atoiPtr(digits(rest[1:]))
		}
		return line, col
	}
	return nil, nil
}

// digits is the run of ASCII digits s begins with.
func digits(s string) string {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return s[:n]
}

func atoiPtr(s string) *int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return nil
	}
	return &n
}

// eventUser is the user an event names: the attribute user.id (flat or
// nested), else a Sentry tag's tags.user.id, as the value counts, user
// counts and search read it; nil when there is none.
func eventUser(attrs map[string]string) *EventUser {
	for _, k := range [...]string{"user.id", "tags.user.id"} {
		if id := attrs[k]; id != "" {
			return &EventUser{ID: id}
		}
	}
	return nil
}

// attributeStrings reads an event's attributes as strings by flattened key
// ({"user": {"id": 7}} is "user.id" = "7"), one level deep. A flat key
// ("user.id": "a") wins over a nested one that flattens the same, whatever
// the order, as the value counts take it.
func attributeStrings(raw string) map[string]string {
	var attrs map[string]any
	out := map[string]string{}
	if json.Unmarshal([]byte(raw), &attrs) != nil {
		return out
	}
	set := func(prefix, k, v string) {
		if _, taken := out[prefix+k]; prefix == "" || !taken {
			out[prefix+k] = v
		}
	}
	var walk func(prefix string, m map[string]any, depth int)
	walk = func(prefix string, m map[string]any, depth int) {
		for k, v := range m {
			switch v := v.(type) {
			case string:
				set(prefix, k, v)
			case float64:
				set(prefix, k, strconv.FormatFloat(v, 'f', -1, 64))
			case map[string]any:
				if depth < 2 {
					walk(prefix+k+".", v, depth+1)
				}
			}
		}
	}
	walk("", attrs, 0)
	return out
}

// withoutQuery is a file's path or URL without a URL's query or fragment:
// a path that is not a URL is kept whole (a directory may be named C#).
func withoutQuery(p string) string {
	if !strings.Contains(p, "://") {
		return p
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		return p[:i]
	}
	return p
}
