package intake

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/problem"
)

// Encoding reads Content-Encoding: gzip reports a gzip body; anything but
// gzip, identity or nothing is a 415 unsupported-encoding problem.
func Encoding(r *http.Request) (gzipped bool, pr *problem.Problem) {
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	if enc != "" && enc != "identity" && enc != "gzip" {
		return false, problem.Newf("unsupported-encoding", "Content-Encoding %q is not supported; send gzip or no encoding", enc)
	}
	return enc == "gzip", nil
}

// Body is an ingestion request body read under the limits and the memory
// budget. Release hands its buffers and its reservation back; Bytes must
// not be used afterwards.
type Body struct {
	Bytes  []byte
	budget *Budget
	held   int64
	bufs   []*[]byte
}

// Release returns the body's buffers to the pool and its bytes to the
// budget.
func (b *Body) Release() {
	for _, p := range b.bufs {
		putBuf(p)
	}
	b.budget.Release(b.held)
	b.bufs, b.Bytes, b.held = nil, nil, 0
}

// Reserve adds n bytes to the body's reservation: what decoding it will
// hold besides the body itself (decoded events, the queue payload). A
// refusal is 503 overloaded.
func (b *Body) Reserve(ctx context.Context, n int64) (string, *problem.Problem) {
	got, err := b.budget.Acquire(ctx, n)
	if err != nil {
		return metrics.RefusedMemory, overloaded(metrics.RefusedMemory)
	}
	b.held += got
	return "", nil
}

// ReadBody reads r's body with hard limits: MaxWireBytes on the wire and,
// for a gzip body, MaxDecodedBytes decompressed (a gzip bomb stops there),
// reserving every buffer in the memory budget before it is allocated. A
// refusal returns the metrics reason and the problem: 413
// payload-too-large, 400 malformed-body, or 503 overloaded when the budget
// stays spent. The caller must Release the body.
func (in *Intake) ReadBody(ctx context.Context, r *http.Request, gzipped bool) (*Body, string, *problem.Problem) {
	tooLarge := problem.New("payload-too-large", "the body is over 5 MiB; send fewer events per batch")
	if r.ContentLength > MaxWireBytes {
		return nil, metrics.RefusedTooLarge, tooLarge
	}
	body := &Body{budget: in.Memory}
	wire, err := body.readAll(ctx, r.Body, r.ContentLength, MaxWireBytes)
	if err == nil && gzipped {
		var zr *gzip.Reader
		if zr, err = getGzip(wire); err == nil {
			hint := min(max(int64(len(wire))*4, 64<<10), MaxDecodedBytes)
			var plain []byte
			plain, err = body.readAll(ctx, zr, hint, MaxDecodedBytes)
			gzPool.Put(zr)
			wire = plain
			if errors.Is(err, errTooLarge) {
				body.Release()
				return nil, metrics.RefusedTooLarge, problem.New("payload-too-large", "the body is over 20 MiB decompressed; send fewer events per batch")
			}
		}
		if errors.Is(err, errUnreadable) {
			err = errBadGzip
		}
	}
	switch {
	case err == nil:
		body.Bytes = wire
		return body, "", nil
	case errors.Is(err, errTooLarge):
		body.Release()
		return nil, metrics.RefusedTooLarge, tooLarge
	case errors.Is(err, ErrMemoryBusy):
		body.Release()
		return nil, metrics.RefusedMemory, overloaded(metrics.RefusedMemory)
	case errors.Is(err, errBadGzip):
		body.Release()
		return nil, metrics.RefusedMalformed, problem.New("malformed-body", "the body is not valid gzip")
	default:
		body.Release()
		return nil, metrics.RefusedMalformed, problem.New("malformed-body", "the body could not be read")
	}
}

var (
	errTooLarge   = errors.New("intake: body over the limit")
	errUnreadable = errors.New("intake: body unreadable")
	errBadGzip    = errors.New("intake: bad gzip")
)

// readAll reads src into one buffer of at most limit bytes, starting at
// hint+1 bytes (hint < 0: unknown) and doubling; every buffer is reserved
// in the budget before it is allocated, and the one it replaces is handed
// back at once. Past limit it returns errTooLarge.
func (b *Body) readAll(ctx context.Context, src io.Reader, hint, limit int64) ([]byte, error) {
	size := int64(64 << 10)
	if hint >= 0 {
		size = hint + 1
	}
	size = min(size, limit+1)
	buf, err := b.alloc(ctx, size)
	if err != nil {
		return nil, err
	}
	n := 0
	for {
		if n == len(*buf) {
			if int64(n) > limit {
				return nil, errTooLarge
			}
			bigger, err := b.alloc(ctx, min(2*int64(n), limit+1))
			if err != nil {
				return nil, err
			}
			copy(*bigger, (*buf)[:n])
			b.free(buf)
			buf = bigger
		}
		m, err := src.Read((*buf)[n:])
		n += m
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, errUnreadable
		}
	}
	if int64(n) > limit {
		return nil, errTooLarge
	}
	return (*buf)[:n], nil
}

// alloc reserves and takes a buffer of size bytes.
func (b *Body) alloc(ctx context.Context, size int64) (*[]byte, error) {
	got, err := b.budget.Acquire(ctx, size)
	if err != nil {
		if errors.Is(err, ErrMemoryBusy) {
			return nil, err
		}
		return nil, errUnreadable
	}
	b.held += got
	p := getBuf(int(size))
	b.bufs = append(b.bufs, p)
	return p, nil
}

// free hands a buffer the body no longer uses back, with its reservation.
func (b *Body) free(p *[]byte) {
	for i, q := range b.bufs {
		if q == p {
			b.bufs = append(b.bufs[:i], b.bufs[i+1:]...)
			break
		}
	}
	n := min(int64(len(*p)), b.held)
	b.budget.Release(n)
	b.held -= n
	putBuf(p)
}

// Buffers of up to maxPooledBuf bytes are recycled: at full load they
// would otherwise be most of what the garbage collector sees.
const maxPooledBuf = 8 << 20

var bufPool sync.Pool

func getBuf(size int) *[]byte {
	if p, _ := bufPool.Get().(*[]byte); p != nil {
		if cap(*p) >= size {
			*p = (*p)[:size]
			return p
		}
		bufPool.Put(p)
	}
	s := make([]byte, size)
	return &s
}

func putBuf(p *[]byte) {
	if cap(*p) <= maxPooledBuf {
		bufPool.Put(p)
	}
}

var gzPool sync.Pool

// getGzip returns a pooled gzip reader over src.
func getGzip(src []byte) (*gzip.Reader, error) {
	zr, _ := gzPool.Get().(*gzip.Reader)
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(bytes.NewReader(src))
	} else {
		err = zr.Reset(bytes.NewReader(src))
	}
	if err != nil {
		return nil, errBadGzip
	}
	return zr, nil
}
