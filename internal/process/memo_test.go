package process

import (
	"hash/fnv"
	"strconv"
	"testing"
	"unsafe"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
)

func TestMemoTemplateIsParameterize(t *testing.T) {
	m := newMemos()
	for _, msg := range []string{"user usr_83644 signed in from 10.0.0.1", "user usr_83644 signed in from 10.0.0.1", "plain", ""} {
		for _, mm := range []*memos{m, nil} {
			got := mm.template(msg)
			want := grouping.Parameterize(msg)
			h := fnv.New64a()
			_, _ = h.Write([]byte(want))
			if got.text != want || got.hash != strconv.FormatUint(h.Sum64(), 16) {
				t.Fatalf("template(%q) = %+v, want %q", msg, got, want)
			}
		}
	}
}

// A message aliases a batch's payload, which later batches do not share:
// what the memo keeps must not change with it.
func TestMemoTemplateKeepsNoPayload(t *testing.T) {
	m := newMemos()
	buf := []byte("connection reset by peer")
	msg := unsafe.String(unsafe.SliceData(buf), len(buf))
	m.template(msg)
	copy(buf, "XXXXXXXXXX")
	if got := m.template("connection reset by peer"); got.text != "connection reset by peer" {
		t.Fatalf("remembered template = %q after the payload changed", got.text)
	}
}

// A slot holds one text: another text of the same slot replaces it, and
// is never answered the first one's value.
func TestMemoSlots(t *testing.T) {
	m := newMemo[int](1)
	if _, _, ok := m.get("a"); ok {
		t.Fatal("an empty memo answered")
	}
	_, h, _ := m.get("a")
	m.put(h, 1)
	if v, _, ok := m.get("a"); !ok || v != 1 {
		t.Fatalf("get(a) = %d, %v; want 1, true", v, ok)
	}
	if v, hb, ok := m.get("b"); ok {
		t.Fatalf("get(b) answered a's value %d", v)
	} else {
		m.put(hb, 2)
	}
	if _, _, ok := m.get("a"); ok {
		t.Fatal("a is still kept after b took its slot")
	}
	if v, _, ok := m.get("b"); !ok || v != 2 {
		t.Fatalf("get(b) = %d, %v; want 2, true", v, ok)
	}
}

// A remembered fingerprint is the one computed afresh, and shares no bytes
// with the event it was computed from.
func TestMemoFingerprint(t *testing.T) {
	m := newMemos()
	trace := "Traceback (most recent call last):\n  File \"app/jobs.py\", line 12, in charge\n    pay()\nValueError: bad amount 12"
	buf := []byte(trace)
	e := &ingest.Event{Level: ingest.Error, Message: "bad amount", StackTrace: unsafe.String(unsafe.SliceData(buf), len(buf))}
	ck := e.Message + "\x00" + trace
	first := m.fingerprint(ck, e, nil)
	copy(buf, "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX")
	again := m.fingerprint(ck, &ingest.Event{Level: ingest.Error, Message: "bad amount", StackTrace: trace}, nil)
	want := grouping.Fingerprint(grouping.Input{Message: "bad amount", StackTrace: trace})
	for _, f := range []*fingerprints{first, again} {
		if f.current.Fingerprint != want.Fingerprint || f.current.Title != want.Title || f.current.Culprit != want.Culprit {
			t.Fatalf("fingerprint = %q %q %q, want %q %q %q", f.current.Fingerprint, f.current.Title, f.current.Culprit,
				want.Fingerprint, want.Title, want.Culprit)
		}
		if f.in.StackTrace != trace {
			t.Fatalf("remembered input aliases the payload: %q", f.in.StackTrace)
		}
	}
}
