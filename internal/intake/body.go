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

// Encoding reads Content-Encoding: gzip reports a gzip body (gzip or
// x-gzip); a coding other than those or identity is a 415 unsupported-encoding problem; nested
// codings (gzip, gzip) are a 400 malformed-body problem (CONTRACT 8), after
// the 413 of a declared length over MaxWireBytes, in the order of CONTRACT
// 6 (415, 413, 400).
func Encoding(r *http.Request) (gzipped bool, pr *problem.Problem) {
	raw := ContentEncoding(r)
	n := 0
	for c := range strings.SplitSeq(raw, ",") {
		c = strings.ToLower(strings.TrimSpace(c))
		if c == "" || c == "identity" {
			continue
		}
		if c != "gzip" && c != "x-gzip" { // RFC 9110 8.4.1.3: x-gzip is gzip
			return false, problem.Newf("unsupported-encoding", "Content-Encoding %q is not supported; send gzip or no encoding", c)
		}
		n++
	}
	if n > 1 {
		if r.ContentLength > MaxWireBytes {
			return false, wireTooLarge()
		}
		return false, NestedProblem(raw)
	}
	return n == 1, nil
}

// ContentEncoding is r's Content-Encoding with every line of the header
// joined into one list, as RFC 9110 (5.3) reads repeated lines: two lines
// "gzip" are the nested "gzip, gzip", not one gzip.
func ContentEncoding(r *http.Request) string {
	return strings.Join(r.Header.Values("Content-Encoding"), ", ")
}

// Nested reports whether a Content-Encoding lists more than one coding
// other than identity: a body compressed twice, which inflates each
// layer's ratio into the next (a 263-byte gzip, gzip, gzip body becomes
// 100 MiB). No client sends one; they are refused before any byte is read.
func Nested(encoding string) bool {
	n := 0
	for c := range strings.SplitSeq(encoding, ",") {
		if c := strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
			n++
		}
	}
	return n > 1
}

// NestedProblem is the 400 of a nested Content-Encoding.
func NestedProblem(encoding string) *problem.Problem {
	return problem.Newf("malformed-body", "Content-Encoding %q applies more than one coding; send the body compressed once", encoding)
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
// stays spent. Its buffers count to the share of org, the organization of
// the request's project. The caller must Release the body.
func (in *Intake) ReadBody(ctx context.Context, r *http.Request, org string, gzipped bool) (*Body, string, *problem.Problem) {
	tooLarge := wireTooLarge()
	if r.ContentLength > MaxWireBytes {
		return nil, metrics.RefusedTooLarge, tooLarge
	}
	body := &Body{res: in.Memory.ReserveFor(org)}
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

// wireTooLarge is the 413 of a body over MaxWireBytes on the wire.
func wireTooLarge() *problem.Problem {
	return problem.New("payload-too-large", "the body is over 5 MiB; send fewer events per batch")
}
