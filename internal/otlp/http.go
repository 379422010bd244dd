package otlp

import (
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/problem"
)

// Media types of OTLP/HTTP. Answers carry exactly these: the Go SDK reads
// partial_success only when the Content-Type is exactly application/x-protobuf.
const (
	ContentTypeProtobuf = "application/x-protobuf"
	ContentTypeJSON     = "application/json"
)

// Path is the OTLP/HTTP logs route.
const Path = "/v1/logs"

// Handler serves POST /v1/logs.
type Handler struct {
	intake *intake.Intake
	log    *slog.Logger
}

// Mount serves POST /v1/logs on srv through in, with the per-project
// rate limit of ingestion instead of the per-caller one, and adds it to
// the OpenAPI document.
func Mount(srv *httpserver.Server, in *intake.Intake, log *slog.Logger) {
	srv.Mux().Handle("POST "+Path, &Handler{intake: in, log: log})
	srv.ExemptFromCallerLimit(Path)
	document(srv.API())
}

// ServeHTTP checks, in the order of POST /v1/ingest, the credential, the rate
// limit and back-pressure (401, 429, 503), the media type and encoding
// (415), the size (413) and the encoding of the body (400), then maps the
// records and commits those it accepts before answering 200 (with
// partial_success when records were rejected). Failures carry a
// google.rpc.Status in the request's encoding (JSON when the media type is
// unsupported); 429 and 503 carry Retry-After; every answer carries the
// RateLimit-* headers.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	in := h.intake
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	isJSON := err == nil && mt == ContentTypeJSON
	supported := isJSON || (err == nil && mt == ContentTypeProtobuf)
	fail := func(f failure) { writeStatus(w, isJSON || !supported, f) }
	refuse := func(reason string, f failure) {
		in.Refuse(RouteHTTP, reason)
		fail(f)
	}
	failWith := func(err error) {
		f := classify(r.Context(), h.log, err)
		if f.retryAfter > 0 && w.Header().Get("Retry-After") == "" {
			w.Header().Set("Retry-After", strconv.Itoa(int((f.retryAfter+time.Second-1)/time.Second)))
		}
		fail(f)
	}

	p, err := in.AdmitHTTP(w, r, RouteHTTP, httpserver.Bearer(r))
	if err != nil {
		failWith(err)
		return
	}
	if !supported {
		refuse(metrics.RefusedMediaType, failure{status: http.StatusUnsupportedMediaType, code: codes.InvalidArgument,
			message: "Content-Type must be application/x-protobuf or application/json"})
		return
	}
	gzipped, pr := intake.Encoding(r)
	if pr != nil {
		refuse(metrics.RefusedEncoding, failure{status: pr.Status, code: codes.InvalidArgument, message: pr.Detail})
		return
	}
	received := in.Received()
	body, reason, pr := in.ReadBody(r.Context(), r, p.OrgID, gzipped)
	if pr == nil {
		defer body.Release()
		// pdata's decoded records take several times the protobuf's bytes.
		reason, pr = body.Reserve(r.Context(), decodeReserve(len(body.Bytes)))
	}
	if pr != nil {
		in.Refuse(RouteHTTP, reason)
		failWith(pr)
		return
	}
	req, err := decodeRequest(body.Bytes, isJSON)
	if err != nil {
		refuse(metrics.RefusedMalformed, failure{status: http.StatusBadRequest, code: codes.InvalidArgument, message: err.Error()})
		return
	}
	resp, rl, err := export(r.Context(), in, RouteHTTP, p, req, received)
	if rl != nil { // the records took more of the bucket than the admission
		rl.SetHeaders(w.Header())
	}
	if err != nil {
		failWith(err)
		return
	}
	out, err := marshalResponse(resp, isJSON)
	if err != nil {
		failWith(err)
		return
	}
	w.Header().Set("Content-Type", contentType(isJSON))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// decodeRequest decodes an ExportLogsServiceRequest from OTLP/JSON or
// protobuf, after the checks of its nesting; the error says which.
func decodeRequest(b []byte, isJSON bool) (plogotlp.ExportRequest, error) {
	req := plogotlp.NewExportRequest()
	var err error
	if isJSON {
		if err = checkJSON(b); err == nil {
			err = req.UnmarshalJSON(b)
		}
	} else if err = checkProto(b); err == nil {
		err = req.UnmarshalProto(b)
	}
	if err != nil {
		kind := "protobuf"
		if isJSON {
			kind = "OTLP/JSON"
		}
		return req, fmt.Errorf("the body is not a valid %s ExportLogsServiceRequest: %w", kind, err)
	}
	return req, nil
}

// writeStatus answers f with a google.rpc.Status body.
func writeStatus(w http.ResponseWriter, isJSON bool, f failure) {
	// A decoder's message may quote the body's bytes: a Status's message
	// must be valid UTF-8, or it is not encoded at all (an empty body).
	st := &spb.Status{Code: int32(f.code), Message: strings.ToValidUTF8(f.message, "\uFFFD")}
	var out []byte
	if isJSON {
		out, _ = protojson.Marshal(st)
	} else {
		out, _ = proto.Marshal(st)
	}
	w.Header().Set("Content-Type", contentType(isJSON))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if f.status == http.StatusUnauthorized { // RFC 9110 (15.5.2), as every /v1 401
		w.Header().Set("WWW-Authenticate", problem.Challenge)
	}
	w.WriteHeader(f.status)
	_, _ = w.Write(out)
}

func contentType(isJSON bool) string {
	if isJSON {
		return ContentTypeJSON
	}
	return ContentTypeProtobuf
}
