package loadgen

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// transportBackoff is the pause before resending after a network error.
const transportBackoff = 250 * time.Millisecond

// workerStats is what one worker saw; merged into a Report at the end.
type workerStats struct {
	latencies       []time.Duration // of accepted requests
	batchesAccepted int64
	eventsAccepted  int64
	eventsGenerated int64
	eventBytes      int64 // readyBatch size of the generated events
	bytesSent       int64 // request bodies on the wire, every attempt
	bytesRaw        int64 // the same before gzip
	retries         int64
	abandoned       int64 // refused batches given up on (retries or time ran out)
	dropped         int64 // batches refused with a status not worth resending
	transportErrors int64
	status          map[int]int64 // refusals by HTTP status
}

func newWorkerStats() *workerStats { return &workerStats{status: map[int]int64{}} }

// sender sends one worker's batches.
type sender struct {
	c        *Config
	g        *Generator
	endpoint string
	st       *workerStats
	ctx      context.Context // requests: ends only on interruption
	dispatch context.Context // retry waits: ends at the deadline too
	fail     context.CancelCauseFunc
	zw       *gzip.Writer
	zbuf     bytes.Buffer
	pre      *prebuilt // nil: generate every batch
	pace     *pacer    // nil: --ignore-rate-limit
	buf      []byte    // the batch being sent, reused
}

// batch generates (or takes a prebuilt one and stamps it), encodes and
// sends batch i, resending it while the target asks to wait. It waits for
// the rate limit first; when the run ends during that wait, the batch is
// not made.
func (s *sender) batch(i int) {
	if !s.admit() {
		return
	}
	if s.pre != nil {
		e := s.pre.get(i)
		if len(e.stamps) > 0 {
			s.buf = append(s.buf[:0], e.body...)
			restamp(s.buf, e.stamps, time.Now())
			e.body = s.buf
		}
		s.st.eventsGenerated += int64(e.events)
		s.st.eventBytes += int64(e.size)
		s.resend(e)
		return
	}
	b := s.g.BatchAt(i, time.Now())
	var size int
	s.buf, size = s.c.encode(s.g, s.buf[:0], &b, nil)
	s.st.eventsGenerated += int64(len(b.Events))
	s.st.eventBytes += int64(size)
	body := s.buf
	if s.c.Gzip {
		body = s.compress(s.buf)
	}
	s.resend(readyBatch{body: body, raw: len(s.buf), events: len(b.Events)})
}

// admit waits until the server's rate limit has a token for one more
// request. It is false when the run ended first.
func (s *sender) admit() bool {
	if s.pace == nil {
		return true
	}
	wait := s.pace.reserve()
	if wait <= 0 {
		return true
	}
	if s.c.sleep(s.dispatch, wait) != nil {
		s.pace.cancel()
		return false
	}
	return true
}

// resend sends one readyBatch, resending it while the target asks to
// wait. The first attempt was admitted by the caller.
func (s *sender) resend(e readyBatch) {
	for attempt := 0; ; attempt++ {
		wait, retry := s.send(e.body, e.raw, e.events)
		if !retry {
			return
		}
		if attempt >= s.c.MaxRetries || s.c.sleep(s.dispatch, wait) != nil || !s.admit() {
			s.st.abandoned++
			return
		}
		s.st.retries++
	}
}

func (s *sender) compress(raw []byte) []byte {
	s.zbuf.Reset()
	if s.zw == nil {
		s.zw = gzip.NewWriter(&s.zbuf)
	} else {
		s.zw.Reset(&s.zbuf)
	}
	_, _ = s.zw.Write(raw) // writes to a bytes.Buffer do not fail
	_ = s.zw.Close()
	return s.zbuf.Bytes()
}

// send makes one attempt. It returns whether to resend, and after how long.
func (s *sender) send(body []byte, rawLen, events int) (time.Duration, bool) {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, s.endpoint, bytes.NewReader(body))
	if err != nil {
		if s.pace != nil {
			s.pace.cancel()
		}
		s.fail(fmt.Errorf("loadgen: build request: %w", err))
		return 0, false
	}
	for k, v := range s.c.Header {
		req.Header[k] = v
	}
	switch s.c.Target {
	case TargetErrata:
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+s.c.Key)
	case TargetSentry:
		req.Header.Set("Content-Type", "application/x-sentry-envelope")
		if s.c.SentryAuth == SentryAuthHeader {
			req.Header.Set("X-Sentry-Auth", "Sentry sentry_version=7, sentry_client=errata.loadgen/1, sentry_key="+s.c.Key)
		}
	default:
		req.Header.Set("Content-Type", s.c.ContentType)
	}
	if s.c.Gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	s.st.bytesSent += int64(len(body))
	s.st.bytesRaw += int64(rawLen)
	var ps pass
	if s.pace != nil {
		ps = s.pace.send()
	}
	t0 := time.Now()
	resp, err := s.c.Client.Do(req)
	if err != nil {
		if s.pace != nil {
			s.pace.observe(ps, nil, false)
		}
		s.st.transportErrors++
		return transportBackoff, s.ctx.Err() == nil
	}
	reply, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	lat := time.Since(t0)
	code := resp.StatusCode
	if s.pace != nil {
		s.pace.observe(ps, resp.Header, code >= 200 && code < 300)
	}
	switch {
	case code >= 200 && code < 300:
		s.st.latencies = append(s.st.latencies, lat)
		s.st.batchesAccepted++
		s.st.eventsAccepted += int64(accepted(s.c.Target, reply, events))
		return 0, false
	case code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable:
		s.st.status[code]++
		return retryAfter(resp.Header.Get("Retry-After"), time.Now()), true
	case code == http.StatusUnauthorized || code == http.StatusForbidden || code == http.StatusNotFound:
		s.st.status[code]++
		s.fail(fmt.Errorf("loadgen: %s answered %d %s: check --url and --key", s.endpoint, code, http.StatusText(code)))
		return 0, false
	default:
		s.st.status[code]++
		s.st.dropped++
		return 0, false
	}
}

// accepted is the event count a 2xx answer reports: Errata's
// {"accepted": N}, or every event sent for other targets.
func accepted(target string, reply []byte, sent int) int {
	if target != TargetErrata {
		return sent
	}
	var v struct {
		Accepted *int `json:"accepted"`
	}
	if json.Unmarshal(reply, &v) != nil || v.Accepted == nil {
		return sent
	}
	return *v.Accepted
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date. A
// missing or unreadable one means one second, as Errata's minimum.
func retryAfter(h string, now time.Time) time.Duration {
	if h == "" {
		return time.Second
	}
	if n, err := strconv.Atoi(h); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(0, t.Sub(now))
	}
	return time.Second
}
