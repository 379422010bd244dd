package ingest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/klauspost/compress/s2"

	"github.com/errata-dev/errata/internal/wire"
)

// payloadV1 starts every payload written by EncodePayload.
const payloadV1 = 0xE1

// payloadV2 starts a payload of EncodePayload in which some event has a
// Detail: each event's attributes are followed by its detail.
const payloadV2 = 0xE3

// payloadS2 starts a payload written by CompressPayload: the rest is an S2
// block of a payloadV1 payload.
const payloadS2 = 0xE2

// MaxPayloadBytes caps one queued batch's payload before compression.
// Intake splits a batch whose payload would be larger into smaller batches
// (a thousand events at the largest limits, with every U+0000 widened to
// U+FFFD, could reach about 290 MiB), so DecodePayload can refuse a
// compressed block that claims more as corrupt without refusing anything
// that was accepted.
const MaxPayloadBytes = 64 << 20

// CompressBound is the most bytes CompressPayload takes for a payload of n
// bytes (the capacity it grows dst by): what a memory budget reserves.
func CompressBound(n int) int { return 1 + s2.MaxEncodedLen(n) }

// EncodePayload writes events in the queue's compact binary form: a version
// byte, the event count, then per event its level, its timestamp and its
// strings, each with a length prefix. It is several times cheaper than JSON
// both ways, and the consumers read it without a JSON parser (attributes
// stay a JSON object and are parsed only when needed).
func EncodePayload(events []Event) ([]byte, error) {
	return AppendPayload(nil, events), nil
}

// AppendPayload is EncodePayload appending to dst, so that a caller can
// reuse one buffer for many batches.
func AppendPayload(dst []byte, events []Event) []byte {
	size := 1 + binary.MaxVarintLen64
	version := byte(payloadV1)
	for i := range events {
		e := &events[i]
		size += 1 + binary.MaxVarintLen64 + 9*binary.MaxVarintLen32 +
			len(e.Service) + len(e.Environment) + len(e.Release) + len(e.Message) +
			len(e.StackTrace) + len(e.TraceID) + len(e.SpanID) + len(e.Attributes) + len(e.Detail)
		if len(e.Detail) > 0 {
			version = payloadV2
		}
	}
	b := slices.Grow(dst, size)
	b = append(b, version)
	b = binary.AppendUvarint(b, uint64(len(events)))
	for i := range events {
		e := &events[i]
		b = append(b, byte(e.Level))
		b = binary.AppendVarint(b, e.Timestamp)
		for _, s := range [...]string{e.Service, e.Environment, e.Release, e.Message, e.StackTrace, e.TraceID, e.SpanID} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		b = binary.AppendUvarint(b, uint64(len(e.Attributes)))
		b = append(b, e.Attributes...)
		if version == payloadV2 {
			b = binary.AppendUvarint(b, uint64(len(e.Detail)))
			b = append(b, e.Detail...)
		}
	}
	return b
}

// CompressPayload appends to dst the payload p (as AppendPayload wrote it)
// compressed with S2, a Snappy extension that compresses at several hundred
// megabytes a second per core and decompresses faster still. The queue's
// payloads are about a quarter of their size this way, and writing them is
// what a durable commit spends most of its time on (docs/decisions.md). dst
// must not overlap p.
func CompressPayload(dst, p []byte) []byte {
	n := s2.MaxEncodedLen(len(p))
	if n < 0 {
		panic("ingest: payload too large to compress")
	}
	dst = slices.Grow(dst, CompressBound(len(p)))
	dst = append(dst, payloadS2)
	enc := s2.Encode(dst[len(dst):len(dst)+n], p)
	return dst[:len(dst)+len(enc)]
}

var errPayload = errors.New("ingest: corrupt payload")

// DecodePayload reads what EncodePayload or CompressPayload wrote. The
// events' strings and attributes alias b (or, for a compressed payload, a
// buffer of their own), without a copy: b must not change afterwards
// (payloads read from the store are fresh buffers that nothing else holds).
func DecodePayload(b []byte) ([]Event, error) {
	if len(b) > 0 && b[0] == payloadS2 {
		n, err := s2.DecodedLen(b[1:])
		if err != nil || n > MaxPayloadBytes {
			return nil, fmt.Errorf("%w: bad compressed block", errPayload)
		}
		raw, err := s2.Decode(make([]byte, n), b[1:])
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errPayload, err)
		}
		b = raw
	}
	if len(b) == 0 || (b[0] != payloadV1 && b[0] != payloadV2) {
		return nil, fmt.Errorf("%w: unknown version", errPayload)
	}
	withDetail := b[0] == payloadV2
	// The payload backs every string and attributes object of the batch:
	// slicing it costs no allocation per field, and viewing it as a string
	// costs no copy of half a megabyte per batch.
	raw := b[1:]
	all := unsafe.String(unsafe.SliceData(raw), len(raw))
	r := wire.Reader{B: raw, Bad: errPayload}
	at := func(x []byte) string { return all[len(raw)-len(r.B)-len(x) : len(raw)-len(r.B)] }
	n := r.Uvarint()
	if r.Err != nil || n > MaxEvents*64 {
		return nil, errPayload
	}
	events := make([]Event, n)
	for i := range events {
		e := &events[i]
		e.Level = Level(r.Byte())
		e.Timestamp = r.Varint()
		for _, s := range [...]*string{&e.Service, &e.Environment, &e.Release, &e.Message, &e.StackTrace, &e.TraceID, &e.SpanID} {
			*s = at(r.Bytes())
		}
		if a := r.Bytes(); len(a) > 0 {
			e.Attributes = a[:len(a):len(a)]
		}
		if withDetail {
			if a := r.Bytes(); len(a) > 0 {
				e.Detail = a[:len(a):len(a)]
			}
		}
		if r.Err != nil {
			return nil, r.Err
		}
	}
	if len(r.B) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", errPayload, len(r.B))
	}
	return events, nil
}
