package webhook

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

var errReset = errors.New("connection reset")

// errReader fails every read.
type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errReset }

func TestVerifyRequest(t *testing.T) {
	t.Parallel()
	body := []byte(vecBody)
	now := time.Now()
	signed := Sign(body, now, vecSecret)
	ts, v1, _ := strings.Cut(signed, ",")
	request := func(body io.Reader, headers ...string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/hook", body)
		for _, h := range headers {
			r.Header.Add(HeaderSignature, h)
		}
		return r
	}
	tests := []struct {
		name    string
		r       *http.Request
		max     int64
		secrets []string
		want    error
	}{
		{"good", request(bytes.NewReader(body), signed), 1 << 20, []string{vecSecret}, nil},
		{"body of exactly maxBody", request(bytes.NewReader(body), signed), int64(len(body)), []string{vecSecret}, nil},
		{"body one byte over maxBody", request(bytes.NewReader(body), signed), int64(len(body)) - 1, []string{vecSecret}, ErrBodyTooLarge},
		{"maxBody 0 is the default", request(bytes.NewReader(body), signed), 0, []string{vecSecret}, nil},
		{"body over the default", request(bytes.NewReader(make([]byte, DefaultMaxBody+1)), signed), -1, []string{vecSecret}, ErrBodyTooLarge},
		{"an earlier MaxBytesReader", func() *http.Request {
			r := request(bytes.NewReader(body), signed)
			r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, 10)
			return r
		}(), 1 << 20, []string{vecSecret}, ErrBodyTooLarge},
		{"a failing body", request(errReader{}, signed), 1 << 20, []string{vecSecret}, errReset},
		{"no header", request(bytes.NewReader(body)), 1 << 20, []string{vecSecret}, ErrMissingHeader},
		{"header split over two lines", request(bytes.NewReader(body), ts, v1), 1 << 20, []string{vecSecret}, nil},
		{"stale", request(bytes.NewReader(body), Sign(body, now.Add(-10*time.Minute), vecSecret)), 1 << 20, []string{vecSecret}, ErrTimestampOutOfRange},
		{"tampered", request(strings.NewReader(strings.Replace(vecBody, "ops", "opz", 1)), signed), 1 << 20, []string{vecSecret}, ErrSignatureMismatch},
		{"no secret", request(bytes.NewReader(body), signed), 1 << 20, nil, ErrNoSecret},
		{"nil body", func() *http.Request {
			r := request(nil, Sign(nil, now, vecSecret))
			r.Body = nil
			return r
		}(), 1 << 20, []string{vecSecret}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := VerifyRequest(tt.r, tt.max, tt.secrets...)
			if !errors.Is(err, tt.want) {
				t.Fatalf("VerifyRequest() error = %v, want %v", err, tt.want)
			}
			if err != nil && got != nil {
				t.Errorf("VerifyRequest() body = %q with an error, want nil", got)
			}
			if err == nil && tt.r.Body != nil && !bytes.Equal(got, body) {
				t.Errorf("VerifyRequest() body = %q, want %q", got, body)
			}
		})
	}
}
