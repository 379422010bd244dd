package loadgen

import (
	"time"

	"github.com/errata-dev/errata/internal/ingest"
)

// EncodeBatch appends the POST /v1/ingest body of b to dst and returns it
// with the summed encoded size of its events (their share of the body).
func EncodeBatch(dst []byte, b *Batch) ([]byte, int) { return encodeBatch(dst, b, nil) }

// encodeBatch is EncodeBatch, noting where each timestamp went in stamps
// unless it is nil.
func encodeBatch(dst []byte, b *Batch, stamps *[]stamp) ([]byte, int) {
	dst = append(dst, `{"service":`...)
	dst = appendString(dst, b.Service)
	dst = append(dst, `,"environment":`...)
	dst = appendString(dst, b.Environment)
	dst = append(dst, `,"release":`...)
	dst = appendString(dst, b.Release)
	dst = append(dst, `,"events":[`...)
	size := 0
	for i := range b.Events {
		if i > 0 {
			dst = append(dst, ',')
		}
		n := len(dst)
		dst = appendEvent(dst, &b.Events[i], nil, stamps)
		size += len(dst) - n
	}
	return append(dst, "]}"...), size
}

// EncodeJSONL appends b as newline-delimited JSON to dst: one event object
// per line, with the batch's service, environment and release merged into
// each, as log shippers send them. It returns the summed size of the lines
// without their newlines.
func EncodeJSONL(dst []byte, b *Batch) ([]byte, int) { return encodeJSONL(dst, b, nil) }

// encodeJSONL is EncodeJSONL, noting where each timestamp went in stamps
// unless it is nil.
func encodeJSONL(dst []byte, b *Batch, stamps *[]stamp) ([]byte, int) {
	size := 0
	for i := range b.Events {
		n := len(dst)
		dst = appendEvent(dst, &b.Events[i], b, stamps)
		size += len(dst) - n
		dst = append(dst, '\n')
	}
	return dst, size
}

// appendEvent appends ev as a JSON object; with merge set, the batch-level
// fields come first. An empty timestamp is left out (the server stamps the
// time of receipt); with stamps set, where the timestamp went is noted.
func appendEvent(dst []byte, ev *Event, merge *Batch, stamps *[]stamp) []byte {
	dst = append(dst, '{')
	if merge != nil {
		dst = append(dst, `"service":`...)
		dst = appendString(dst, merge.Service)
		dst = append(dst, `,"environment":`...)
		dst = appendString(dst, merge.Environment)
		dst = append(dst, `,"release":`...)
		dst = appendString(dst, merge.Release)
		dst = append(dst, ',')
	}
	if ev.Timestamp != "" {
		dst = append(dst, `"timestamp":`...)
		dst = appendStampField(dst, ev.Timestamp, ev.ago, stamps)
		dst = append(dst, ',')
	}
	dst = append(dst, `"level":`...)
	dst = appendString(dst, ev.Level)
	dst = append(dst, `,"message":`...)
	dst = appendString(dst, ev.Message)
	if ev.StackTrace != "" {
		dst = append(dst, `,"stack_trace":`...)
		dst = appendString(dst, ev.StackTrace)
	}
	if ev.TraceID != "" {
		dst = append(dst, `,"trace_id":`...)
		dst = appendString(dst, ev.TraceID)
		dst = append(dst, `,"span_id":`...)
		dst = appendString(dst, ev.SpanID)
	}
	if len(ev.Attributes) > 0 {
		dst = append(dst, `,"attributes":{`...)
		for i, a := range ev.Attributes {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, a.Key)
			dst = append(dst, ':')
			if a.Num {
				dst = append(dst, a.Value...)
			} else {
				dst = appendString(dst, a.Value)
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendStampField appends the timestamp ts as a JSON string, noting in
// stamps (unless nil) where it went when it has the fixed width that can
// be written again in place.
func appendStampField(dst []byte, ts string, ago time.Duration, stamps *[]stamp) []byte {
	if stamps != nil && len(ts) == stampLen {
		*stamps = append(*stamps, stamp{at: len(dst) + 1, ago: ago})
	}
	return appendString(dst, ts)
}

// appendString appends s as a JSON string (ingest.AppendJSONString).
func appendString(dst []byte, s string) []byte {
	dst, _ = ingest.AppendJSONString(dst, s, false)
	return dst
}
