package intake

import (
	"bytes"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/ingest"
)

// TestFillPayloadSplitsLargeBatches: a batch whose payload would pass the
// cap is split into smaller batches, each under it, and every event lands
// in exactly one of them, in order.
func TestFillPayloadSplitsLargeBatches(t *testing.T) {
	events := make([]ingest.Event, 1000)
	for i := range events {
		events[i] = ingest.Event{Service: "api", Level: ingest.Error, Message: strings.Repeat("x", 1000) + string(rune('a'+i%26))}
	}
	const max = 100_000 // about 97 events
	var plain []byte
	var got []ingest.Event
	batches := 0
	for rest := events; len(rest) > 0; batches++ {
		n := fillPayload(&plain, rest, max)
		if len(plain) > max {
			t.Fatalf("batch %d: payload of %d bytes, over the cap %d", batches, len(plain), max)
		}
		decoded, err := ingest.DecodePayload(bytes.Clone(plain)) // its strings alias the buffer
		if err != nil || len(decoded) != n {
			t.Fatalf("batch %d: decoded %d events, %v; want %d", batches, len(decoded), err, n)
		}
		got = append(got, decoded...)
		rest = rest[n:]
	}
	if len(got) != len(events) || batches < 10 {
		t.Fatalf("%d events in %d batches, want all %d in at least 10", len(got), batches, len(events))
	}
	for i := range got {
		if got[i].Message != events[i].Message {
			t.Fatalf("event %d out of order", i)
		}
	}
	// Under the cap, a batch takes up to ingest.MaxEvents events at once.
	if n := fillPayload(&plain, events, ingest.MaxPayloadBytes); n != 1000 {
		t.Fatalf("fillPayload took %d of 1000 small events, want all", n)
	}
}
