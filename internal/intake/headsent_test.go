package intake

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

// brotliDecoding is a br coding whose decoder is said to need 17 MiB, as
// sentry.DecoderMemory says: more than an address's share of any budget
// these tests make.
var brotliDecoding = &Decoding{Memory: 17 << 20, Open: func(r io.Reader) (io.ReadCloser, error) {
	return io.NopCloser(brotli.NewReader(r)), nil
}}

// keylessBody is an envelope of a first line and about size bytes of
// barely compressible items after it, and its brotli compression.
func keylessBody(size int) (plain, br []byte) {
	var b bytes.Buffer
	b.WriteString("{\"dsn\":\"http://k@h/1\"}\n")
	r := rand.New(rand.NewPCG(1, 2))
	for b.Len() < size {
		fmt.Fprintf(&b, "{\"message\":\"%x\"}\n", r.Uint64())
	}
	var z bytes.Buffer
	w := brotli.NewWriterLevel(&z, 5) // quality 11 took 45 s under the race detector
	_, _ = w.Write(b.Bytes())
	_ = w.Close()
	return b.Bytes(), z.Bytes()
}

// TestKeylessBrotliStallHoldsWhatArrived: a keyless br body is not decoded
// as it arrives (its decoder would hold 17 MiB for as long as the client
// stalls) but read as sent: a client that sends a few bytes and stalls
// holds a small first read of the budget, nothing of the unauthenticated
// share is held for a decoder meanwhile, and once the body comes its first
// line is the head and Finish decodes the whole body.
func TestKeylessBrotliStallHoldsWhatArrived(t *testing.T) {
	b := NewBudget(64<<20, time.Second) // an address's share: 512 KiB
	in := &Intake{Memory: b}
	plain, br := keylessBody(512 << 10)
	pr, pw := io.Pipe()
	r := httptest.NewRequest(http.MethodPost, "/", pr)
	r.ContentLength = int64(len(br))
	lim := Limits{Wire: 20 << 20, Decoded: 100 << 20}
	type result struct {
		k  *Keyless
		pr error
	}
	done := make(chan result, 1)
	go func() {
		k, _, p := in.ReadHead(context.Background(), r, lim, brotliDecoding)
		if p != nil {
			done <- result{pr: p}
			return
		}
		done <- result{k: k}
	}()
	if _, err := pw.Write(br[:8]); err != nil {
		t.Fatal(err)
	}
	if got := waitInUse(b, firstRead); got != firstRead {
		t.Fatalf("a keyless br body stalled after 8 bytes holds %d bytes of the budget, want the first read (%d)", got, firstRead)
	}
	go func() {
		_, _ = pw.Write(br[8:])
		_ = pw.Close()
	}()
	res := <-done
	if res.pr != nil {
		t.Fatalf("ReadHead: %v", res.pr)
	}
	k := res.k
	if !bytes.HasPrefix(k.Head(), []byte("{\"dsn\":\"http://k@h/1\"}\n")) {
		t.Fatalf("head %q, want the first line", k.Head()[:min(len(k.Head()), 40)])
	}
	if held := b.Unauthenticated(); held > maxHeadWire+MaxHeadBytes {
		t.Errorf("with the head read the unauthenticated share holds %d, more than the body read so far and its head", held)
	}
	whole, _, p := k.Finish(context.Background(), "org_a")
	if p != nil {
		t.Fatalf("Finish: %v", p)
	}
	if !bytes.Equal(whole.Bytes, plain) {
		t.Fatalf("Finish decoded %d bytes, want the %d compressed", len(whole.Bytes), len(plain))
	}
	whole.Release()
	if got := inUse(b); got != 0 || len(b.accounts) != 0 {
		t.Fatalf("after Release: in use %d, accounts %v", got, b.accounts)
	}
}

// TestKeylessBrotliRefusals: a keyless br body read as sent is refused as
// a decoded one is: not brotli (400), cut short (400), over the decoded
// limit (413), over the wire limit (413); each gives the budget back.
func TestKeylessBrotliRefusals(t *testing.T) {
	b := NewBudget(64<<20, time.Second)
	in := &Intake{Memory: b}
	plain, br := keylessBody(600 << 10)
	lim := Limits{Wire: 20 << 20, Decoded: 100 << 20}
	for _, c := range []struct {
		name   string
		body   []byte
		lim    Limits
		status int
	}{
		{"not brotli", bytes.Repeat([]byte{0xff}, 5000), lim, http.StatusBadRequest},
		{"cut short", br[:len(br)/2], lim, http.StatusBadRequest},
		{"over the decoded limit", br, Limits{Wire: 20 << 20, Decoded: int64(len(plain)) - 1}, http.StatusRequestEntityTooLarge},
		{"over the wire limit", br, Limits{Wire: int64(len(br)) - 1, Decoded: 100 << 20}, http.StatusRequestEntityTooLarge},
		{"whole", br, lim, http.StatusOK},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(c.body))
		r.ContentLength = -1
		status := http.StatusOK
		k, _, p := in.ReadHead(context.Background(), r, c.lim, brotliDecoding)
		if p == nil {
			var whole *Body
			if whole, _, p = k.Finish(context.Background(), "org_a"); p == nil {
				if !bytes.Equal(whole.Bytes, plain) {
					t.Errorf("%s: decoded %d bytes, want %d", c.name, len(whole.Bytes), len(plain))
				}
				whole.Release()
			}
		}
		if p != nil {
			status = p.Status
		}
		if status != c.status {
			t.Errorf("%s: %d %v, want %d", c.name, status, p, c.status)
		}
		if got := inUse(b); got != 0 || len(b.accounts) != 0 {
			t.Fatalf("%s: after the answer the budget holds %d, accounts %v", c.name, got, b.accounts)
		}
	}
}

// TestKeylessBrotliLongFirstLine: a keyless br body (read as sent) whose
// first line is over 64 KiB is 413 naming the first line, as a gzip or
// plain one is, small or large: not a 400 saying it could not be
// decompressed, nor an empty head.
func TestKeylessBrotliLongFirstLine(t *testing.T) {
	for _, tail := range []int{0, 2 << 20} {
		var b bytes.Buffer
		b.WriteString(`{"dsn":"http://k@h/1","pad":"` + string(bytes.Repeat([]byte("a"), 100<<10)) + "\"}\n{}\n")
		r := rand.New(rand.NewPCG(3, 4))
		for b.Len() < tail {
			fmt.Fprintf(&b, "{\"message\":\"%x\"}\n", r.Uint64())
		}
		var z bytes.Buffer
		w := brotli.NewWriterLevel(&z, 5)
		_, _ = w.Write(b.Bytes())
		_ = w.Close()
		in := &Intake{Memory: NewBudget(64<<20, time.Second)}
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(z.Bytes()))
		k, _, pr := in.ReadHead(context.Background(), req, Limits{Wire: 20 << 20, Decoded: 100 << 20}, brotliDecoding)
		if k != nil || pr == nil || pr.Status != http.StatusRequestEntityTooLarge {
			t.Fatalf("a br body with a 100 KiB first line and %d bytes after it: %v, want 413", tail, pr)
		}
	}
}
