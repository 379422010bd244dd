package otlp

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/errata-dev/errata/internal/ingest"
)

// Attribute keys the mapping reads (OpenTelemetry semantic conventions).
const (
	attrServiceName    = "service.name"
	attrEnvironment    = "deployment.environment.name"
	attrEnvironmentOld = "deployment.environment" // before semantic conventions 1.27
	attrServiceVersion = "service.version"
	attrStacktrace     = "exception.stacktrace"
	attrExceptionMsg   = "exception.message"
	attrExceptionType  = "exception.type"
	// attrScopeName and attrEventName carry the instrumentation scope (the
	// logger's name) and the record's event name into attributes when the
	// record has room for them.
	attrScopeName = "otel.scope.name"
	attrEventName = "event.name"
)

// UnknownService is the service of records whose resource has no
// service.name (CONTRACT 6; it is also what OpenTelemetry SDKs default to).
const UnknownService = "unknown_service"

// MaxRecords caps the records accepted from one request; the rest are
// rejected in partial_success. It bounds the work of one request: accepted
// records are committed in batches of at most ingest.MaxEvents.
const MaxRecords = 64 * ingest.MaxEvents

// Result is what Map made of one export request.
type Result struct {
	// Events are the accepted records, normalised, in request order.
	Events []ingest.Event
	// Rejected counts the records left out; Reason names the first of them
	// and why, as partial_success.error_message.
	Rejected int64
	Reason   string
}

func (res *Result) reject(n int, where, why string) {
	if n == 0 {
		return
	}
	if res.Rejected == 0 {
		res.Reason = where + ": " + why
	}
	res.Rejected += int64(n)
}

// Map turns OTLP logs into ingest events, record by record: a record that
// cannot become a valid event is rejected alone (OTLP partial success), the
// others are kept. receivedAt is the timestamp of records that carry none;
// redact redacts attributes (nil: ingest.DefaultSecretKeys). Map is pure;
// see docs/decisions.md for the mapping's choices.
func Map(logs plog.Logs, receivedAt time.Time, redact *ingest.Redactor) Result {
	if redact == nil {
		redact = ingest.DefaultRedactor()
	}
	var res Result
	received := receivedAt.UnixMilli()
	rls := logs.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		rl := rls.At(i)
		where := "resource_logs[" + strconv.Itoa(i) + "]"
		base, why := resourceEvent(rl.Resource().Attributes())
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			sl := sls.At(j)
			records := sl.LogRecords()
			if why != "" {
				res.reject(records.Len(), where+".resource", why)
				continue
			}
			scope := sl.Scope().Name()
			for k := 0; k < records.Len(); k++ {
				recWhere := where + ".scope_logs[" + strconv.Itoa(j) + "].log_records[" + strconv.Itoa(k) + "]"
				if len(res.Events) >= MaxRecords {
					res.reject(1, recWhere, "more than "+strconv.Itoa(MaxRecords)+" log records in one request; send smaller requests")
					continue
				}
				ev := base
				if field, why := mapRecord(&ev, records.At(k), scope, received, redact); why != "" {
					res.reject(1, recWhere+field, why)
					continue
				}
				res.Events = append(res.Events, ev)
			}
		}
	}
	return res
}

// resourceEvent reads the fields every record of a resource shares. A
// non-empty reason rejects all of the resource's records.
func resourceEvent(attrs pcommon.Map) (ingest.Event, string) {
	ev := ingest.Event{Service: UnknownService}
	for _, f := range [...]struct {
		dst  *string
		keys []string
		max  int
	}{
		{&ev.Service, []string{attrServiceName}, ingest.MaxServiceLen},
		{&ev.Environment, []string{attrEnvironment, attrEnvironmentOld}, ingest.MaxEnvironmentLen},
		{&ev.Release, []string{attrServiceVersion}, ingest.MaxReleaseLen},
	} {
		for _, k := range f.keys {
			v, ok := attrs.Get(k)
			if !ok {
				continue
			}
			s, err := text(v)
			switch {
			case err != nil:
				return ev, "attribute " + k + " " + err.Error()
			case utf8.RuneCountInString(s) > f.max:
				return ev, "attribute " + k + " is longer than " + strconv.Itoa(f.max) + " characters"
			case f.dst == &ev.Service && strings.TrimSpace(s) == "":
				// Blank names no service, as when absent (/v1/ingest
				// refuses a blank service: it has no default to fall to).
				s = ""
			case s != "":
				*f.dst = s
			}
			if s != "" {
				break
			}
		}
	}
	return ev, ""
}

// mapRecord fills ev from one log record. On failure it returns the field
// (".body", ".attributes") and why.
func mapRecord(ev *ingest.Event, lr plog.LogRecord, scope string, received int64, redact *ingest.Redactor) (string, string) {
	attrs := lr.Attributes()
	if st, ok := attrs.Get(attrStacktrace); ok {
		s, err := text(st)
		if err != nil {
			return ".attributes", attrStacktrace + " " + err.Error()
		}
		if ingest.TooLong(s, ingest.MaxStackTraceBytes) {
			return ".attributes", attrStacktrace + " is longer than " + strconv.Itoa(ingest.MaxStackTraceBytes) + " characters"
		}
		ev.StackTrace = s
	}
	msg, err := text(lr.Body())
	if err != nil {
		return ".body", err.Error()
	}
	if strings.TrimSpace(msg) == "" { // an exception recorded as a log record may carry its text in attributes only
		for _, k := range [...]string{attrExceptionMsg, attrExceptionType} {
			if v, ok := attrs.Get(k); ok {
				if msg, err = text(v); err != nil {
					return ".attributes", k + " " + err.Error()
				}
				if strings.TrimSpace(msg) != "" {
					break
				}
			}
		}
	}
	switch {
	case strings.TrimSpace(msg) == "":
		return ".body", "is empty or only white space (and there is no exception.message); Errata needs a message"
	case ingest.TooLong(msg, ingest.MaxMessageBytes):
		return ".body", "is longer than " + strconv.Itoa(ingest.MaxMessageBytes) + " characters"
	}
	ev.Message = msg
	ev.Level = level(lr.SeverityNumber(), lr.SeverityText(), ev.StackTrace != "")
	ev.TraceID = lr.TraceID().String() // lowercase hex, "" when zero
	ev.SpanID = lr.SpanID().String()
	ev.Timestamp = received
	if ts := lr.Timestamp(); ts != 0 {
		ev.Timestamp = int64(uint64(ts) / uint64(time.Millisecond))
	} else if ts := lr.ObservedTimestamp(); ts != 0 {
		ev.Timestamp = int64(uint64(ts) / uint64(time.Millisecond))
	}
	a, why := attributes(attrs, scope, lr.EventName(), redact)
	if why != "" {
		return ".attributes", why
	}
	ev.Attributes = a
	return "", ""
}

// level maps a severity to a level: the number wins over the text (CONTRACT
// 6); a text alone goes through the level synonyms of /v1/ingest; neither,
// or a text that is no known level, gives error with a stack trace and info
// without.
func level(n plog.SeverityNumber, text string, hasStack bool) ingest.Level {
	switch {
	case n >= plog.SeverityNumberTrace && n <= plog.SeverityNumberDebug4:
		return ingest.Debug // trace and debug
	case n >= plog.SeverityNumberInfo && n <= plog.SeverityNumberInfo4:
		return ingest.Info
	case n >= plog.SeverityNumberWarn && n <= plog.SeverityNumberWarn4:
		return ingest.Warn
	case n >= plog.SeverityNumberError && n <= plog.SeverityNumberError4:
		return ingest.Error
	case n >= plog.SeverityNumberFatal && n <= plog.SeverityNumberFatal4:
		return ingest.Fatal
	}
	if l, ok := ingest.ParseLevel(text); ok {
		return l
	}
	if hasStack {
		return ingest.Error
	}
	return ingest.Info
}

// attributes encodes a record's attributes as the JSON object of the event,
// without exception.stacktrace (it became stack_trace), checks the limits
// of /v1/ingest and redacts secrets. The scope and event names are added
// when the record has no such keys and they fit within the limits.
func attributes(attrs pcommon.Map, scope, event string, redact *ingest.Redactor) ([]byte, string) {
	keys := attrs.Len()
	if _, ok := attrs.Get(attrStacktrace); ok {
		keys-- // duplicate keys are counted, which can only make this stricter
	}
	if keys > ingest.MaxAttributes {
		return nil, "has " + strconv.Itoa(keys) + " keys, more than " + strconv.Itoa(ingest.MaxAttributes)
	}
	b, err := appendMap(make([]byte, 0, 64), attrs, 1, func(k string) bool { return k == attrStacktrace })
	if err != nil {
		return nil, err.Error()
	}
	if len(b) > ingest.MaxAttributesBytes {
		return nil, "is " + strconv.Itoa(len(b)) + " bytes of JSON, more than " + strconv.Itoa(ingest.MaxAttributesBytes)
	}
	for _, extra := range [...]struct{ key, value string }{{attrScopeName, scope}, {attrEventName, event}} {
		if extra.value == "" || !utf8.ValidString(extra.value) || keys >= ingest.MaxAttributes {
			continue
		}
		if _, ok := attrs.Get(extra.key); ok {
			continue
		}
		grown := append(b[:len(b)-1:len(b)-1], ',') // copy: b stays as it was
		if len(b) == 2 {                            // {}
			grown = grown[:len(grown)-1]
		}
		grown, _ = appendString(grown, extra.key)
		grown = append(grown, ':')
		grown, _ = appendString(grown, extra.value)
		grown = append(grown, '}')
		if len(grown) <= ingest.MaxAttributesBytes {
			b, keys = grown, keys+1
		}
	}
	if len(b) == 2 {
		return nil, ""
	}
	return redact.Redact(b), ""
}
