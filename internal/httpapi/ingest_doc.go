package httpapi

import (
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/problem"
)

// IngestEvent documents one event of POST /v1/ingest (spec 4.1). The route
// itself is a plain handler; these types only feed the OpenAPI document, and
// declare what internal/ingest enforces (see its limits). JSON Schema's
// maxLength counts characters: it is exact for the fields the server counts
// in characters, and an upper bound, with the byte limit in the
// description, for message and stack_trace, which it counts in bytes.
type IngestEvent struct {
	Message     string             `json:"message" minLength:"1" maxLength:"16384" doc:"Required and not empty; at most 16,384 characters (Unicode code points: 16 KiB)"`
	Level       string             `json:"level,omitempty" doc:"A level or a synonym, in any letter case: trace and debug are debug; info, information, informational, notice, log are info; warn, warning are warn; error, err are error; fatal, critical, crit, alert, emerg, emergency, panic are fatal. Default: error with a stack_trace, else info"`
	Timestamp   string             `json:"timestamp,omitempty" format:"date-time" doc:"RFC 3339 date-time with a time zone (Z or ±hh:mm; the server also takes ±hhmm and a space for T); default: time of receipt"`
	StackTrace  string             `json:"stack_trace,omitempty" maxLength:"65536" doc:"At most 65,536 characters (Unicode code points: 64 KiB)"`
	TraceID     string             `json:"trace_id,omitempty" maxLength:"128"`
	SpanID      string             `json:"span_id,omitempty" maxLength:"128"`
	Service     string             `json:"service,omitempty" maxLength:"128" doc:"Overrides the batch value; required here when the batch has none"`
	Environment string             `json:"environment,omitempty" maxLength:"64" doc:"Overrides the batch value"`
	Release     string             `json:"release,omitempty" maxLength:"64" doc:"Overrides the batch value"`
	Attributes  map[string]any     `json:"attributes,omitempty" maxProperties:"64" doc:"Up to 64 top-level keys, 16 KiB of JSON as sent and 32 levels of nesting; values of secret-looking keys are stored as [redacted]. attributes.fingerprint (string or array) sets the grouping"`
	Breadcrumbs []IngestBreadcrumb `json:"breadcrumbs,omitempty" doc:"The steps recorded before the event, oldest first; the last 100 are kept with the stored sample and shown by GET /v1/events/{event_id}. At most 1 MiB of JSON as sent"`
}

// IngestBreadcrumb documents one breadcrumb of an ingested event; every
// field is optional and may be null.
type IngestBreadcrumb struct {
	Timestamp string         `json:"timestamp,omitempty" format:"date-time" doc:"RFC 3339 date-time with a time zone, as the event's timestamp"`
	Category  string         `json:"category,omitempty" maxLength:"256" doc:"At most 256 characters, e.g. http, ui.click, navigation"`
	Level     string         `json:"level,omitempty" maxLength:"32" doc:"At most 32 characters, kept as sent"`
	Message   string         `json:"message,omitempty" maxLength:"8192" doc:"At most 8,192 characters"`
	Data      map[string]any `json:"data,omitempty" doc:"An object of at most 4 KiB of compact JSON; values of secret-looking keys are stored as [redacted]"`
}

// TransformSchema lists the level names the server accepts (ingest.LevelNames).
func (IngestEvent) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	if level := s.Properties["level"]; level != nil {
		level.Enum = nil
		for _, name := range ingest.LevelNames() {
			level.Enum = append(level.Enum, name)
		}
	}
	return s
}

// IngestRequest documents the body of POST /v1/ingest.
type IngestRequest struct {
	Events      []IngestEvent `json:"events" nullable:"false" minItems:"1" maxItems:"1000"`
	Service     string        `json:"service,omitempty" maxLength:"128" doc:"Required here or on every event"`
	Environment string        `json:"environment,omitempty" maxLength:"64"`
	Release     string        `json:"release,omitempty" maxLength:"64"`
}

// IngestAccepted is the 202 answer.
type IngestAccepted struct {
	Accepted int `json:"accepted" doc:"Events durably queued"`
}

// documentIngest adds POST /v1/ingest to the OpenAPI document.
func (s *Server) documentIngest() {
	oapi := s.api.OpenAPI()
	reg := oapi.Components.Schemas
	problemSchema := reg.Schema(reflect.TypeOf(problem.Problem{}), true, "Problem")
	documentProblemCodes(reg)
	resp := map[string]*huma.Response{
		"202": {Description: "Accepted: the batch is committed to disk and queued for processing", Content: map[string]*huma.MediaType{
			"application/json": {Schema: reg.Schema(reflect.TypeOf(IngestAccepted{}), true, "IngestAccepted")}}},
	}
	for _, st := range []int{400, 401, 413, 415, 422, 429, 500, 503} {
		resp[strconv.Itoa(st)] = &huma.Response{Description: http.StatusText(st), Content: map[string]*huma.MediaType{
			problem.ContentType: {Schema: problemSchema}}}
	}
	oapi.AddOperation(&huma.Operation{
		Method: http.MethodPost, Path: "/v1/ingest", OperationID: "ingest", Summary: "Ingest a batch of events", Tags: []string{"Ingestion"},
		Description: "Checks run in this order, the first failure wins: 401, 429, 503, 415, 413 (5 MiB on the wire, 20 MiB decompressed), 400, 422. " +
			"One invalid event rejects the whole batch; detail names the first offending field as events[<i>].<field>.\n\n" +
			"Access: a project API key (svc_live_…) as a bearer token; sessions and personal API tokens are 401.",
		Extensions: map[string]any{"x-minimum-role": "project-api-key"},
		Security:   []map[string][]string{{httpserver.SchemeAPIKey: {}}},
		Parameters: []*huma.Param{{Name: "Content-Encoding", In: "header", Description: "gzip, identity or absent", Schema: &huma.Schema{Type: huma.TypeString, Enum: []any{"gzip", "identity"}}}},
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
			"application/json": {Schema: reg.Schema(reflect.TypeOf(IngestRequest{}), true, "IngestRequest")}}},
		Responses: resp,
	})
}

// documentProblemCodes lists every code a problem's type ends with, and
// its status, in the Problem schema's type: the codes clients switch on
// (interface section 7), each explained at {docs_url}/errors/<code>.
func documentProblemCodes(reg huma.Registry) {
	p := reg.Map()["Problem"]
	if p == nil || p.Properties["type"] == nil {
		return
	}
	var b strings.Builder
	b.WriteString("{docs_url}/errors/<code>; clients switch on this. The codes, with their status: ")
	for i, c := range problem.All() {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%d)", c.Name, c.Status)
	}
	b.WriteString(".")
	p.Properties["type"].Description = b.String()
}
