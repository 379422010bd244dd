package httpapi

import (
	"net/http"
	"reflect"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/problem"
)

// IngestEvent documents one event of POST /v1/ingest (spec 4.1). The route
// itself is a plain handler; these types only feed the OpenAPI document.
type IngestEvent struct {
	Message     string         `json:"message" minLength:"1" maxLength:"16384" doc:"Required; up to 16 KiB"`
	Level       string         `json:"level,omitempty" doc:"debug, info, warn, error, fatal or a synonym (trace; information, informational, notice, log; warning; err; critical, crit, alert, emerg, emergency, panic). Default: error with a stack_trace, else info"`
	Timestamp   string         `json:"timestamp,omitempty" format:"date-time" doc:"ISO 8601 date-time with a zone; default: time of receipt"`
	StackTrace  string         `json:"stack_trace,omitempty" maxLength:"65536"`
	TraceID     string         `json:"trace_id,omitempty"`
	SpanID      string         `json:"span_id,omitempty"`
	Service     string         `json:"service,omitempty" maxLength:"128" doc:"Overrides the batch value"`
	Environment string         `json:"environment,omitempty" maxLength:"64" doc:"Overrides the batch value"`
	Release     string         `json:"release,omitempty" maxLength:"64" doc:"Overrides the batch value"`
	Attributes  map[string]any `json:"attributes,omitempty" doc:"Up to 64 keys and 16 KiB encoded; values of secret-looking keys are stored as [redacted]. attributes.fingerprint (string or array) sets the grouping"`
}

// IngestRequest documents the body of POST /v1/ingest.
type IngestRequest struct {
	Events      []IngestEvent `json:"events" minItems:"1" maxItems:"1000"`
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
			"One invalid event rejects the whole batch; detail names the first offending field as events[<i>].<field>.",
		Security:   []map[string][]string{{schemeAPIKey: {}}},
		Parameters: []*huma.Param{{Name: "Content-Encoding", In: "header", Description: "gzip, identity or absent", Schema: &huma.Schema{Type: huma.TypeString, Enum: []any{"gzip", "identity"}}}},
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
			"application/json": {Schema: reg.Schema(reflect.TypeOf(IngestRequest{}), true, "IngestRequest")}}},
		Responses: resp,
	})
}
