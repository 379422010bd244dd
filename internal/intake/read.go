package intake

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"sync"
)

// A body is read in chunks of at most chunkSize, each reserved in the
// budget just before it is read into (CONTRACT 8): the reservation grows
// with the bytes that actually arrive, never by a declared Content-Length
// up front. The first chunk is small (firstRead) whatever the body
// announces, and each next one at most as large as what arrived so far, so
// that a request whose body stalls holds about twice what it sent, and one
// that announces a large body and sends nothing holds firstRead. A body refused at the limit hands its
// chunks back to a pool where the next one reuses them, instead of leaving
// the garbage of a buffer doubled up to the limit. A body that ends up in
// several pieces is copied once into one buffer of its size.
const (
	firstRead = 4 << 10
	chunkSize = 256 << 10
)

// maxDeflateRatio bounds what DEFLATE inflates one byte to (258 bytes
// from a few bits: about 1032 to 1).
const maxDeflateRatio = 1032

// gzipSize returns the size a gzip body says it inflates to: the ISIZE
// trailer of its last member (RFC 1952), which the gzip reader checks at
// the end of that member, so a body whose trailer says more than the
// limit is refused whatever it holds (too large, or corrupt). ok is false
// when the trailer cannot be the truth (more than DEFLATE can inflate the
// body to) or the body is too short to have one.
func gzipSize(body []byte) (size int64, ok bool) {
	if len(body) < 18 { // header and trailer of an empty member
		return 0, false
	}
	size = int64(binary.LittleEndian.Uint32(body[len(body)-4:]))
	return size, size <= maxDeflateRatio*int64(len(body))
}

// readAll reads src into memory, at most limit bytes, in chunks (see
// chunkSize): hint, when the size is announced (hint >= 0), sizes the chunks
// so that they add up to it and one byte more, never reserving more than a
// chunk ahead of what arrived. Every buffer is reserved in the budget
// before it is taken. Past limit it returns errTooLarge.
func (b *Body) readAll(ctx context.Context, src io.Reader, hint, limit int64) ([]byte, error) {
	var parts [][]byte
	var total int64
	for eof, size := false, nextChunk(hint, 0); !eof; size = nextChunk(hint, total) {
		buf, err := b.alloc(ctx, min(size, limit+1-total), limit+1-total)
		if err != nil {
			return nil, err
		}
		var n int
		n, eof, err = fill(src, *buf)
		total += int64(n)
		switch {
		case total > limit:
			return nil, errTooLarge
		case err != nil:
			return nil, errUnreadable
		case n == 0:
			b.free(buf)
		default:
			parts = append(parts, (*buf)[:n])
		}
	}
	switch len(parts) {
	case 0:
		return []byte{}, nil
	case 1:
		return parts[0], nil
	}
	out, err := b.alloc(ctx, total, total)
	if err != nil {
		return nil, err
	}
	at := 0
	for _, p := range parts {
		at += copy((*out)[at:], p)
		b.freeBytes(p)
	}
	return (*out)[:total], nil
}

// nextChunk is the size of the chunk to read after total bytes of a body
// announced as hint bytes (-1: unknown): as large as what arrived (at
// least firstRead, at most chunkSize), and no more than the announced rest
// and one byte, which tells a body longer than announced.
func nextChunk(hint, total int64) int64 {
	size := min(max(total, firstRead), chunkSize)
	if hint >= 0 && hint+1-total > 0 {
		size = min(size, hint+1-total)
	}
	return size
}

// fill reads src into buf until buf is full or src ends (eof). Unlike
// io.ReadFull it tells the end of src from a reader that fails with
// io.ErrUnexpectedEOF (a truncated gzip stream).
func fill(src io.Reader, buf []byte) (n int, eof bool, err error) {
	for n < len(buf) {
		m, err := src.Read(buf[n:])
		n += m
		if errors.Is(err, io.EOF) {
			return n, true, nil
		}
		if err != nil {
			return n, false, err
		}
	}
	return n, false, nil
}

// alloc reserves and takes a buffer of at least size bytes and at most
// most. What is reserved is the buffer's whole capacity: a pooled buffer
// may be much larger than asked for (up to maxPooledBuf), and the budget
// must bound the memory held, not the bytes asked for. A pooled buffer is
// used to its capacity (up to most), which saves reading more pieces.
func (b *Body) alloc(ctx context.Context, size, most int64) (*[]byte, error) {
	p := pooledBuf(int(size))
	want := size
	if p != nil {
		want = int64(cap(*p))
	} else if size <= maxPooledBuf {
		want = classSize(size) // so that it goes back to the class it is taken from
	}
	if err := b.res.Grow(ctx, want); err != nil {
		if p != nil {
			putBuf(p)
		}
		if errors.Is(err, ErrMemoryBusy) {
			return nil, err
		}
		return nil, errUnreadable
	}
	if p == nil {
		s := make([]byte, size, want)
		p = &s
	}
	*p = (*p)[:min(int64(cap(*p)), most)]
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
	b.res.Shrink(int64(cap(*p)))
	putBuf(p)
}

// freeBytes frees the buffer that s starts.
func (b *Body) freeBytes(s []byte) {
	for _, p := range b.bufs {
		if len(*p) > 0 && &(*p)[0] == &s[0] {
			b.free(p)
			return
		}
	}
}

// Buffers of up to maxPooledBuf bytes are recycled: at full load they
// would otherwise be most of what the garbage collector sees. They are
// pooled by size class (class k holds capacities from 2^k to 2^(k+1)-1),
// so that a small read never takes, and reserves, a large buffer, and
// chunks always find one another.
const maxPooledBuf = 1 << maxPooledClass

const maxPooledClass = 23 // 8 MiB

var bufPools [maxPooledClass + 1]sync.Pool

// pooledBuf returns a pooled buffer of at least size bytes and less than
// four times that, or nil when there is none at hand (the caller then reserves
// and allocates one).
func pooledBuf(size int) *[]byte {
	k := class(int64(size))
	if k >= len(bufPools) {
		return nil
	}
	p, _ := bufPools[k].Get().(*[]byte)
	return p
}

// class is the smallest k with 2^k >= size: the pool whose every buffer
// holds size bytes.
func class(size int64) int { return bits.Len64(uint64(max(size, 1) - 1)) }

// classSize is the capacity of the buffers that class(size) pools.
func classSize(size int64) int64 { return 1 << class(size) }

func putBuf(p *[]byte) {
	if c := cap(*p); c > 0 && c <= maxPooledBuf {
		bufPools[bits.Len(uint(c))-1].Put(p)
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
