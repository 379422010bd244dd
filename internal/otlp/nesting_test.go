package otlp_test

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/otlp"
)

// deepProto is an ExportLogsServiceRequest whose one record's body is
// arrays nested levels deep, built outside in without quadratic copying.
func deepProto(levels int) []byte {
	var heads [][]byte
	n := 0
	for range levels {
		for _, tag := range []byte{0x0a, 0x2a} { // ArrayValue.values, AnyValue.array_value
			h := binary.AppendUvarint([]byte{tag}, uint64(n))
			heads = append(heads, h)
			n += len(h)
		}
	}
	for _, tag := range []byte{0x2a, 0x12, 0x12, 0x0a} { // body, log_records, scope_logs, resource_logs
		h := binary.AppendUvarint([]byte{tag}, uint64(n))
		heads = append(heads, h)
		n += len(h)
	}
	slices.Reverse(heads)
	return slices.Concat(heads...)
}

func deepJSON(levels int) []byte {
	return []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":` +
		strings.Repeat(`{"arrayValue":{"values":[`, levels) + `{"stringValue":"x"}` + strings.Repeat(`]}}`, levels) + `}]}]}]}`)
}

func TestNestingChecks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func([]byte) error
		body  []byte
		ok    bool
	}{
		{"proto, 50 levels", otlp.CheckProto, deepProto(50), true},
		{"proto, 200 levels", otlp.CheckProto, deepProto(200), false},
		{"proto, truncated", otlp.CheckProto, deepProto(5)[:7], false},
		{"JSON, 50 levels", otlp.CheckJSON, deepJSON(50), true},
		{"JSON, 200 levels", otlp.CheckJSON, deepJSON(200), false},
		{"JSON, brackets in strings", otlp.CheckJSON, []byte(`{"a":"` + strings.Repeat(`[{\"`, 1000) + `"}`), true},
	} {
		if err := tc.check(tc.body); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// TestDeepRequestsAreRefused sends requests that would overflow pdata's
// recursive decoder and checks the server refuses them and keeps running.
func TestDeepRequestsAreRefused(t *testing.T) {
	s := apitest.Start(t, "sqlite", apitest.WithGRPC)
	w := newWorld(t, s)
	r := s.Do(apitest.Request{Method: "POST", Path: "/v1/logs", Token: w.key, Body: deepProto(500_000), // about 4.5 MiB
		Headers: map[string]string{"Content-Type": "application/x-protobuf"}})
	if r.Status != 400 || !bytes.Contains(r.Body, []byte("nested too deeply")) {
		t.Errorf("deep protobuf: %d %q, want 400 nested too deeply", r.Status, r.Body)
	}
	r = s.Do(apitest.Request{Method: "POST", Path: "/v1/logs", Token: w.key, Body: gz(t, deepJSON(500_000)),
		Headers: map[string]string{"Content-Encoding": "gzip"}})
	if r.Status != 400 || !bytes.Contains(r.Body, []byte("nested too deeply")) {
		t.Errorf("deep JSON: %d %q, want 400 nested too deeply", r.Status, r.Body)
	}
	// About 19 MiB: enough to overflow the stack of pdata's decoder.
	// Undecodable messages are the client's fault, INVALID_ARGUMENT as
	// /v1/logs answers 400 (gRPC itself says INTERNAL).
	if _, err := rawExportBytes(t, s, w.key, deepProto(2_000_000)); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("deep gRPC request: %v, want INVALID_ARGUMENT nested too deeply", err)
	}
	if _, err := rawExportBytes(t, s, w.key, []byte("\xff\xff\xff\x01\x02")); status.Code(err) != codes.InvalidArgument {
		t.Errorf("gRPC request that is not protobuf: %v, want INVALID_ARGUMENT", err)
	}
	if _, err := rawExport(t, s, w.key); err != nil {
		t.Errorf("export after the deep requests: %v", err)
	}
}
