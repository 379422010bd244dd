package otlp

import (
	"errors"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
)

// pdata decodes OTLP recursively without a depth limit: a 20 MiB request of
// nothing but nested array values (a few KiB gzipped) overflows the
// goroutine stack, a fatal error that no recover catches. Every body is
// therefore checked for nesting before pdata sees it.

// Nesting limits: far above anything real OTLP needs (attributes deeper
// than ingest.MaxAttributesDepth are rejected per record anyway).
const (
	maxProtoNesting = 200 // messages within messages
	maxJSONNesting  = 400 // objects and arrays within each other
)

var (
	errTooDeep   = errors.New("the request is nested too deeply")
	errMalformed = errors.New("the request is not valid protobuf")
)

// Message kinds of an OTLP logs request whose fields may nest.
const (
	kRequest = iota
	kResourceLogs
	kResource
	kScopeLogs
	kScope
	kLogRecord
	kKeyValue
	kAnyValue
	kArrayValue
	kKeyValueList
)

// submessages maps each kind's message-typed field numbers to their kinds
// (opentelemetry-proto logs/v1 and common/v1); other fields are skipped.
var submessages = [...]map[protowire.Number]int{
	kRequest:      {1: kResourceLogs},
	kResourceLogs: {1: kResource, 2: kScopeLogs},
	kResource:     {1: kKeyValue},
	kScopeLogs:    {1: kScope, 2: kLogRecord},
	kScope:        {3: kKeyValue},
	kLogRecord:    {5: kAnyValue, 6: kKeyValue},
	kKeyValue:     {2: kAnyValue},
	kAnyValue:     {5: kArrayValue, 6: kKeyValueList},
	kArrayValue:   {1: kAnyValue},
	kKeyValueList: {1: kKeyValue},
}

// checkProto walks an ExportLogsServiceRequest in protobuf and fails when
// messages nest deeper than maxProtoNesting or the wire format is broken.
func checkProto(b []byte) error { return walkProto(b, kRequest, 1) }

func walkProto(b []byte, kind, depth int) error {
	if depth > maxProtoNesting {
		return errTooDeep
	}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errMalformed
		}
		b = b[n:]
		if sub, ok := submessages[kind][num]; ok && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return errMalformed
			}
			if err := walkProto(v, sub, depth+1); err != nil {
				return err
			}
			b = b[n:]
			continue
		}
		if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
			return errMalformed
		}
		b = b[n:]
	}
	return nil
}

// checkJSON fails when JSON objects and arrays nest deeper than
// maxJSONNesting. It does not validate the JSON: pdata does.
func checkJSON(b []byte) error {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > maxJSONNesting {
				return errTooDeep
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// guardedCodec is the gRPC "proto" codec (pdata's, which replaced grpc's
// own) with checkProto run on every request it decodes for our service.
type guardedCodec struct{ encoding.CodecV2 }

func newGuardedCodec() guardedCodec { return guardedCodec{encoding.GetCodecV2("proto")} }

// rawMessage is a message kept as its protobuf bytes: the Export handler
// decodes requests with pdata itself and encodes its answers the same way.
// err is why the bytes received cannot be decoded (checkProto).
type rawMessage struct {
	b   []byte
	err error
}

// Unmarshal checks the nesting of data, then keeps it (a rawMessage) or
// decodes it as the delegate does. A rawMessage that fails the check keeps
// the failure for the handler to answer INVALID_ARGUMENT: gRPC answers a
// codec's error INTERNAL itself, a server's fault to the client.
func (c guardedCodec) Unmarshal(data mem.BufferSlice, v any) error {
	b := data.Materialize()
	m, raw := v.(*rawMessage)
	if err := checkProto(b); err != nil {
		if raw {
			m.b, m.err = nil, err
			return nil
		}
		return err
	}
	if raw {
		m.b = b
		return nil
	}
	return c.CodecV2.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, v)
}

// Marshal sends a rawMessage's bytes as they are, anything else as the
// delegate encodes it.
func (c guardedCodec) Marshal(v any) (mem.BufferSlice, error) {
	if m, ok := v.(*rawMessage); ok {
		return mem.BufferSlice{mem.SliceBuffer(m.b)}, nil
	}
	return c.CodecV2.Marshal(v)
}
