package loadgen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// BacklogMetric is the gauge of accepted-but-unprocessed events in Errata's
// GET /metrics.
const BacklogMetric = "errata_ingest_backlog_events"

// waitDrain polls <URL>/metrics until the backlog is empty or
// c.DrainTimeout passes. Network errors are retried until then (a busy
// server may be slow to answer); a /metrics without the gauge is an error.
func waitDrain(ctx context.Context, c *Config, start time.Time, accepted int64) (*Drain, error) {
	sent := time.Now()
	ctx, cancel := context.WithTimeout(ctx, c.DrainTimeout)
	defer cancel()
	d := &Drain{LastBacklog: -1}
	var lastErr error
	for {
		v, err := backlog(ctx, c.Client, joinURL(c.URL, "/metrics"))
		switch {
		case err == nil:
			d.LastBacklog = v
			if v <= 0 {
				now := time.Now()
				d.Drained = true
				d.Seconds = now.Sub(sent).Seconds()
				d.EndToEndEventsPerSecond = float64(accepted) / now.Sub(start).Seconds()
				return d, nil
			}
		case errors.Is(err, errNoMetric):
			return d, err
		default:
			lastErr = err
		}
		if c.sleep(ctx, c.DrainPoll) != nil {
			d.Seconds = time.Since(sent).Seconds()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				if lastErr != nil && d.LastBacklog < 0 {
					return d, fmt.Errorf("loadgen: metrics unreadable for %s: %w", c.DrainTimeout, lastErr)
				}
				return d, fmt.Errorf("loadgen: backlog still %.0f events after %s", d.LastBacklog, c.DrainTimeout)
			}
			return d, ctx.Err()
		}
	}
}

var errNoMetric = errors.New("loadgen: metric not in /metrics")

// backlog reads the backlog gauge of Errata's /metrics at url.
func backlog(ctx context.Context, client *http.Client, url string) (float64, error) {
	return scrape(ctx, client, url, BacklogMetric)
}

// scrape reads the gauge name from the Prometheus text exposition at url,
// summing its series if it has labels.
func scrape(ctx context.Context, client *http.Client, url, name string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		if resp.StatusCode == http.StatusNotFound {
			return 0, fmt.Errorf("%w (GET %s: 404)", errNoMetric, url)
		}
		return 0, fmt.Errorf("loadgen: GET %s: %s", url, resp.Status)
	}
	v, err := parseGauge(resp.Body, name)
	if errors.Is(err, errNoMetric) {
		return 0, fmt.Errorf("loadgen: no %s in %s: %w", name, url, err)
	}
	return v, err
}

// parseGauge finds name in a Prometheus text exposition.
func parseGauge(r io.Reader, name string) (float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var sum float64
	found := false
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, name)
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		if rest[0] == '{' {
			i := strings.LastIndexByte(rest, '}')
			if i < 0 {
				continue
			}
			rest = rest[i+1:]
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return 0, fmt.Errorf("loadgen: %s: bad value %q", name, f[0])
		}
		sum += v
		found = true
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if !found {
		return 0, errNoMetric
	}
	return sum, nil
}
