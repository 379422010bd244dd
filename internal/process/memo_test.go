package process

import (
	"fmt"
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

// A key may alias a batch's payload: the memo must keep its own copy.
func TestMemoCopiesKeys(t *testing.T) {
	m := newMemo[int](1 << 20)
	buf := []byte("connection reset by peer")
	k := unsafe.String(unsafe.SliceData(buf), len(buf))
	m.put(k, 7, len(k))
	copy(buf, "XXXXXXXXXX")
	if v, ok := m.get("connection reset by peer"); !ok || v != 7 {
		t.Fatalf("get after the payload changed = %d, %v; want 7, true", v, ok)
	}
}

func TestMemoBoundAndGenerations(t *testing.T) {
	m := newMemo[int](1000)
	for i := range 10000 {
		m.put(fmt.Sprintf("text %06d", i), i, 100)
		if _, ok := m.get("hot"); !ok {
			m.put("hot", -1, 100)
		}
	}
	if n := len(m.cur) + len(m.old); n > 20 {
		t.Fatalf("memo holds %d entries, want at most 20 (two generations of 1000 bytes)", n)
	}
	if v, ok := m.get("hot"); !ok || v != -1 {
		t.Fatalf("a text used all along was dropped: %d, %v", v, ok)
	}
	if _, ok := m.get("text 000000"); ok {
		t.Fatal("an old text is still kept")
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
