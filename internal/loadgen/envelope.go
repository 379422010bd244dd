package loadgen

import (
	"strconv"
	"strings"
)

// sentryPlatforms are the Sentry platform names of the generator's
// languages.
var sentryPlatforms = [numLangs]string{langGo: "go", langJava: "java", langPython: "python", langNode: "node"}

// EncodeEnvelope appends b as a Sentry envelope to dst, one event item per
// event, in the shape SDKs send: the envelope header with the event id,
// then the event with its level, tags (the service among them), trace
// context and user, and, for events with a stack trace, an exception whose
// frames are the template's call stack. SDKs send one event per envelope:
// with --target sentry batches hold one event. It returns the envelope
// with the summed size of the event payloads. Events without a timestamp
// leave it out, and the envelope its sent_at.
func (g *Generator) EncodeEnvelope(dst []byte, b *Batch) ([]byte, int) {
	return g.encodeEnvelope(dst, b, nil)
}

// encodeEnvelope is EncodeEnvelope, noting where each timestamp (sent_at
// among them) went in stamps unless it is nil.
func (g *Generator) encodeEnvelope(dst []byte, b *Batch, stamps *[]stamp) ([]byte, int) {
	dst = append(dst, `{"event_id":"`...)
	dst = appendEventID(dst, b.Index, 0)
	dst = append(dst, '"')
	if b.Events[0].Timestamp != "" {
		dst = append(dst, `,"sent_at":`...)
		dst = appendStampField(dst, string(appendStamp(nil, b.At)), 0, stamps)
	}
	dst = append(dst, `,"sdk":{"name":"errata.loadgen","version":"1"}}`+"\n"...)
	size := 0
	var payload []byte
	var inPayload []stamp
	for j := range b.Events {
		inPayload = inPayload[:0]
		payload = g.appendSentryEvent(payload[:0], b, j, &inPayload)
		size += len(payload)
		dst = append(dst, `{"type":"event","content_type":"application/json","length":`...)
		dst = strconv.AppendInt(dst, int64(len(payload)), 10)
		dst = append(dst, "}\n"...)
		if stamps != nil {
			for _, s := range inPayload {
				*stamps = append(*stamps, stamp{at: len(dst) + s.at, ago: s.ago})
			}
		}
		dst = append(dst, payload...)
		dst = append(dst, '\n')
	}
	return dst, size
}

// appendEventID appends a deterministic 32-digit event id for event j of
// batch i.
func appendEventID(dst []byte, i, j int) []byte {
	id := strconv.FormatUint(uint64(i)<<12|uint64(j), 16)
	dst = append(dst, strings.Repeat("0", 32-len(id))...)
	return append(dst, id...)
}

// appendSentryEvent appends event j of b as a Sentry event payload,
// noting where its timestamp went in stamps.
func (g *Generator) appendSentryEvent(dst []byte, b *Batch, j int, stamps *[]stamp) []byte {
	ev := &b.Events[j]
	t := &g.templates[ev.Template]
	dst = append(dst, `{"event_id":"`...)
	dst = appendEventID(dst, b.Index, j)
	dst = append(dst, '"')
	if ev.Timestamp != "" {
		dst = append(dst, `,"timestamp":`...)
		dst = appendStampField(dst, ev.Timestamp, ev.ago, stamps)
	}
	level := ev.Level
	if level == "warn" {
		level = "warning" // Sentry's name
	}
	dst = append(dst, `,"level":"`+level+`","platform":"`+sentryPlatforms[t.lang]+`","environment":`...)
	dst = appendString(dst, b.Environment)
	dst = append(dst, `,"release":`...)
	dst = appendString(dst, b.Release)
	if ev.StackTrace == "" {
		dst = append(dst, `,"message":`...)
		dst = appendString(dst, ev.Message)
	} else {
		dst = append(dst, `,"exception":{"values":[{"type":`...)
		typ := t.exc
		if t.lang == langGo {
			typ = "*errors.errorString"
		}
		dst = appendString(dst, typ)
		dst = append(dst, `,"value":`...)
		dst = appendString(dst, ev.Message)
		dst = append(dst, `,"stacktrace":{"frames":[`...)
		for k := len(t.frames) - 1; k >= 0; k-- { // Sentry lists the oldest call first
			if k < len(t.frames)-1 {
				dst = append(dst, ',')
			}
			dst = appendFrame(dst, t.lang, &t.frames[k])
		}
		dst = append(dst, `]}}]}`...)
	}
	dst = append(dst, `,"tags":{"service":`...)
	dst = appendString(dst, b.Service)
	var user string
	for _, a := range ev.Attributes {
		if a.Key == "user_id" {
			user = a.Value
			continue
		}
		dst = append(dst, ',')
		dst = appendString(dst, a.Key)
		dst = append(dst, ':')
		dst = appendString(dst, a.Value)
	}
	dst = append(dst, '}')
	if ev.TraceID != "" {
		dst = append(dst, `,"contexts":{"trace":{"trace_id":"`+ev.TraceID+`","span_id":"`+ev.SpanID+`"}}`...)
	}
	if user != "" {
		dst = append(dst, `,"user":{"id":`...)
		dst = appendString(dst, user)
		dst = append(dst, '}')
	}
	return append(dst, `,"sdk":{"name":"errata.loadgen","version":"1"}}`...)
}

// appendFrame appends one stack frame as the platform's SDK names it.
func appendFrame(dst []byte, l lang, f *frame) []byte {
	var fn, module, file string
	switch l {
	case langGo:
		fn, module, file = "(*"+f.typ+")."+title(f.fn), "acme/"+f.pkg, "/app/"+f.pkg+"/"+f.file+".go"
	case langJava:
		fn, module, file = f.fn, "com.acme."+f.pkg+"."+title(f.file)+f.typ, title(f.file)+f.typ+".java"
	case langPython:
		fn, module, file = f.fn, f.pkg+"."+f.file, "/app/"+f.pkg+"/"+f.file+".py"
	default:
		fn, module, file = f.typ+"."+f.fn, "", "/app/src/"+f.pkg+"/"+f.file+".js"
	}
	dst = append(dst, `{"function":`...)
	dst = appendString(dst, fn)
	if module != "" {
		dst = append(dst, `,"module":`...)
		dst = appendString(dst, module)
	}
	dst = append(dst, `,"filename":`...)
	dst = appendString(dst, file)
	dst = append(dst, `,"lineno":`...)
	dst = strconv.AppendInt(dst, int64(f.line), 10)
	return append(dst, `,"in_app":true}`...)
}
