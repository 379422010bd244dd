package intake

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// waitInUse waits until b's reservations and charges come to want, and
// returns what they came to.
func waitInUse(b *Budget, want int64) int64 {
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := inUse(b)
		if got == want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDeclaredLengthIsNotReserved: a body announcing 5 MiB that sends 1 KiB
// and stalls holds a small first read of the budget, not its Content-Length
// nor a whole chunk
// (CONTRACT 8); as bytes arrive the reservation grows with them.
func TestDeclaredLengthIsNotReserved(t *testing.T) {
	b := NewBudget(64<<20, time.Second)
	in := &Intake{Memory: b}
	pr, pw := io.Pipe()
	r := httptest.NewRequest(http.MethodPost, "/", pr)
	r.ContentLength = MaxWireBytes
	done := make(chan *Body, 1)
	go func() {
		body, _, p := in.ReadBody(context.Background(), r, "org_a", false)
		if p != nil {
			t.Errorf("ReadBody: %v", p)
		}
		done <- body
	}()
	if _, err := pw.Write(make([]byte, 1<<10)); err != nil {
		t.Fatal(err)
	}
	if got := waitInUse(b, firstRead); got != firstRead {
		t.Fatalf("a stalled 5 MiB body holds %d bytes of the budget, want the first small read (%d)", got, firstRead)
	}
	if _, err := pw.Write(make([]byte, 2<<20)); err != nil {
		t.Fatal(err)
	}
	if got := inUse(b); got < 2<<20 || got > 2<<20+2*chunkSize {
		t.Fatalf("after 2 MiB more the budget holds %d, want about 2 MiB", got)
	}
	_, _ = pw.Write(make([]byte, MaxWireBytes-(2<<20)-(1<<10)))
	_ = pw.Close()
	body := <-done
	if body == nil || len(body.Bytes) != MaxWireBytes {
		t.Fatalf("the body read is not whole")
	}
	body.Release()
	if got := inUse(b); got != 0 {
		t.Fatalf("after Release the budget holds %d", got)
	}
}

// TestReadHeadBomb: before a key is known only the first line is read, at
// most 64 KiB decoded, under the unauthenticated share: a gzip body whose
// first line inflates to 50 MiB costs a few hundred bytes of it, and the
// rest of the body is read only by Finish.
func TestReadHeadBomb(t *testing.T) {
	b := NewBudget(64<<20, 100*time.Millisecond)
	in := &Intake{Memory: b}
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	_, _ = zw.Write(bytes.Repeat([]byte("a"), 50<<20))
	_ = zw.Close()
	wire := &countingReader{r: bytes.NewReader(z.Bytes())}
	r := httptest.NewRequest(http.MethodPost, "/", wire)
	lim := Limits{Wire: 20 << 20, Decoded: 100 << 20}
	k, _, pr := in.ReadHead(context.Background(), r, lim, &Decoding{Memory: 64 << 10, Open: func(r io.Reader) (io.ReadCloser, error) { return gzip.NewReader(r) }})
	// A first line over 64 KiB cannot name a key: 413 saying so, not a
	// 403 blaming the key it could not carry.
	if k != nil || pr == nil || pr.Status != http.StatusRequestEntityTooLarge || !strings.Contains(pr.Detail, "first line is over 64 KiB") {
		t.Fatalf("a 50 MiB first line: %v, want 413 naming the first line", pr)
	}
	if wire.n > 16<<10 {
		t.Errorf("reading the head took %d bytes of the body as sent", wire.n)
	}
	if got := inUse(b); got != 0 || b.Unauthenticated() != 0 {
		t.Fatalf("after the refusal: in use %d, unauthenticated %d", got, b.Unauthenticated())
	}

	// A whole keyless body: the head, then the rest once the key is known.
	body := append([]byte("{\"dsn\":\"x\"}\n"), bytes.Repeat([]byte("e"), 600<<10)...)
	r = httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	k, _, pr = in.ReadHead(context.Background(), r, lim, nil)
	if pr != nil {
		t.Fatal(pr)
	}
	if !bytes.HasPrefix(k.Head(), []byte("{\"dsn\":\"x\"}\n")) || len(k.Head()) > MaxHeadBytes+1 {
		t.Fatalf("head %q…", k.Head()[:20])
	}
	whole, _, pr := k.Finish(context.Background(), "org_a")
	if pr != nil {
		t.Fatal(pr)
	}
	if !bytes.Equal(whole.Bytes, body) {
		t.Fatalf("Finish read %d bytes, want the %d sent", len(whole.Bytes), len(body))
	}
	if b.Unauthenticated() != 0 || b.accounts["org_a"] == 0 {
		t.Errorf("after Finish the body is not counted to its organization: %v", b.accounts)
	}
	whole.Release()

	// Over the wire limit after the head: 413.
	r = httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	r.ContentLength = -1
	k, _, pr = in.ReadHead(context.Background(), r, Limits{Wire: 100 << 10, Decoded: 1 << 20}, nil)
	if pr != nil {
		t.Fatal(pr)
	}
	if _, _, pr := k.Finish(context.Background(), "org_a"); pr == nil || pr.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("a keyless body over the wire limit: %v, want 413", pr)
	}
	if got := inUse(b); got != 0 || len(b.accounts) != 0 {
		t.Fatalf("after the refusals: in use %d, accounts %v", got, b.accounts)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestReadHeadAtTheLimit: a first line of exactly 64 KiB (its newline
// beside) is read whole, as sent and gzipped; one byte more cannot
// authenticate.
func TestReadHeadAtTheLimit(t *testing.T) {
	in := &Intake{Memory: NewBudget(64<<20, 100*time.Millisecond)}
	lim := Limits{Wire: 20 << 20, Decoded: 100 << 20}
	gz := &Decoding{Memory: 64 << 10, Open: func(r io.Reader) (io.ReadCloser, error) { return gzip.NewReader(r) }}
	for _, n := range []int{MaxHeadBytes - 1, MaxHeadBytes, MaxHeadBytes + 1} {
		line := append(bytes.Repeat([]byte("x"), n), '\n')
		body := append(line, "{\"type\":\"event\"}\n{}\n"...)
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		_, _ = zw.Write(body)
		_ = zw.Close()
		for _, c := range []struct {
			name string
			body []byte
			dec  *Decoding
		}{{"as sent", body, nil}, {"gzipped", z.Bytes(), gz}} {
			k, _, pr := in.ReadHead(context.Background(), httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(c.body)), lim, c.dec)
			if n <= MaxHeadBytes {
				if pr != nil || !bytes.HasPrefix(k.Head(), line) {
					t.Errorf("%s, a first line of %d bytes: %v, want it read whole", c.name, n, pr)
				}
			} else if pr == nil || !strings.Contains(pr.Detail, "first line is over 64 KiB") {
				t.Errorf("%s, a first line of %d bytes: %v, want it refused", c.name, n, pr)
			}
			if k != nil {
				k.Release()
			}
		}
	}
}
