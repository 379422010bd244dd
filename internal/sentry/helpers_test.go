package sentry

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/ingest"
)

// checkEvent returns why ev would not pass POST /v1/ingest's own validation
// (it is sent through ingest.Decode), or holds NUL or invalid UTF-8; "" when
// it is valid.
func checkEvent(ev ingest.Event) string {
	for _, s := range []string{ev.Service, ev.Environment, ev.Release, ev.Message, ev.StackTrace, ev.TraceID, ev.SpanID, string(ev.Attributes)} {
		if strings.IndexByte(s, 0) >= 0 || strings.Contains(s, `\u0000`) {
			return "holds NUL"
		}
		if !utf8.ValidString(s) {
			return "holds invalid UTF-8"
		}
	}
	one := map[string]any{
		"service": ev.Service, "level": ev.Level.String(), "message": ev.Message,
		"timestamp": time.UnixMilli(ev.Timestamp).UTC().Format(time.RFC3339Nano),
	}
	for k, v := range map[string]string{"environment": ev.Environment, "release": ev.Release,
		"stack_trace": ev.StackTrace, "trace_id": ev.TraceID, "span_id": ev.SpanID} {
		if v != "" {
			one[k] = v
		}
	}
	if ev.Attributes != nil {
		one["attributes"] = ev.Attributes
	}
	body, err := json.Marshal(map[string]any{"events": []any{one}})
	if err != nil {
		return err.Error()
	}
	got, err := ingest.Decode(body, time.Now())
	if err != nil {
		return err.Error()
	}
	if got[0].Timestamp != ev.Timestamp {
		return "timestamp changed on the way"
	}
	return ""
}
