package ingest

import (
	"testing"
	"time"
)

func TestScrubNUL(t *testing.T) {
	t.Parallel()
	attrs := []byte(`{"a\u0000":"b\u0000c","esc":"\\u0000 is text","raw":"` + "\x00" + `","u":"\u00001"}`)
	events := []Event{{Service: "s\x00", Environment: "e\x00", Release: "r\x00", Message: "m\x00m", StackTrace: "\x00", TraceID: "t\x00", SpanID: "x\x00",
		Attributes: attrs, Detail: []byte(`{"breadcrumbs":[{"message":"x","data":{"k\u0000":{"n":"v\u0000"}}}]}`)},
		{Message: "clean", Attributes: []byte(`{"k":"v"}`)}}
	keep := string(attrs)
	ScrubNUL(events)
	e := events[0]
	for got, want := range map[string]string{e.Service: "s\uFFFD", e.Environment: "e\uFFFD", e.Release: "r\uFFFD", e.Message: "m\uFFFDm",
		e.StackTrace: "\uFFFD", e.TraceID: "t\uFFFD", e.SpanID: "x\uFFFD"} {
		if got != want {
			t.Errorf("scrubbed %q, want %q", got, want)
		}
	}
	if want := `{"a\ufffd":"b\ufffdc","esc":"\\u0000 is text","raw":"\ufffd","u":"\ufffd1"}`; string(e.Attributes) != want {
		t.Errorf("attributes = %s, want %s", e.Attributes, want)
	}
	if want := `{"breadcrumbs":[{"message":"x","data":{"k\ufffd":{"n":"v\ufffd"}}}]}`; string(e.Detail) != want {
		t.Errorf("detail = %s, want %s (breadcrumbs' data)", e.Detail, want)
	}
	if string(attrs) != keep {
		t.Error("the attributes given were modified in place")
	}
	if events[1].Message != "clean" || string(events[1].Attributes) != `{"k":"v"}` {
		t.Errorf("a clean event changed: %+v", events[1])
	}
}

// TestDecodeKeepsNULForTheCommitToScrub: the decoder decodes \u0000 as
// U+0000 like any escape; intake.Commit scrubs every transport's events.
func TestDecodeKeepsNULForTheCommitToScrub(t *testing.T) {
	t.Parallel()
	events, err := Decode([]byte(`{"service":"a","events":[{"message":"x\u0000y","attributes":{"k":"\u0000"}}]}`), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ScrubNUL(events)
	if events[0].Message != "x\uFFFDy" || string(events[0].Attributes) != `{"k":"\ufffd"}` {
		t.Fatalf("event = %q %s", events[0].Message, events[0].Attributes)
	}
}
