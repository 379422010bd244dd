package intake

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/problem"
)

// MaxHeadBytes is the most of a body read, decoded, before the request's
// key is known: a Sentry envelope that carries its DSN in its header is
// authenticated by its first line, and nothing after it is read until then
// (CONTRACT 8). A first line longer than this cannot authenticate.
const MaxHeadBytes = 64 << 10

// maxHeadBuf is what is read at most looking for the first line: the line
// and its newline.
const maxHeadBuf = MaxHeadBytes + 1

// errHeadTooLong is a first line over MaxHeadBytes: no key can be read
// from it (refused as unauthorized, read no further).
var errHeadTooLong = errors.New("intake: the first line is over 64 KiB")

// Keyless is a request body whose key is in its first line, read as far as
// that line under the unauthenticated share of the memory budget
// (ReadHead). Once the key is known, Finish reads the rest under the
// organization's share; Release gives everything back either way.
type Keyless struct {
	body    *Body
	head    []byte  // the decoded bytes read so far: the first line and perhaps more
	headBuf *[]byte // head's buffer
	eof     bool    // the body ended within head
	wire    *wireLimit
	src     io.Reader // the decoded body after head
	dec     io.Closer // the decoder, nil without one
	mem     int64     // the decoder's reserved memory
	lim     Limits
	// hint is the decoded size still to come when it is known (a body
	// without coding and with a Content-Length), else -1.
	hint int64
	// whole is the coding of a body read as sent (readSent), decoded
	// whole by Finish; nil when the body is decoded as it arrives.
	whole   *Decoding
	sent    *[]byte // what readSent read of the body as sent
	sentEOF bool    // the body ended within sent
	addr    string  // the client address (ClientIP.Key), "" when unknown
}

// ReadHead starts reading r's body before its key is known: it reserves
// from the budget's unauthenticated share (ReserveUnauthenticated), opens
// dec's decoder over the body as it arrives (nil: none) and reads the
// decoded body up to the end of its first line, MaxHeadBytes at most. A
// coding whose decoder needs more memory than one address's
// unauthenticated share (Budget.AddrShare: br and zstd with the default
// budget) is not decoded as the body arrives but read as sent first
// (readSent). A refusal returns the metrics reason and the problem: 413
// when the body is announced larger than lim.Wire, 400 malformed-body, 503
// overloaded when the unauthenticated share stays spent. The caller must
// Release what it returns.
func (in *Intake) ReadHead(ctx context.Context, r *http.Request, lim Limits, dec *Decoding) (*Keyless, string, *problem.Problem) {
	if r.ContentLength > lim.Wire {
		return nil, metrics.RefusedTooLarge, tooLargeOnWire(lim)
	}
	addr := ""
	if in.ClientIP != nil {
		addr = in.ClientIP.Key(r)
	}
	k := &Keyless{body: &Body{res: in.Memory.ReserveUnauthenticated(addr)}, wire: &wireLimit{r: r.Body, left: lim.Wire}, lim: lim, hint: -1, addr: addr}
	k.src = k.wire
	if dec == nil && r.ContentLength >= 0 {
		k.hint = r.ContentLength
	}
	if dec != nil && dec.Memory > in.Memory.AddrShare() {
		// Its decoder would hold more than the address's share for as
		// long as the client takes to send the first line.
		if err := k.readSent(ctx, in, dec); err != nil {
			reason, pr := k.fail(err)
			return nil, reason, pr
		}
		return k, "", nil
	}
	if dec != nil {
		if err := k.body.res.Grow(ctx, dec.Memory); err != nil {
			k.Release()
			reason, pr := readRefusal(memoryErr(err))
			return nil, reason, pr
		}
		k.mem = k.body.res.Held()
		rc, err := dec.Open(k.wire)
		if err != nil {
			reason, pr := k.fail(errBadEncoding)
			return nil, reason, pr
		}
		k.src, k.dec = rc, rc
	}
	if err := k.readHead(ctx, k.src); err != nil {
		reason, pr := k.fail(err)
		return nil, reason, pr
	}
	return k, "", nil
}

// memoryErr is what a failed Grow means to a reader: the budget stayed
// spent, or the request ended (unreadable).
func memoryErr(err error) error {
	if errors.Is(err, ErrMemoryBusy) {
		return err
	}
	return errUnreadable
}

// readHead reads into a buffer that starts small and doubles up to
// MaxHeadBytes, each size reserved before it is taken, until a newline or
// the end of the body.
func (k *Keyless) readHead(ctx context.Context, src io.Reader) error {
	buf, err := k.body.alloc(ctx, firstRead, firstRead)
	if err != nil {
		return err
	}
	k.headBuf = buf
	n := 0
	for {
		m, err := src.Read((*buf)[n:])
		if bytes.IndexByte((*buf)[n:n+m], '\n') >= 0 {
			n += m
			break
		}
		n += m
		if errors.Is(err, io.EOF) {
			k.eof = true
			break
		}
		if err != nil {
			return errUnreadable
		}
		if n < len(*buf) {
			continue
		}
		if n >= maxHeadBuf {
			return errHeadTooLong
		}
		size := int64(min(2*n, maxHeadBuf))
		bigger, err := k.body.alloc(ctx, size, size)
		if err != nil {
			return err
		}
		copy(*bigger, (*buf)[:n])
		k.body.free(buf)
		buf, k.headBuf = bigger, bigger
	}
	k.head = (*buf)[:n]
	if k.hint >= 0 {
		k.hint = max(k.hint-int64(n), 0)
	}
	return nil
}

// Head is the body's first line, with whatever followed it in the same read
// (the whole of what was read when no newline came within MaxHeadBytes).
func (k *Keyless) Head() []byte { return k.head }

// Finish reads the rest of the body once its key is known, org being the
// key's organization: what the request holds moves to org's share of the
// budget (waiting, within the budget's wait, for room in it) and the rest
// is read under the limits, as ReadDecoded does. It answers the whole
// decoded body, to be released by the caller (the Keyless is spent).
func (k *Keyless) Finish(ctx context.Context, org string) (*Body, string, *problem.Problem) {
	if err := k.body.res.Claim(ctx, org); err != nil {
		k.Release()
		reason, pr := readRefusal(memoryErr(err))
		return nil, reason, pr
	}
	if k.whole != nil {
		if reason, pr := k.finishSent(ctx); pr != nil {
			return nil, reason, pr
		}
		body := k.body
		k.body = nil
		return body, "", nil
	}
	body := k.body
	whole := k.head
	if !k.eof {
		rest, err := body.readAll(ctx, k.src, k.hint, k.lim.Decoded-int64(len(k.head)))
		if err != nil {
			reason, pr := k.fail(err)
			return nil, reason, pr
		}
		if len(rest) > 0 {
			n := int64(len(k.head) + len(rest))
			all, err := body.alloc(ctx, n, n)
			if err != nil {
				reason, pr := k.fail(err)
				return nil, reason, pr
			}
			copy((*all)[copy(*all, k.head):], rest)
			body.free(k.headBuf)
			body.freeBytes(rest)
			whole = *all
		}
	}
	k.closeDecoder()
	body.Bytes = whole
	k.body = nil
	return body, "", nil
}

// closeDecoder closes the decoder and gives its memory back.
func (k *Keyless) closeDecoder() {
	if k.dec != nil {
		k.dec.Close()
		k.dec = nil
		k.body.res.Shrink(k.mem)
	}
}

// Release gives back what an unfinished Keyless holds.
func (k *Keyless) Release() {
	if k.body == nil {
		return
	}
	if k.dec != nil {
		k.dec.Close()
		k.dec = nil
	}
	k.body.Release()
	k.body = nil
}

// fail releases k and returns the refusal of err.
func (k *Keyless) fail(err error) (string, *problem.Problem) {
	reason, pr := k.refusal(err)
	k.Release()
	return reason, pr
}

// refusal is the refusal of a keyless body that could not be read: over the
// wire limit, over the decoded one, or not decodable.
func (k *Keyless) refusal(err error) (string, *problem.Problem) {
	switch {
	case k.wire.over:
		return metrics.RefusedTooLarge, tooLargeOnWire(k.lim)
	case errors.Is(err, errTooLarge):
		if k.dec == nil {
			return metrics.RefusedTooLarge, tooLargeOnWire(k.lim)
		}
		return metrics.RefusedTooLarge, problem.New("payload-too-large", "the body is over "+mib(k.lim.Decoded)+" once decompressed")
	case errors.Is(err, errHeadTooLong):
		// No key can be read from it: the caller answers as to a key
		// that does not check out (the Sentry routes' one 403, CONTRACT
		// 2); the problem says why, for other callers.
		return metrics.RefusedUnauthorized, problem.New("payload-too-large",
			"the envelope's first line is over 64 KiB: a request without its key in the query (sentry_key) or X-Sentry-Auth must name its DSN within it")
	case errors.Is(err, errUnreadable) && k.dec != nil:
		err = errBadEncoding
	}
	return readRefusal(err)
}

// wireLimit reads a body as sent, failing once more than left bytes arrive.
type wireLimit struct {
	r    io.Reader
	left int64
	over bool
}

var errWireTooLarge = errors.New("intake: body over its limit as sent")

func (l *wireLimit) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, errWireTooLarge
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		l.over = true
		return n, errWireTooLarge
	}
	return n, err
}
