package otlp

import (
	"net/http"
	"reflect"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/httpserver"
)

// The types below only feed the OpenAPI document: the handler decodes with
// pdata. They describe OTLP/JSON (the proto3 JSON mapping with lowerCamelCase
// names, hex trace and span ids, and 64-bit integers as decimal strings) as
// far as Errata reads it; every object may carry the other fields of the
// OTLP protobuf definitions.

// ExportLogsServiceRequest documents an OTLP/JSON logs export request.
type ExportLogsServiceRequest struct {
	ResourceLogs []ResourceLogs `json:"resourceLogs,omitempty" nullable:"false" doc:"One entry per resource (service); up to 64,000 records in all"`
}

// ResourceLogs documents the records of one resource.
type ResourceLogs struct {
	Resource  *Resource   `json:"resource,omitempty"`
	ScopeLogs []ScopeLogs `json:"scopeLogs,omitempty" nullable:"false"`
	SchemaURL string      `json:"schemaUrl,omitempty"`
}

// Resource documents the resource of OTLP records.
type Resource struct {
	Attributes []KeyValue `json:"attributes,omitempty" nullable:"false" doc:"service.name is the service (else unknown_service); deployment.environment.name, else deployment.environment, the environment; service.version the release. Other resource attributes are not kept"`
}

// ScopeLogs documents the records of one instrumentation scope.
type ScopeLogs struct {
	Scope      map[string]any `json:"scope,omitempty" doc:"The instrumentation scope; not kept"`
	LogRecords []LogRecord    `json:"logRecords,omitempty" nullable:"false"`
	SchemaURL  string         `json:"schemaUrl,omitempty"`
}

// LogRecord documents one OTLP log record, which becomes one event.
type LogRecord struct {
	TimeUnixNano         string     `json:"timeUnixNano,omitempty" pattern:"^[0-9]+$" doc:"Nanoseconds since the Unix epoch, as a decimal string; else observedTimeUnixNano, else the time of receipt"`
	ObservedTimeUnixNano string     `json:"observedTimeUnixNano,omitempty" pattern:"^[0-9]+$"`
	SeverityNumber       int32      `json:"severityNumber,omitempty" minimum:"0" maximum:"24" doc:"1–8 debug, 9–12 info, 13–16 warn, 17–20 error, 21–24 fatal; wins over severityText"`
	SeverityText         string     `json:"severityText,omitempty" doc:"Used when severityNumber is 0, with the level names and synonyms of POST /v1/ingest"`
	Body                 AnyValue   `json:"body,omitempty" doc:"The message: a string as it is, another value as text or JSON. When empty, the exception.message attribute, else exception.type; with neither the record is rejected (partialSuccess)"`
	Attributes           []KeyValue `json:"attributes,omitempty" nullable:"false" doc:"Become the event's attributes; exception.stacktrace becomes its stack_trace"`
	TraceID              string     `json:"traceId,omitempty" pattern:"^([0-9a-fA-F]{32})?$" doc:"32 hex digits"`
	SpanID               string     `json:"spanId,omitempty" pattern:"^([0-9a-fA-F]{16})?$" doc:"16 hex digits"`
}

// KeyValue documents one OTLP attribute.
type KeyValue struct {
	Key   string   `json:"key"`
	Value AnyValue `json:"value,omitempty"`
}

// AnyValue documents an OTLP value: an object with one of stringValue,
// boolValue, intValue, doubleValue, bytesValue, arrayValue or kvlistValue.
type AnyValue map[string]any

// Schema describes AnyValue as an open object: its members nest.
func (AnyValue) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeObject, AdditionalProperties: true,
		Description: "One of stringValue, boolValue, intValue (decimal string), doubleValue, bytesValue (base64), arrayValue {values: [AnyValue]} or kvlistValue {values: [KeyValue]}"}
}

// ExportLogsServiceResponse documents the OTLP/JSON answer to an export.
type ExportLogsServiceResponse struct {
	PartialSuccess *ExportLogsPartialSuccess `json:"partialSuccess,omitempty" doc:"Set only when records were rejected (the others were accepted); a full success leaves it out"`
}

// ExportLogsPartialSuccess documents which records an export rejected.
type ExportLogsPartialSuccess struct {
	RejectedLogRecords string `json:"rejectedLogRecords,omitempty" pattern:"^[0-9]+$" doc:"How many records were rejected, as a decimal string; absent when none"`
	ErrorMessage       string `json:"errorMessage,omitempty" doc:"Why, naming the first rejected record"`
}

// RPCStatus documents the google.rpc.Status body of a failed export.
type RPCStatus struct {
	Code    int32            `json:"code" doc:"The gRPC status code: 3 INVALID_ARGUMENT (400, 413, 415), 16 UNAUTHENTICATED (401), 8 RESOURCE_EXHAUSTED (429), 14 UNAVAILABLE (503), 13 INTERNAL (500)"`
	Message string           `json:"message,omitempty"`
	Details []map[string]any `json:"details,omitempty" nullable:"false"`
}

// specURL is the OTLP/HTTP part of the OTLP specification.
const specURL = "https://opentelemetry.io/docs/specs/otlp/#otlphttp"

// document adds POST /v1/logs to the OpenAPI document. The route is a plain
// handler (its bodies are protobuf or OTLP/JSON and its failures
// google.rpc.Status, not this API's JSON and problems), so huma cannot
// derive the operation from it.
func document(api huma.API) {
	oapi := api.OpenAPI()
	reg := oapi.Components.Schemas
	status := reg.Schema(reflect.TypeOf(RPCStatus{}), true, "")
	binary := func(what string) *huma.MediaType {
		return &huma.MediaType{Schema: &huma.Schema{Type: huma.TypeString, Description: "A protobuf-encoded " + what,
			Extensions: map[string]any{"contentMediaType": ContentTypeProtobuf}}} // OpenAPI 3.1's way to say binary
	}
	retryAfter := map[string]*huma.Param{"Retry-After": {Description: "Seconds to wait before resending", Required: true,
		Schema: &huma.Schema{Type: huma.TypeInteger, Minimum: new(float64(1))}}}
	resp := map[string]*huma.Response{
		"200": {Description: "The accepted records are committed to disk and queued for processing; partialSuccess counts the rejected ones",
			Content: map[string]*huma.MediaType{
				ContentTypeProtobuf: binary("opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse"),
				ContentTypeJSON:     {Schema: reg.Schema(reflect.TypeOf(ExportLogsServiceResponse{}), true, "")},
			}},
	}
	for st, why := range map[int]string{
		400: "The body is not a valid ExportLogsServiceRequest in its media type, or its Content-Encoding is nested (gzip, gzip)",
		401: "No valid project API key",
		413: "Over 5 MiB on the wire or 20 MiB decompressed",
		415: "Content-Type is neither application/x-protobuf nor application/json, or Content-Encoding is neither gzip nor identity",
		429: "The project's ingest rate limit was hit",
		500: "An internal error; the request can be resent",
		503: "The server is overloaded (backlog or disk) or cannot reach its database",
	} {
		r := &huma.Response{Description: why + ". The body is a google.rpc.Status in the request's encoding (JSON when the media type is not supported).",
			Content: map[string]*huma.MediaType{ContentTypeProtobuf: binary("google.rpc.Status"), ContentTypeJSON: {Schema: status}}}
		if st == http.StatusTooManyRequests || st == http.StatusServiceUnavailable {
			r.Headers = retryAfter
		}
		resp[strconv.Itoa(st)] = r
	}
	oapi.AddOperation(&huma.Operation{
		Method: http.MethodPost, Path: Path, OperationID: "export-logs", Summary: "Export OpenTelemetry logs (OTLP/HTTP)", Tags: []string{"Ingestion"},
		Description: "The OTLP/HTTP logs endpoint: point an OpenTelemetry SDK or Collector at it (docs/opentelemetry.md). " +
			"Checks run in the order of POST /v1/ingest: 401, 429, 503, 415, 413, 400. Each record becomes one event under the limits of POST /v1/ingest; " +
			"a record that breaks one is rejected in partialSuccess and the others are accepted. The same service is offered over OTLP/gRPC.\n\n" +
			"Access: a project API key (svc_live_…) as a bearer token; sessions and personal API tokens are 401.",
		Extensions:   map[string]any{"x-minimum-role": "project-api-key"},
		ExternalDocs: &huma.ExternalDocs{Description: "OTLP/HTTP in the OpenTelemetry protocol specification", URL: specURL},
		Security:     []map[string][]string{{httpserver.SchemeAPIKey: {}}},
		Parameters: []*huma.Param{{Name: "Content-Encoding", In: "header", Description: "gzip, identity or absent",
			Schema: &huma.Schema{Type: huma.TypeString, Enum: []any{"gzip", "identity"}}}},
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
			ContentTypeProtobuf: binary("opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest"),
			ContentTypeJSON:     {Schema: reg.Schema(reflect.TypeOf(ExportLogsServiceRequest{}), true, "")},
		}},
		Responses: resp,
	})
}
