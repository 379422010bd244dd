package sentryhttp

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWriteDetail checks Sentry's failure shape and that a long detail is
// cut at a character boundary, still valid JSON.
func TestWriteDetail(t *testing.T) {
	t.Parallel()
	for _, detail := range []string{"short", strings.Repeat("é", 400), strings.Repeat("x", 299) + "\"quoted\"\n"} {
		rec := httptest.NewRecorder()
		writeDetail(rec, 400, detail)
		var got struct{ Detail string }
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("%q: body %s: %v", detail, rec.Body, err)
		}
		if rec.Code != 400 || rec.Header().Get("Content-Type") != "application/json" || !utf8.ValidString(got.Detail) || len(got.Detail) > maxDetail+len("…") {
			t.Errorf("%q: %d %q, detail %q", detail, rec.Code, rec.Header().Get("Content-Type"), got.Detail)
		}
		if len(detail) <= maxDetail && got.Detail != detail {
			t.Errorf("detail %q came back as %q", detail, got.Detail)
		}
	}
}
