package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestManagementBodyEncoding: a management body's Content-Encoding is read
// as ingestion reads it: gzip is decoded, another coding is 415
// unsupported-encoding, nested codings are 400, and a gzip header on a
// body that is not gzip is 400, never a body read as if plain.
func TestManagementBodyEncoding(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		ada := s.SignUp(t, "ada@example.com")
		var zipped bytes.Buffer
		zw := gzip.NewWriter(&zipped)
		_, _ = zw.Write([]byte(`{"name":"Zipped"}`))
		_ = zw.Close()
		plain := []byte(`{"name":"Plain"}`)
		for _, c := range []struct {
			encoding string
			body     []byte
			status   int
			code     string
		}{
			{"gzip", zipped.Bytes(), http.StatusCreated, ""},
			{"identity", plain, http.StatusCreated, ""},
			{"br", plain, http.StatusUnsupportedMediaType, "unsupported-encoding"},
			{"gzip, br", zipped.Bytes(), http.StatusUnsupportedMediaType, "unsupported-encoding"},
			{"gzip, gzip", zipped.Bytes(), http.StatusBadRequest, "malformed-body"},
			{"gzip", plain, http.StatusBadRequest, "malformed-body"},
		} {
			req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1/orgs", bytes.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Content-Encoding", c.encoding)
			req.Header.Set("Authorization", "Bearer "+ada.Token)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var answer struct{ Type, Name string }
			_ = json.Unmarshal(b, &answer)
			if res.StatusCode != c.status || (c.code != "" && !strings.HasSuffix(answer.Type, "/errors/"+c.code)) {
				t.Errorf("Content-Encoding %q: %d %s, want %d %s", c.encoding, res.StatusCode, b, c.status, c.code)
			}
			if c.encoding == "gzip" && c.status == http.StatusCreated && answer.Name != "Zipped" {
				t.Errorf("gzip body: organization %q, want the decoded body's Zipped", answer.Name)
			}
		}
		// A request without a body has nothing encoded.
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Token: ada.Token, Headers: map[string]string{"Content-Encoding": "br"}}).Expect(t, http.StatusOK, "")
	})
}
