package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/ingest"
)

// ingestWorld is a server with a project and an API key.
func ingestWorld(t *testing.T, s *apitest.Server) (owner apitest.Actor, projectID, keyID, key string) {
	t.Helper()
	owner = s.SignUp(t, "owner@example.com")
	org := s.CreateOrg(t, owner.Token, "Acme")
	projectID = s.CreateProject(t, owner.Token, org, "web")
	keyID, key = s.CreateKey(t, owner.Token, projectID)
	return owner, projectID, keyID, key
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func ingestReq(key string, body any, headers map[string]string) apitest.Request {
	return apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: body, Headers: headers}
}

func TestIngestAcceptsAndQueuesDurably(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		_, prj, _, key := ingestWorld(t, s)
		body := `{"service":"api","environment":"prod","events":[
			{"message":"user 42 signed in","level":"INFO","attributes":{"password":"hunter2","region":"eu"}},
			{"message":"boom","stack_trace":"panic: boom","service":"worker","timestamp":"2026-11-22T08:00:00.5+01:00"}]}`
		r := s.Do(ingestReq(key, body, nil)).Expect(t, http.StatusAccepted, "")
		if r.JSON(t)["accepted"] != float64(2) {
			t.Fatalf("answer = %s, want accepted 2", r.Body)
		}
		for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
			if r.Header.Get(h) == "" {
				t.Errorf("202 without %s", h)
			}
		}
		s.Do(ingestReq(key, gz(t, []byte(`{"service":"api","events":[{"message":"zipped"}]}`)), map[string]string{"Content-Encoding": "gzip"})).
			Expect(t, http.StatusAccepted, "")
		batches, err := s.App.DB.Read().ListBatches(context.Background(), prj)
		if err != nil || len(batches) != 2 {
			t.Fatalf("queued batches = %d, %v; want 2", len(batches), err)
		}
		events, err := ingest.DecodePayload(batches[0].Payload)
		if err != nil {
			t.Fatal(err)
		}
		if events[0].Level != ingest.Info || events[0].Service != "api" || events[0].Environment != "prod" {
			t.Errorf("event 0 = %+v, want info from service api in prod", events[0])
		}
		if strings.Contains(string(events[0].Attributes), "hunter2") {
			t.Errorf("attributes stored a secret: %s", events[0].Attributes)
		}
		if events[1].Level != ingest.Error || events[1].Service != "worker" || events[1].Timestamp != 1_795_330_800_500 {
			t.Errorf("event 1 = %+v, want error from worker at 2026-11-22T07:00:00.500Z", events[1])
		}
		if events[0].Timestamp != batches[0].ReceivedAt.UnixMilli() {
			t.Errorf("default timestamp = %d, want the receipt time %d", events[0].Timestamp, batches[0].ReceivedAt.UnixMilli())
		}
		m := string(s.Do(apitest.Request{Method: "GET", Path: "/metrics"}).Body)
		if !strings.Contains(m, `errata_ingest_accepted_events_total{route="ingest"} 3`) {
			t.Errorf("metrics do not count 3 accepted events:\n%s", grepLines(m, "errata_ingest"))
		}
	})
}

// TestIngestStoresPayloadsCompressed: the queue holds a batch compressed
// (ingest.CompressPayload), and what the worker decodes is what was sent.
func TestIngestStoresPayloadsCompressed(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		_, prj, _, key := ingestWorld(t, s)
		var b strings.Builder
		b.WriteString(`{"service":"checkout","events":[`)
		for i := 0; i < 1000; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"message":"GET /api/orders/%d answered 200 in 35ms","level":"info","attributes":{"region":"eu-west-1","http.method":"GET"}}`, i)
		}
		b.WriteString(`]}`)
		s.Do(ingestReq(key, b.String(), nil)).Expect(t, http.StatusAccepted, "")
		batches, err := s.App.DB.Read().ListBatches(context.Background(), prj)
		if err != nil || len(batches) != 1 {
			t.Fatalf("queued batches = %d, %v; want 1", len(batches), err)
		}
		if n := len(batches[0].Payload); n > b.Len()/3 {
			t.Errorf("stored payload is %d bytes for a %d-byte body of repetitive events: want it compressed to under a third", n, b.Len())
		}
		events, err := ingest.DecodePayload(batches[0].Payload)
		if err != nil || len(events) != 1000 {
			t.Fatalf("decoded %d events, %v; want 1000", len(events), err)
		}
		if events[999].Message != "GET /api/orders/999 answered 200 in 35ms" || events[999].Service != "checkout" {
			t.Errorf("event 999 = %+v", events[999])
		}
	})
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestIngestRefusals(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		owner, _, keyID, key := ingestWorld(t, s)
		ok := `{"service":"api","events":[{"message":"m"}]}`
		bomb := gz(t, bytes.Repeat([]byte(" "), 21<<20))
		for _, tc := range []struct {
			name    string
			key     string
			body    any
			headers map[string]string
			status  int
			code    string
		}{
			{"no credential", "", ok, nil, 401, "unauthorized"},
			{"session token", owner.Token, ok, nil, 401, "unauthorized"},
			{"unknown key", "svc_live_01m8000000000000000000000a_secret", ok, nil, 401, "unauthorized"},
			{"wrong secret", key + "x", ok, nil, 401, "unauthorized"},
			{"malformed key", "svc_live_nope", ok, nil, 401, "unauthorized"},
			{"text/plain", key, ok, map[string]string{"Content-Type": "text/plain"}, 415, "unsupported-media-type"},
			{"charset allowed", key, ok, map[string]string{"Content-Type": "application/json; charset=utf-8"}, 202, ""},
			{"brotli", key, ok, map[string]string{"Content-Encoding": "br"}, 415, "unsupported-encoding"},
			{"identity", key, ok, map[string]string{"Content-Encoding": "identity"}, 202, ""},
			{"x-gzip is gzip", key, gz(t, []byte(ok)), map[string]string{"Content-Encoding": "x-gzip"}, 202, ""},
			{"media type before encoding", key, ok, map[string]string{"Content-Type": "text/plain", "Content-Encoding": "br"}, 415, "unsupported-media-type"},
			{"over 5 MiB", key, `{"events":[],"pad":"` + strings.Repeat("a", 5<<20) + `"}`, nil, 413, "payload-too-large"},
			{"gzip bomb", key, bomb, map[string]string{"Content-Encoding": "gzip"}, 413, "payload-too-large"},
			{"not gzip", key, ok, map[string]string{"Content-Encoding": "gzip"}, 400, "malformed-body"},
			{"nested", key, ok, map[string]string{"Content-Encoding": "gzip, gzip"}, 400, "malformed-body"},
			// 415 before 400 and 413 before 400 (CONTRACT 6), nested or not.
			{"nested, one unsupported", key, ok, map[string]string{"Content-Encoding": "gzip, zstd"}, 415, "unsupported-encoding"},
			{"nested over 5 MiB", key, `{"events":[],"pad":"` + strings.Repeat("a", 5<<20) + `"}`, map[string]string{"Content-Encoding": "gzip, gzip"}, 413, "payload-too-large"},
			{"bad JSON", key, `{"events":[`, nil, 400, "malformed-body"},
			{"invalid UTF-8", key, "{\"service\":\"a\xff\",\"events\":[{\"message\":\"m\"}]}", nil, 400, "malformed-body"},
			{"no events", key, `{"service":"api","events":[]}`, nil, 422, "validation-failed"},
			{"no service", key, `{"events":[{"message":"m"}]}`, nil, 422, "validation-failed"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.Do(ingestReq(tc.key, tc.body, tc.headers)).Expect(t, tc.status, tc.code)
				if r.Header.Get("RateLimit-Limit") == "" {
					t.Errorf("%d answer without RateLimit-* headers", r.Status)
				}
			})
		}
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/keys/" + keyID, Token: owner.Token}).Expect(t, http.StatusNoContent, "")
		s.Do(ingestReq(key, ok, nil)).Expect(t, http.StatusUnauthorized, "unauthorized")
	})
}

func TestIngestRateLimitAndBackPressure(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		_, _, _, key := ingestWorld(t, s)
		ok := `{"service":"api","events":[{"message":"m"}]}`
		s.Do(ingestReq(key, ok, nil)).Expect(t, http.StatusAccepted, "")
		s.Do(ingestReq(key, ok, nil)).Expect(t, http.StatusAccepted, "")
		r := s.Do(ingestReq(key, ok, nil)).Expect(t, http.StatusTooManyRequests, "rate-limited")
		if r.Header.Get("Retry-After") == "" || r.Header.Get("RateLimit-Remaining") != "0" {
			t.Fatalf("429 headers = %v", r.Header)
		}
		// A 429 wins over a bad body (CONTRACT 6 check order).
		s.Do(ingestReq(key, `{`, nil)).Expect(t, http.StatusTooManyRequests, "rate-limited")
		m := string(s.Do(apitest.Request{Method: "GET", Path: "/metrics"}).Body)
		if !strings.Contains(m, `errata_ingest_refused_requests_total{reason="rate_limited",route="ingest"} 2`) {
			t.Errorf("refusals not counted:\n%s", grepLines(m, "refused"))
		}
	}, func(c *config.Serve) { c.IngestRateLimit, c.IngestRateBurst = 0.0001, 2 })

	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		_, _, _, key := ingestWorld(t, s)
		ok := `{"service":"api","events":[{"message":"m"}]}`
		s.Do(ingestReq(key, ok, nil)).Expect(t, http.StatusAccepted, "")
		r := s.Do(ingestReq(key, ok, nil)).Expect(t, http.StatusServiceUnavailable, "overloaded")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("503 without Retry-After")
		}
	}, func(c *config.Serve) { c.MaxBacklogBytes = 10 })
}
