package ingest

import (
	"encoding/binary"
	"encoding/json"
	"reflect"
	"testing"
)

func TestPayloadRoundTrip(t *testing.T) {
	in := []Event{
		{Service: "api", Environment: "prod", Release: "1.2.3", Level: Error, Message: "boom", Timestamp: 1_763_798_400_123,
			StackTrace: "panic: boom\n\ngoroutine 1", TraceID: "0af7651916cd43dd8448eb211c80319c", SpanID: "b7ad6b7169203331", Attributes: json.RawMessage(`{"k":"v"}`)},
		{Service: "web", Level: Info, Message: "hello", Timestamp: -5},
	}
	b, err := EncodePayload(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodePayload(b)
	if err != nil {
		t.Fatalf("DecodePayload: %v", err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("round trip = %+v, want %+v", got, in)
	}
	for cut := 0; cut < len(b); cut++ {
		if _, err := DecodePayload(b[:cut]); err == nil {
			t.Fatalf("DecodePayload of %d of %d bytes succeeded, want an error", cut, len(b))
		}
	}
}

func TestPayloadCarriesDetail(t *testing.T) {
	in := []Event{
		{Service: "api", Level: Error, Message: "boom", Timestamp: 1, Detail: json.RawMessage(`{"breadcrumbs":[{"message":"m"}]}`)},
		{Service: "web", Level: Info, Message: "hello", Timestamp: 2},
	}
	b, _ := EncodePayload(in)
	if b[0] != payloadV2 {
		t.Fatalf("version = %#x, want %#x", b[0], payloadV2)
	}
	got, err := DecodePayload(CompressPayload(nil, b))
	if err != nil || !reflect.DeepEqual(got, in) {
		t.Fatalf("round trip = %+v (%v), want %+v", got, err, in)
	}
	for cut := 0; cut < len(b); cut++ {
		if _, err := DecodePayload(b[:cut]); err == nil {
			t.Fatalf("DecodePayload of %d of %d bytes succeeded, want an error", cut, len(b))
		}
	}
	// Without any detail the payload is the first version, which every
	// queued batch written before details were kept also is.
	if b, _ := EncodePayload(in[1:]); b[0] != payloadV1 {
		t.Fatalf("version without detail = %#x, want %#x", b[0], payloadV1)
	}
}

func BenchmarkPayload(b *testing.B) {
	events := make([]Event, 1000)
	for i := range events {
		events[i] = Event{Service: "checkout", Environment: "production", Release: "2026.11.3", Level: Info, Timestamp: 1_763_798_400_000 + int64(i),
			Message: "GET /api/orders/12345 answered 200 in 35ms for user 981 from 10.1.2.3", Attributes: json.RawMessage(`{"http.method":"GET","region":"eu-west-1","user_id":981}`)}
	}
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := EncodePayload(events); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
	})
	enc, _ := EncodePayload(events)
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := DecodePayload(enc); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
	})
}

func TestCompressedPayloadRoundTrip(t *testing.T) {
	in := make([]Event, 200)
	for i := range in {
		in[i] = Event{Service: "checkout", Environment: "production", Level: Level(i % 5), Timestamp: 1_763_798_400_000 + int64(i),
			Message: "GET /api/orders/12345 answered 200", Attributes: json.RawMessage(`{"region":"eu-west-1"}`)}
	}
	plain := AppendPayload(nil, in)
	b := CompressPayload([]byte("keep"), plain)
	if string(b[:4]) != "keep" {
		t.Fatalf("CompressPayload overwrote dst's prefix: %q", b[:4])
	}
	b = b[4:]
	if len(b) >= len(plain)/2 {
		t.Errorf("compressed payload is %d bytes of %d: want under half for repetitive events", len(b), len(plain))
	}
	got, err := DecodePayload(b)
	if err != nil {
		t.Fatalf("DecodePayload: %v", err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Fatal("compressed round trip differs")
	}
	for cut := 0; cut < len(b); cut += 7 {
		if _, err := DecodePayload(b[:cut]); err == nil {
			t.Fatalf("DecodePayload of %d of %d compressed bytes succeeded, want an error", cut, len(b))
		}
	}
	// A block that claims to decompress to more than any batch can hold is
	// refused before anything is allocated.
	huge := append([]byte{payloadS2}, binary.AppendUvarint(nil, 1<<40)...)
	if _, err := DecodePayload(huge); err == nil {
		t.Fatal("DecodePayload accepted a block claiming 1 TiB")
	}
}

// TestWithAgent: the derived agent is added to a stored detail without
// touching its other members.
func TestWithAgent(t *testing.T) {
	a := Agent{Browser: "Firefox", OS: "Linux"}
	for _, c := range []struct{ raw, want string }{
		{"", `{"agent":{"browser":"Firefox","os":"Linux"}}`},
		{"{}", `{"agent":{"browser":"Firefox","os":"Linux"}}`},
		{`{"breadcrumbs":[{"message":"x"}]}`, `{"breadcrumbs":[{"message":"x"}],"agent":{"browser":"Firefox","os":"Linux"}}`},
	} {
		got := WithAgent(c.raw, a)
		if got != c.want {
			t.Errorf("WithAgent(%q) = %s, want %s", c.raw, got, c.want)
		}
		if d := ParseDetail(got); d.Agent == nil || *d.Agent != a {
			t.Errorf("ParseDetail(%s).Agent = %v", got, d.Agent)
		}
	}
	if got := WithAgent(`{"sources":[]}`, Agent{}); got != `{"sources":[]}` {
		t.Errorf("an empty agent changed the detail: %s", got)
	}
}
