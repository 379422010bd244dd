package intake

import (
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"strings"

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
	Bytes []byte
	res   *Reservation
	bufs  []*[]byte
}

// Release returns the body's buffers to the pool and its bytes to the
// budget.
func (b *Body) Release() {
	for _, p := range b.bufs {
		putBuf(p)
	}
	b.res.Release()
	b.bufs, b.Bytes = nil, nil
}

// Reserve adds n bytes to the body's reservation: what decoding it will
// hold besides the body itself (decoded events, the queue payload). A
// refusal is 503 overloaded.
func (b *Body) Reserve(ctx context.Context, n int64) (string, *problem.Problem) {
	if err := b.res.Grow(ctx, n); err != nil {
		return metrics.RefusedMemory, overloaded(metrics.RefusedMemory)
	}
	return "", nil
}

// ReadBody reads r's body with hard limits: MaxWireBytes on the wire and,
// for a gzip body, MaxDecodedBytes decompressed (a gzip bomb stops there),
// reserving every buffer in the memory budget before it is allocated. A
// refusal returns the metrics reason and the problem: 413
// payload-too-large, 400 malformed-body, or 503 overloaded when the budget
// stays spent. Its buffers count to project's share of the budget. The
// caller must Release the body.
func (in *Intake) ReadBody(ctx context.Context, r *http.Request, project string, gzipped bool) (*Body, string, *problem.Problem) {
	tooLarge := problem.New("payload-too-large", "the body is over 5 MiB; send fewer events per batch")
	if r.ContentLength > MaxWireBytes {
		return nil, metrics.RefusedTooLarge, tooLarge
	}
	body := &Body{res: in.Memory.ReserveFor(project)}
	wire, err := body.readAll(ctx, r.Body, r.ContentLength, MaxWireBytes)
	if err == nil && gzipped {
		var zr *gzip.Reader
		if zr, err = getGzip(wire); err == nil {
			hint := int64(-1)
			if size, ok := gzipSize(wire); ok {
				if size > MaxDecodedBytes {
					gzPool.Put(zr)
					body.Release()
					return nil, metrics.RefusedTooLarge, inflatedTooLarge()
				}
				hint = size
			}
			var plain []byte
			plain, err = body.readAll(ctx, zr, hint, MaxDecodedBytes)
			gzPool.Put(zr)
			wire = plain
			if errors.Is(err, errTooLarge) {
				body.Release()
				return nil, metrics.RefusedTooLarge, inflatedTooLarge()
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

func inflatedTooLarge() *problem.Problem {
	return problem.New("payload-too-large", "the body is over 20 MiB decompressed; send fewer events per batch")
}

var (
	errTooLarge   = errors.New("intake: body over the limit")
	errUnreadable = errors.New("intake: body unreadable")
	errBadGzip    = errors.New("intake: bad gzip")
)
