package intake

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/problem"
)

// maxHeadWire is the most of a keyless body read as sent, compressed with
// a coding whose decoder needs more than an address's share (readSent),
// while looking for its first line. A first line that takes more than this
// to decode cannot authenticate: Sentry SDKs write the envelope header
// first, and brotli and zstd give it back within the first kilobytes
// (zstd within its first block, at most 128 KiB decoded).
const maxHeadWire = 1 << 20

// readSent reads the first line of a keyless body whose decoder needs more
// memory than one address's share of the unauthenticated budget (br and
// zstd with the default budget). Such a decoder is never left running
// over a connection that may stall: the body is read as sent, in chunks
// that double, each reserved in the address's share, and each time a
// chunk is full (or the body ends) a decoder runs over the bytes already
// in memory, its memory reserved from the unauthenticated share only while
// it decodes, until the first line comes out. A client that sends a few
// bytes and stalls holds those bytes, not a decoder's window. Finish then
// reads the rest as sent and decodes the whole body once more, under the
// key's organization's share.
func (k *Keyless) readSent(ctx context.Context, in *Intake, dec *Decoding) error {
	k.whole = dec
	for size := int64(firstRead); ; size = min(2*size, maxHeadWire) {
		buf, err := k.body.alloc(ctx, size, size)
		if err != nil {
			return err
		}
		n := 0
		if k.sent != nil {
			n = copy(*buf, *k.sent)
			k.body.free(k.sent)
		}
		m, eof, err := fill(k.wire, (*buf)[n:])
		*buf = (*buf)[:n+m]
		k.sent, k.sentEOF = buf, eof
		if err != nil {
			return errUnreadable
		}
		found, err := k.peekHead(ctx, in, dec)
		if err != nil || found || eof || size >= maxHeadWire {
			return err
		}
	}
}

// peekHead runs dec's decoder over the body read so far and keeps its
// first line as the head. found is true once the head is whole: a newline
// came, or the decoded body ended; MaxHeadBytes without one is
// errHeadTooLong. A stream that is not what its coding says is
// errBadEncoding; one merely cut short by the end of what was read is
// not an error until the body has ended.
func (k *Keyless) peekHead(ctx context.Context, in *Intake, dec *Decoding) (found bool, err error) {
	if k.headBuf != nil {
		k.body.free(k.headBuf)
		k.head, k.headBuf = nil, nil
	}
	// The decoder runs over bytes in memory, so it holds its memory for
	// as long as the CPU takes, whatever the client does: within the
	// unauthenticated share, beside what the request already holds there
	// and the head it decodes into, but not within its address's share.
	// What it reserves is what the stream declares (its window), at most
	// a third of the share, so that other addresses' decodes fit beside
	// it and the bodies it reads, and an address decodes one first line at
	// a time (turns): a client sending many keyless bodies at once cannot
	// keep the others' from decoding. A decoder that may need more (a
	// 16 MiB brotli window, zstd's 9 MiB, with the default budget) is
	// counted as a third of the share for the milliseconds it decodes: at
	// most three run at once, so what they hold beyond it stays bounded.
	b := in.Memory
	res := b.ReserveUnauthenticated("")
	defer res.Release()
	began := time.Now()
	done, err := b.peeks.take(ctx, k.addr, b.wait)
	if err != nil {
		return false, memoryErr(err)
	}
	defer done()
	res.waited = time.Since(began)
	mem := dec.Memory
	if dec.Declared != nil {
		if n, ok := dec.Declared(*k.sent); ok {
			mem = n
		}
	}
	share := b.share(unauthenticated)
	if err := res.Grow(ctx, min(mem, share/3, share-k.body.res.Held()-2*MaxHeadBytes)); err != nil {
		return false, memoryErr(err)
	}
	rc, err := dec.Open(bytes.NewReader(*k.sent))
	if err != nil {
		return false, errBadEncoding
	}
	defer rc.Close()
	err = k.readHead(ctx, rc)
	switch {
	case errors.Is(err, ErrMemoryBusy) || errors.Is(err, errTooLarge) || errors.Is(err, errHeadTooLong):
		return false, err
	case k.eof || bytes.IndexByte(k.head, '\n') >= 0:
		return true, nil
	case err == nil || !k.sentEOF:
		return false, nil // cut short by the end of what was read: read more
	}
	return false, errBadEncoding
}

// finishSent reads the rest of a body read by readSent, as sent, and
// decodes the whole of it under the organization's share, which already
// holds what was read.
func (k *Keyless) finishSent(ctx context.Context) (string, *problem.Problem) {
	body := k.body
	if k.headBuf != nil {
		body.free(k.headBuf)
		k.head, k.headBuf = nil, nil
	}
	wire := *k.sent
	if !k.sentEOF {
		rest, err := body.readAll(ctx, k.wire, -1, k.lim.Wire-int64(len(wire)))
		if err != nil {
			return k.fail(err)
		}
		if len(rest) > 0 {
			n := int64(len(wire) + len(rest))
			all, err := body.alloc(ctx, n, n)
			if err != nil {
				return k.fail(err)
			}
			copy((*all)[copy(*all, wire):], rest)
			body.free(k.sent)
			body.freeBytes(rest)
			k.sent, wire = all, *all
		}
	}
	plain, err := body.decode(ctx, wire, k.lim, k.whole)
	if err != nil {
		reason, pr := decodeRefusal(err, k.lim)
		k.Release()
		return reason, pr
	}
	body.free(k.sent)
	k.sent = nil
	body.Bytes = plain
	return "", nil
}

// decodeRefusal is the refusal of a body as sent that could not be
// decoded (Body.decode).
func decodeRefusal(err error, lim Limits) (string, *problem.Problem) {
	if errors.Is(err, errTooLarge) {
		return metrics.RefusedTooLarge, problem.New("payload-too-large",
			"the body is over "+mib(lim.Decoded)+" once decompressed")
	}
	return readRefusal(err)
}
