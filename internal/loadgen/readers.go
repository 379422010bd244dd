package loadgen

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"
)

// readerPages are what a reader reads each round, as a dashboard shows a
// project: the first page of its error groups and of its INFO summaries.
var readerPages = []string{"/groups?limit=50", "/info-summaries?limit=50"}

// Reader is one reader's part of a run (--readers): a signed-in user whose
// dashboard reads the project's group list and INFO summaries every
// ReadEvery while the senders send, the backlog drains and the counts are
// checked.
type Reader struct {
	// Reads is the reads answered 200, whose round trips Latency sums up;
	// Failed the others (another status or a network error).
	Reads   int64   `json:"reads"`
	Failed  int64   `json:"failed"`
	Latency Latency `json:"latency_ms"`
}

// readers runs c.Readers readers until ctx ends or stop is called, and
// returns their reports.
type readers struct {
	stop func()
	wg   sync.WaitGroup
	out  []Reader
}

// startReaders starts c's readers; call stop to end them and read the
// reports. With no readers it does nothing.
func startReaders(ctx context.Context, c *Config) *readers {
	ctx, cancel := context.WithCancel(ctx)
	r := &readers{stop: cancel, out: make([]Reader, c.Readers)}
	if c.Readers == 0 {
		return r
	}
	// A client of their own: the readers' connections are not taken from
	// (nor returned to) the senders' keep-alive pool.
	client := &http.Client{Timeout: c.Timeout, Transport: &http.Transport{
		Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: c.Readers,
	}}
	base := joinURL(c.URL, "/v1/projects/"+url.PathEscape(c.Project))
	for i := range r.out {
		r.wg.Go(func() { r.out[i] = read(ctx, c, client, base) })
	}
	return r
}

// finish stops the readers and returns what each saw.
func (r *readers) finish() []Reader {
	r.stop()
	r.wg.Wait()
	if len(r.out) == 0 {
		return nil
	}
	return r.out
}

// read is one reader: each ReadEvery, the pages of readerPages in turn,
// until ctx ends.
func read(ctx context.Context, c *Config, client *http.Client, base string) Reader {
	var lat []time.Duration
	var failed int64
	t := time.NewTicker(c.ReadEvery)
	defer t.Stop()
	for {
		for _, page := range readerPages {
			start := time.Now()
			ok := readOnce(ctx, client, base+page, c.readToken())
			switch {
			case ctx.Err() != nil: // the run ended mid-read: not a failure
			case ok:
				lat = append(lat, time.Since(start))
			default:
				failed++
			}
		}
		select {
		case <-ctx.Done():
			slices.Sort(lat)
			return Reader{Reads: int64(len(lat)), Failed: failed, Latency: latencyOf(lat)}
		case <-t.C:
		}
	}
}

// readOnce reads u with token and reports whether it was answered 200
// and read to its end.
func readOnce(ctx context.Context, client *http.Client, u, token string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return err == nil && resp.StatusCode == http.StatusOK
}

// readToken is the readers' session token: ReaderToken, else Token.
func (c *Config) readToken() string {
	if c.ReaderToken != "" {
		return c.ReaderToken
	}
	return c.Token
}

// readerNote names the readers' failures, if any, for the text report.
func readerNote(rs []Reader) string {
	var failed int64
	for _, r := range rs {
		failed += r.Failed
	}
	if failed == 0 {
		return ""
	}
	return strconv.FormatInt(failed, 10) + " reads were not answered 200 (a 429 of the API's rate limit, a network error or a token that is not a member's)"
}
