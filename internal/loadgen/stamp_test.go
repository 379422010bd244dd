package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestAppendStamp(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	times := []time.Time{time.Date(2026, 12, 31, 23, 59, 59, 999_999_999, time.UTC), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 1, 12, 0, 0, 1_000_000, time.FixedZone("CET", 3600))}
	for range 2000 {
		times = append(times, time.Unix(r.Int64N(4_102_444_800), r.Int64N(1e9)))
	}
	for _, tm := range times {
		want := tm.UTC().Format("2006-01-02T15:04:05.000Z")
		if got := string(appendStamp(nil, tm)); got != want {
			t.Fatalf("appendStamp(%v) = %q, want %q", tm, got, want)
		}
	}
}

// TestRestamp: a prebuilt body stamped again in place carries every event
// at the new time less its offset, and stays the spec's JSON.
func TestRestamp(t *testing.T) {
	t.Parallel()
	g := newTestGenerator(t, func(o *Options) { o.BatchSize = 300 })
	b := g.BatchAt(3, testStart)
	var stamps []stamp
	body, _ := encodeBatch(nil, &b, &stamps)
	if len(stamps) != len(b.Events) {
		t.Fatalf("%d stamps noted for %d events", len(stamps), len(b.Events))
	}
	later := testStart.Add(7*time.Hour + 123456789*time.Nanosecond)
	restamp(body, stamps, later)
	checkBatch(t, body)
	var got struct{ Events []struct{ Timestamp string } }
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	for i, ev := range got.Events {
		want := later.Add(-b.Events[i].ago).UTC().Format("2006-01-02T15:04:05.000Z")
		if ev.Timestamp != want {
			t.Fatalf("event %d stamped %s, want %s", i, ev.Timestamp, want)
		}
	}
	if last := got.Events[len(got.Events)-1].Timestamp; last != "2026-03-01T19:00:00.123Z" {
		t.Errorf("the last event is stamped %s, want the send time", last)
	}
}

// stampsIn finds every timestamp and sent_at in a body, whatever its format.
func stampsIn(t *testing.T, body []byte) []time.Time {
	t.Helper()
	var out []time.Time
	for _, key := range []string{`"timestamp":"`, `"sent_at":"`} {
		rest := body
		for {
			i := bytes.Index(rest, []byte(key))
			if i < 0 {
				break
			}
			rest = rest[i+len(key):]
			end := bytes.IndexByte(rest, '"')
			ts, err := time.Parse(time.RFC3339Nano, string(rest[:end]))
			if err != nil {
				t.Fatalf("timestamp %q: %v", rest[:end], err)
			}
			out = append(out, ts)
		}
	}
	return out
}

// TestRunStampsSendTime: whatever the target and whether batches are
// generated as they go or prebuilt, every event carries the time it is
// sent: none is stamped after its request arrived, each request's newest
// event is no older than the previous request's arrival (one sender, so
// the previous one was answered before this one was made), and a batch
// spans at most two seconds. Prebuilt gzip bodies carry no timestamp at
// all: the server stamps the time of receipt.
func TestRunStampsSendTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		target   string
		distinct int
		gzip     bool
	}{
		{TargetErrata, 0, false}, {TargetErrata, 2, false}, {TargetErrata, 2, true},
		{TargetJSONL, 2, false}, {TargetJSONL, 0, true}, {TargetSentry, 2, false}, {TargetSentry, 0, false},
	} {
		t.Run(fmt.Sprintf("%s/distinct=%d/gzip=%v", tc.target, tc.distinct, tc.gzip), func(t *testing.T) {
			t.Parallel()
			key := "svc_live_k"
			if tc.target != TargetErrata {
				key = "" // not sent as a bearer token
			}
			tg, srv := newTarget(t, key, func(int) int { return 0 })
			// Answers take 2 ms, so that each request is made at least a
			// millisecond (the timestamps' resolution) after the last.
			tg.delay = 2 * time.Millisecond
			c := Config{Target: tc.target, URL: srv.URL, Key: "svc_live_k", Gzip: tc.gzip, Concurrency: 1, Batches: 6, Distinct: tc.distinct}
			switch tc.target {
			case TargetJSONL:
				c.URL = srv.URL + "/insert/jsonline"
			case TargetSentry:
				c.URL, c.Key = "", ""
				c.DSN = "http://svc_live_k@" + strings.TrimPrefix(srv.URL, "http://") + "/1"
			}
			size := 40
			if tc.target == TargetSentry {
				size = 1
			}
			rep, err := Run(context.Background(), c, smallGenerator(t, size))
			if err != nil || rep.BatchesAccepted != 6 {
				t.Fatalf("Run: %v, %+v", err, rep)
			}
			tg.mu.Lock()
			defer tg.mu.Unlock()
			var previous time.Time
			for k, body := range tg.bodies {
				stamps := stampsIn(t, body)
				if tc.gzip && tc.distinct > 0 {
					if len(stamps) > 0 {
						t.Fatalf("request %d: a prebuilt gzip body carries %d timestamps, want none", k, len(stamps))
					}
					continue
				}
				if len(stamps) < size {
					t.Fatalf("request %d: %d timestamps for %d events", k, len(stamps), size)
				}
				arrived := tg.received[k]
				newest, oldest := stamps[0], stamps[0]
				for _, ts := range stamps {
					if ts.After(arrived) {
						t.Errorf("request %d: an event stamped %s, after the request arrived at %s", k, ts.Format(time.RFC3339Nano), arrived.Format(time.RFC3339Nano))
					}
					newest, oldest = later(newest, ts), earlier(oldest, ts)
				}
				if newest.Before(previous.Truncate(time.Millisecond)) {
					t.Errorf("request %d: newest event stamped %s, before the previous request arrived at %s", k, newest.Format(time.RFC3339Nano), previous.Format(time.RFC3339Nano))
				}
				if newest.Sub(oldest) > 2*time.Second {
					t.Errorf("request %d: events span %s, want at most 2s", k, newest.Sub(oldest))
				}
				previous = arrived
			}
		})
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
