package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/otlp"
	"github.com/errata-dev/errata/internal/store"
)

// kin-openapi decodes a body before it validates it, and knows no decoder
// for protobuf: the document describes protobuf bodies as strings of that
// media type, which is what this decoder hands over. otlpFlow decodes them.
func init() {
	openapi3filter.RegisterBodyDecoder(otlp.ContentTypeProtobuf,
		func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
			b, err := io.ReadAll(body)
			return string(b), err
		})
}

// otlpLogs returns records with these bodies from one service.
func otlpLogs(bodies ...string) plog.Logs {
	logs := plog.NewLogs()
	rl := logs.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "checkout")
	sl := rl.ScopeLogs().AppendEmpty()
	for _, b := range bodies {
		r := sl.LogRecords().AppendEmpty()
		r.SetSeverityNumber(plog.SeverityNumberError)
		r.Body().SetStr(b)
	}
	return logs
}

// otlpFlow sends POST /v1/logs the answers the document describes, in both
// encodings, and validates each against it.
func otlpFlow(t *testing.T, c *contract, key string) {
	t.Helper()
	send := func(ct string, body []byte, token string, status int) *apitest.Response {
		t.Helper()
		return c.call(t, apitest.Request{Method: "POST", Path: otlp.Path, Token: token, Body: body,
			Headers: map[string]string{"Content-Type": ct}}, status, "")
	}
	req := plogotlp.NewExportRequestFromLogs(otlpLogs("card declined", ""))
	asJSON, err := req.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	asProto, err := req.MarshalProto()
	if err != nil {
		t.Fatal(err)
	}

	// 200 with partialSuccess: the empty record is rejected, the other kept.
	for _, x := range []struct {
		ct   string
		body []byte
	}{{otlp.ContentTypeJSON, asJSON}, {otlp.ContentTypeProtobuf, asProto}} {
		res := send(x.ct, x.body, key, http.StatusOK)
		got := plogotlp.NewExportResponse()
		if x.ct == otlp.ContentTypeJSON {
			err = got.UnmarshalJSON(res.Body)
		} else {
			err = got.UnmarshalProto(res.Body)
		}
		if err != nil || got.PartialSuccess().RejectedLogRecords() != 1 {
			t.Errorf("%s export = %v %s, want 1 rejected record", x.ct, err, res.Body)
		}
	}

	// Failures: a google.rpc.Status in the request's encoding.
	status := func(res *apitest.Response, want codes.Code) {
		t.Helper()
		var st spb.Status
		if err := proto.Unmarshal(res.Body, &st); err != nil || codes.Code(st.Code) != want || st.Message == "" {
			t.Errorf("%d answer = %v %v, want a google.rpc.Status %v with a message", res.Status, &st, err, want)
		}
	}
	status(send(otlp.ContentTypeProtobuf, asProto, "svc_live_nope_nope", http.StatusUnauthorized), codes.Unauthenticated)
	status(send(otlp.ContentTypeProtobuf, []byte{0xff, 0xff}, key, http.StatusBadRequest), codes.InvalidArgument)
	if res := send("text/plain", asJSON, key, http.StatusUnsupportedMediaType); res.JSON(t)["code"] != float64(codes.InvalidArgument) {
		t.Errorf("415 answer = %s, want a JSON google.rpc.Status INVALID_ARGUMENT", res.Body)
	}
	if res := send(otlp.ContentTypeJSON, []byte(`{"resourceLogs":`), key, http.StatusBadRequest); res.JSON(t)["code"] != float64(codes.InvalidArgument) {
		t.Errorf("400 answer = %s, want a JSON google.rpc.Status INVALID_ARGUMENT", res.Body)
	}
	big := []byte(`{"resourceLogs":[],"pad":"` + strings.Repeat("x", 5<<20) + `"}`)
	send(otlp.ContentTypeJSON, big, key, http.StatusRequestEntityTooLarge)
}

// TestOpenAPIOTLPRateLimited validates a 429 answer of POST /v1/logs, with
// its Retry-After.
func TestOpenAPIOTLPRateLimited(t *testing.T) {
	s := apitest.Start(t, store.SQLite, func(c *config.Serve) { c.IngestRateLimit, c.IngestRateBurst = 0.001, 1 })
	c := loadContract(t, s)
	tok := s.SignUp(t, "a@example.com").Token
	_, key := s.CreateKey(t, tok, s.CreateProject(t, tok, s.CreateOrg(t, tok, "Acme"), "web"))
	body, err := plogotlp.NewExportRequestFromLogs(otlpLogs("boom")).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	req := apitest.Request{Method: "POST", Path: otlp.Path, Token: key, Body: body}
	c.call(t, req, http.StatusOK, "")
	res := c.call(t, req, http.StatusTooManyRequests, "")
	if res.Header.Get("Retry-After") == "" || res.JSON(t)["code"] != float64(codes.ResourceExhausted) {
		t.Errorf("429 = %v %s, want Retry-After and RESOURCE_EXHAUSTED", res.Header, res.Body)
	}
}
