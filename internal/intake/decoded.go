package intake

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/problem"
)

// Limits are a transport's size limits of one request body.
type Limits struct {
	Wire    int64 // as sent, compressed or not
	Decoded int64 // once its Content-Encoding is undone
}

// Decoding undoes a request body's Content-Encoding.
type Decoding struct {
	// Open returns a reader of the decoded body over the body as sent; an
	// error (a stream whose header is not what its coding says) is a
	// malformed body.
	Open func(io.Reader) (io.ReadCloser, error)
	// Memory is the most the decoder's own state holds while it runs (its
	// windows and tables), reserved in the budget before it is opened.
	Memory int64
	// Declared, if set, is what the decoder needs for a stream that begins
	// with prefix, from what the stream declares (its window), at most
	// Memory; ok is false while prefix is too short to tell.
	Declared func(prefix []byte) (n int64, ok bool)
}

var errBadEncoding = errors.New("intake: body not decodable")

// ReadDecoded reads r's body as ReadBody does, under lim instead of the
// REST limits and undoing dec's coding (nil: none). Every buffer is
// reserved in the memory budget before it is allocated, and so is the
// decoder's Memory, handed back as soon as the body is decoded, as is the
// body as sent. A refusal returns the metrics reason and the problem: 413
// payload-too-large, 400 malformed-body, or 503 overloaded when the budget
// stays spent. Its buffers count to the share of org, the organization of
// the request's project (a body whose key is in the body itself is read
// with ReadHead instead). The caller must Release the body.
func (in *Intake) ReadDecoded(ctx context.Context, r *http.Request, org string, lim Limits, dec *Decoding) (*Body, string, *problem.Problem) {
	if r.ContentLength > lim.Wire {
		return nil, metrics.RefusedTooLarge, tooLargeOnWire(lim)
	}
	body := &Body{res: in.Memory.ReserveFor(org)}
	wire, err := body.readAll(ctx, r.Body, r.ContentLength, lim.Wire)
	if err != nil {
		body.Release()
		if errors.Is(err, errTooLarge) {
			return nil, metrics.RefusedTooLarge, tooLargeOnWire(lim)
		}
		reason, pr := readRefusal(err)
		return nil, reason, pr
	}
	if dec != nil {
		if len(body.bufs) == 0 { // an empty body: no buffer, and no stream of its encoding
			body.Release()
			return nil, metrics.RefusedMalformed, problem.New("malformed-body", "the body is empty: not what its Content-Encoding says")
		}
		sent := body.bufs[len(body.bufs)-1] // wire's buffer
		plain, err := body.decode(ctx, wire, lim, dec)
		if err != nil {
			body.Release()
			if errors.Is(err, errTooLarge) {
				return nil, metrics.RefusedTooLarge, problem.New("payload-too-large",
					"the body is over "+mib(lim.Decoded)+" once decompressed")
			}
			reason, pr := readRefusal(err)
			return nil, reason, pr
		}
		body.free(sent)
		wire = plain
	}
	body.Bytes = wire
	return body, "", nil
}

// decode reads wire through dec's decoder into a new buffer of at most
// lim.Decoded bytes, with the decoder's memory reserved while it runs.
func (b *Body) decode(ctx context.Context, wire []byte, lim Limits, dec *Decoding) ([]byte, error) {
	before := b.res.Held()
	if err := b.res.Grow(ctx, dec.Memory); err != nil {
		if errors.Is(err, ErrMemoryBusy) {
			return nil, err
		}
		return nil, errUnreadable
	}
	defer b.res.Shrink(b.res.Held() - before)
	rc, err := dec.Open(bytes.NewReader(wire))
	if err != nil {
		return nil, errBadEncoding
	}
	defer rc.Close()
	hint := min(max(int64(len(wire))*4, 64<<10), lim.Decoded)
	plain, err := b.readAll(ctx, rc, hint, lim.Decoded)
	if errors.Is(err, errUnreadable) {
		return nil, errBadEncoding
	}
	return plain, err
}

// readRefusal is the refusal of a body that could not be read or decoded.
func readRefusal(err error) (string, *problem.Problem) {
	switch {
	case errors.Is(err, ErrMemoryBusy):
		return metrics.RefusedMemory, overloaded(metrics.RefusedMemory)
	case errors.Is(err, errBadEncoding):
		return metrics.RefusedMalformed, problem.New("malformed-body", "the body could not be decompressed as its Content-Encoding says")
	default:
		return metrics.RefusedMalformed, problem.New("malformed-body", "the body could not be read")
	}
}

func tooLargeOnWire(lim Limits) *problem.Problem {
	return problem.New("payload-too-large", "the body is over "+mib(lim.Wire)+" as sent")
}

// mib writes a limit in MiB.
func mib(n int64) string { return strconv.FormatInt(n>>20, 10) + " MiB" }
