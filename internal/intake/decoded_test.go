package intake_test

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

	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/metrics"
)

// gunzip is a Decoding of gzip bodies.
var gunzip = &intake.Decoding{Memory: 64 << 10, Open: func(r io.Reader) (io.ReadCloser, error) { return gzip.NewReader(r) }}

// TestReadDecoded checks a transport's own limits, on the wire and
// decoded, and the refusals of bodies that cannot be read.
func TestReadDecoded(t *testing.T) {
	t.Parallel()
	lim := intake.Limits{Wire: 1 << 20, Decoded: 4 << 20}
	plain := bytes.Repeat([]byte("envelope line\n"), 1000)
	for _, tt := range []struct {
		name    string
		body    []byte
		dec     *intake.Decoding
		chunked bool // no Content-Length: the limit is found while reading
		want    []byte
		status  int
		reason  string
		detail  string
	}{
		{name: "plain", body: plain, want: plain},
		{name: "gzip", body: gzipBytes(plain), dec: gunzip, want: plain},
		{name: "over the wire limit", body: make([]byte, 1<<20+1), status: 413, reason: metrics.RefusedTooLarge, detail: "over 1 MiB as sent"},
		{name: "over the wire limit, chunked", body: make([]byte, 1<<20+1), chunked: true, status: 413, reason: metrics.RefusedTooLarge, detail: "over 1 MiB as sent"},
		{name: "over the decoded limit", body: gzipBytes(make([]byte, 4<<20+1)), dec: gunzip, status: 413, reason: metrics.RefusedTooLarge, detail: "over 4 MiB once decompressed"},
		{name: "exactly the decoded limit", body: gzipBytes(make([]byte, 4<<20)), dec: gunzip, want: make([]byte, 4<<20)},
		{name: "not gzip", body: plain, dec: gunzip, status: 400, reason: metrics.RefusedMalformed, detail: "could not be decompressed"},
		{name: "gzip cut short", body: gzipBytes(plain)[:100], dec: gunzip, status: 400, reason: metrics.RefusedMalformed, detail: "could not be decompressed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/api/1/envelope/", bytes.NewReader(tt.body))
			if tt.chunked {
				r.ContentLength = -1
			}
			in := &intake.Intake{Memory: intake.NewBudget(64<<20, time.Second)}
			body, reason, pr := in.ReadDecoded(r.Context(), r, "", lim, tt.dec)
			if tt.status != 0 {
				if pr == nil {
					body.Release()
					t.Fatalf("read %d bytes, want %d", len(body.Bytes), tt.status)
				}
				if pr.Status != tt.status || reason != tt.reason || !strings.Contains(pr.Detail, tt.detail) {
					t.Fatalf("refused %d %s %q, want %d %s %q", pr.Status, reason, pr.Detail, tt.status, tt.reason, tt.detail)
				}
				return
			}
			if pr != nil {
				t.Fatalf("refused: %d %s", pr.Status, pr.Detail)
			}
			defer body.Release()
			if !bytes.Equal(body.Bytes, tt.want) {
				t.Fatalf("read %d bytes, want %d", len(body.Bytes), len(tt.want))
			}
		})
	}
}

// TestReadDecodedMemory checks that the decoder's memory is reserved
// before it runs, a request waits for the budget and then gets 503
// overloaded, and what a decoded body holds afterwards is its bytes only:
// the decoder's share and the body as sent are handed back at once.
func TestReadDecodedMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const size = 8 << 20
	budget := intake.NewBudget(size, 50*time.Millisecond)
	in := &intake.Intake{Memory: budget}
	lim := intake.Limits{Wire: 1 << 20, Decoded: 4 << 20}
	big := &intake.Decoding{Memory: 6 << 20, Open: gunzip.Open} // as brotli's window would
	body := gzipBytes(bytes.Repeat([]byte("x"), 100<<10))

	held := budget.Reserve() // other requests hold three quarters
	if err := held.Grow(ctx, 6<<20); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	if b, reason, pr := in.ReadDecoded(ctx, r, "org_a", lim, big); pr == nil || pr.Status != 503 || reason != metrics.RefusedMemory {
		if pr == nil {
			b.Release()
		}
		t.Fatalf("decoding with the budget spent: %v %s, want 503 %s", pr, reason, metrics.RefusedMemory)
	} else if pr.GetHeaders().Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	held.Release()

	r = httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	b, _, pr := in.ReadDecoded(ctx, r, "org_a", lim, big)
	if pr != nil {
		t.Fatalf("decoding with the budget free: %d %s", pr.Status, pr.Detail)
	}
	// The body holds its decoded buffer (its first guess at the size, four
	// times the compressed bytes or 64 KiB, doubled as it fills); the
	// rest of the budget is free again.
	rest := budget.Reserve()
	if err := rest.Grow(ctx, size-1<<20); err != nil {
		t.Fatalf("after decoding, %d bytes of the budget are not free: %v", size-1<<20, err)
	}
	rest.Release()
	b.Release()
	all := budget.Reserve()
	if err := all.Grow(ctx, size); err != nil || all.Held() != size {
		t.Fatalf("after Release, the budget is not whole: %v", err)
	}
	all.Release()
}
