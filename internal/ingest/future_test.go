package ingest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestClampFuture(t *testing.T) {
	t.Parallel()
	received := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) int64 { return received.Add(d).UnixMilli() }
	events := []Event{
		{Timestamp: at(-time.Hour)},                                                                        // the past: kept
		{Timestamp: at(MaxFuture)},                                                                         // exactly 5 minutes ahead: kept
		{Timestamp: at(MaxFuture + time.Millisecond)},                                                      // just past: clamped
		{Timestamp: at(20 * time.Minute), Attributes: []byte(`{"a":1}`)},                                   // with attributes
		{Timestamp: at(24 * time.Hour), Attributes: []byte(`{}`)},                                          // empty object
		{Timestamp: at(time.Hour), Attributes: []byte(`{"nested":{"x":[1]}} `)},                            // trailing space
		{Timestamp: at(time.Hour), SentTimestamp: "2026-11-26T13:00:00.123456+02:00"},                      // kept as the sender wrote it
		{Timestamp: at(time.Hour), SentTimestamp: "2026-11-26T11:00:00." + strings.Repeat("0", 100) + "Z"}, // too long to keep as is
	}
	ClampFuture(events, received)
	if events[0].Timestamp != at(-time.Hour) || events[1].Timestamp != at(MaxFuture) || events[0].Attributes != nil || events[1].Attributes != nil {
		t.Fatalf("timestamps within 5 minutes changed: %+v %+v", events[0], events[1])
	}
	for i, want := range map[int]string{
		2: `{"original_timestamp":"2026-11-26T10:05:00.001Z"}`,
		3: `{"a":1,"original_timestamp":"2026-11-26T10:20:00.000Z"}`,
		4: `{"original_timestamp":"2026-11-27T10:00:00.000Z"}`,
		5: `{"nested":{"x":[1]},"original_timestamp":"2026-11-26T11:00:00.000Z"}`,
		6: `{"original_timestamp":"2026-11-26T13:00:00.123456+02:00"}`,
		7: `{"original_timestamp":"2026-11-26T11:00:00.000Z"}`,
	} {
		e := events[i]
		if e.Timestamp != received.UnixMilli() || string(e.Attributes) != want || !json.Valid(e.Attributes) {
			t.Errorf("event %d = %d %s, want the receipt time and %s", i, e.Timestamp, e.Attributes, want)
		}
	}
}
