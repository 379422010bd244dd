package intake

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func gz(parts ...[]byte) []byte {
	var z bytes.Buffer
	for _, p := range parts {
		w := gzip.NewWriter(&z)
		_, _ = w.Write(p)
		_ = w.Close()
	}
	return z.Bytes()
}

// inUse is what the budget has handed out: its size less the most it
// can still hand out (found by bisection with TryAcquire).
func inUse(b *Budget) int64 {
	lo, hi := int64(0), b.size // lo can be taken; hi+1 cannot
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if b.sem.TryAcquire(mid) {
			b.sem.Release(mid)
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return b.size - lo
}

// request is a POST of body; chunked hides its length.
func request(body []byte, chunked bool) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/v1/ingest", bytes.NewReader(body))
	if chunked {
		r.ContentLength = -1
		r.Body = io.NopCloser(struct{ io.Reader }{bytes.NewReader(body)})
	}
	return r
}

// TestBodyReservationCoversItsBuffers: whatever the body (its length
// announced or not, gzip with one member or several, pooled buffers of any
// size at hand), what a Body holds reserved covers the capacity of every
// buffer it holds, the bytes are those sent, and Release gives the whole
// budget back. A reservation of the bytes asked for, while the pool handed
// out larger buffers, let 50 gzip bombs hold 400 MB under a 256 MiB
// budget.
func TestBodyReservationCoversItsBuffers(t *testing.T) {
	plain := bytes.Repeat([]byte(`{"message":"m","level":"error"},`), 40_000) // 1.2 MiB
	// Pooled buffers larger than their size class's minimum.
	for _, size := range []int{4 << 10, chunkSize, 6 << 20} {
		b := make([]byte, size, size+size/2)
		putBuf(&b)
	}
	for _, tc := range []struct {
		name    string
		body    []byte
		gzipped bool
		chunked bool
		want    []byte
	}{
		{"plain, length announced", plain, false, false, plain},
		{"plain, chunked", plain, false, true, plain},
		{"small, chunked", []byte(`{}`), false, true, []byte(`{}`)},
		{"empty, chunked", nil, false, true, []byte{}},
		{"gzip", gz(plain), true, false, plain},
		{"gzip, chunked", gz(plain), true, true, plain},
		{"gzip, two members (the trailer tells the last one only)", gz(plain, []byte("x")), true, false, append(bytes.Clone(plain), 'x')},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &Intake{Memory: NewBudget(256<<20, time.Second)}
			body, reason, pr := in.ReadBody(context.Background(), request(tc.body, tc.chunked), "", tc.gzipped)
			if pr != nil {
				t.Fatalf("refused: %s %v", reason, pr)
			}
			var held int64
			for _, p := range body.bufs {
				held += int64(cap(*p))
			}
			if body.res.Held() < held {
				t.Errorf("reserved %d bytes, holds buffers of %d", body.res.Held(), held)
			}
			if got := inUse(in.Memory); got != body.res.Held() {
				t.Errorf("the budget has %d bytes out, the body says it holds %d", got, body.res.Held())
			}
			if !bytes.Equal(body.Bytes, tc.want) {
				t.Errorf("read %d bytes, want %d", len(body.Bytes), len(tc.want))
			}
			body.Release()
			if got := inUse(in.Memory); got != 0 {
				t.Errorf("after Release the budget has %d bytes out", got)
			}
		})
	}
}

// TestGzipRefusals: a gzip body whose trailer says it inflates past the
// limit is refused without being inflated; one that hides its size is
// inflated and refused at the limit; a truncated or lying one is
// malformed. Every refusal gives the whole budget back.
func TestGzipRefusals(t *testing.T) {
	bomb := bytes.Repeat([]byte{'A'}, MaxDecodedBytes+1)
	honest := gz(bomb)
	hidden := gz(bomb, nil)
	small := gz([]byte(`{"events":[]}`))
	lying := bytes.Clone(small)
	binary.LittleEndian.PutUint32(lying[len(lying)-4:], 3) // says 3 bytes
	for _, tc := range []struct {
		name   string
		body   []byte
		budget int64 // 0: plenty
		status int
	}{
		{"trailer over the limit", honest, 0, http.StatusRequestEntityTooLarge},
		// With room for the wire bytes only: the honest bomb needs no
		// more, the hidden one has to inflate.
		{"trailer over the limit, no room to inflate", honest, 64 << 10, http.StatusRequestEntityTooLarge},
		{"size hidden, no room to inflate", hidden, 64 << 10, http.StatusServiceUnavailable},
		{"size hidden", hidden, 0, http.StatusRequestEntityTooLarge},
		{"truncated", small[:len(small)-3], 0, http.StatusBadRequest},
		{"trailer lies", lying, 0, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &Intake{Memory: NewBudget(256<<20, 10*time.Millisecond)}
			if tc.budget > 0 {
				// Everything but tc.budget is held by others.
				other := in.Memory.Reserve()
				if err := other.Grow(context.Background(), in.Memory.size-tc.budget); err != nil {
					t.Fatal(err)
				}
				defer other.Release()
			}
			before := inUse(in.Memory)
			body, reason, pr := in.ReadBody(context.Background(), request(tc.body, false), "", true)
			if pr == nil {
				body.Release()
				t.Fatalf("read %d bytes, want a %d refusal", len(body.Bytes), tc.status)
			}
			if pr.Status != tc.status {
				t.Errorf("refused %d (%s), want %d", pr.Status, reason, tc.status)
			}
			if got := inUse(in.Memory); got != before {
				t.Errorf("the budget has %d bytes out after the refusal, %d before", got, before)
			}
		})
	}
}

// TestStalledBodyHoldsLittle: a chunked body that sends one byte and
// stops holds a few KiB of the budget while it waits for the read timeout,
// so stalled clients with a valid key cannot spend the budget of everyone.
func TestStalledBodyHoldsLittle(t *testing.T) {
	in := &Intake{Memory: NewBudget(256<<20, time.Second)}
	pr, pw := io.Pipe()
	r := httptest.NewRequest(http.MethodPost, "/v1/ingest", pr)
	r.ContentLength = -1
	done := make(chan int)
	go func() {
		_, _, p := in.ReadBody(context.Background(), r, "", false)
		done <- p.Status
	}()
	if _, err := pw.Write([]byte("{")); err != nil { // returns once read: the buffer is taken
		t.Fatal(err)
	}
	if got := inUse(in.Memory); got > 2*firstRead {
		t.Errorf("a stalled body holds %d bytes of the budget, want at most %d", got, 2*firstRead)
	}
	_ = pw.CloseWithError(errors.New("read timeout"))
	if status := <-done; status != http.StatusBadRequest {
		t.Errorf("a body that failed to arrive: %d, want 400", status)
	}
	if got := inUse(in.Memory); got != 0 {
		t.Errorf("after the refusal the budget has %d bytes out", got)
	}
}

// TestReservationWaitsOnceInAll: the steps of one request together wait
// at most the budget's wait (CONTRACT 7: "waits up to 1 s, then gets 503"),
// however many they are.
func TestReservationWaitsOnceInAll(t *testing.T) {
	b := NewBudget(100, 50*time.Millisecond)
	other := b.Reserve()
	if err := other.Grow(context.Background(), 100); err != nil {
		t.Fatal(err)
	}
	r := b.Reserve()
	if err := r.Grow(context.Background(), 10); !errors.Is(err, ErrMemoryBusy) {
		t.Fatalf("Grow with the budget spent = %v, want ErrMemoryBusy", err)
	}
	waited := r.waited
	if waited < b.wait {
		t.Fatalf("the first step waited %s, want the whole %s", waited, b.wait)
	}
	if err := r.Grow(context.Background(), 10); !errors.Is(err, ErrMemoryBusy) || r.waited != waited {
		t.Fatalf("second Grow = %v after waiting %s more, want ErrMemoryBusy at once", err, r.waited-waited)
	}
	// Room at hand is taken without waiting, whatever was waited before.
	other.Release()
	if err := r.Grow(context.Background(), 10); err != nil || r.Held() != 10 {
		t.Fatalf("Grow with room = %v (held %d), want 10 held", err, r.Held())
	}
	r.Release()
	if got := inUse(b); got != 0 {
		t.Errorf("after Release the budget has %d bytes out", got)
	}
}
