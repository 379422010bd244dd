package sentry

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
)

// unlabeled is the message of an event that carries no text at all, as
// Sentry names such events.
const unlabeled = "<unlabeled event>"

// mapEvent maps a decoded Sentry event onto an ingest event (docs/sentry.md
// has the table).
func mapEvent(se *sentryEvent, m *mapping) ingest.Event {
	service := m.service
	tags := tagPairs(se.Tags)
	for _, kv := range tags {
		if kv[0] == "service" && kv[1] != "" {
			service = kv[1]
			break
		}
	}
	excs := se.Exception.Values
	if len(excs) == 0 {
		excs = se.LegacyException.Values
	}
	ev := ingest.Event{
		Service:     limitRunes(clean(service), ingest.MaxServiceLen),
		Environment: limitRunes(clean(se.Environment), ingest.MaxEnvironmentLen),
		Release:     limitRunes(clean(se.Release), ingest.MaxReleaseLen),
		Level:       ingest.Error, // Sentry's default level
		Timestamp:   eventTime(se.Timestamp, m.received),
	}
	ev.SentTimestamp = sentIfFuture(se.Timestamp, ev.Timestamp, m.received)
	if ev.Service == "" {
		ev.Service = "unknown_service"
	}
	if l, ok := ingest.ParseLevel(se.Level); ok {
		ev.Level = l
	}
	logText, template := eventLogEntry(se)
	ev.Message = logText
	if len(excs) > 0 {
		main := &excs[len(excs)-1]
		// CONTRACT 7: "<type>: <value>", the type as sent; the stack trace
		// prints it as its runtime does (qualifiedType).
		if text := header(&excView{typ: oneLine(main.Type, maxNameBytes), value: main.Value}); text != "" {
			ev.Message = text
		}
	}
	if strings.TrimSpace(ev.Message) == "" { // blank: no title to show
		ev.Message = unlabeled
	}
	ev.Message = limitBytes(clean(ev.Message), ingest.MaxMessageBytes)
	panicked := ev.Level == ingest.Fatal || (len(excs) > 0 && excs[len(excs)-1].Mechanism != nil &&
		excs[len(excs)-1].Mechanism.Handled != nil && !*excs[len(excs)-1].Mechanism.Handled)
	stack, inApp := renderStack(se.Platform, excs, threadFrames(se), panicked)
	ev.StackTrace = clean(stack)
	if c := se.Contexts; c != nil && c.Trace != nil {
		ev.TraceID = limitRunes(clean(c.Trace.TraceID), ingest.MaxTraceIDLen)
		ev.SpanID = limitRunes(clean(c.Trace.SpanID), ingest.MaxSpanIDLen)
	}

	ev.Attributes = eventAttrs(se, excs, tags, inApp, logText, ev.Message != logText, template, m.userAgent).done(m.redact)
	ev.Detail = eventDetail(se, excs, m)
	return ev
}

// eventAttrs are the attributes of a Sentry event: its fingerprint, in-app
// frames, ids, handled flag, context, tags, user agent (the event request's,
// else userAgent, the browser's that sent it) and, when logAside (an
// exception's header became the message), its log message.
func eventAttrs(se *sentryEvent, excs []exception, tags [][2]string, inApp, logText string, logAside bool, template, userAgent string) *attrs {
	var a attrs
	if fp := stringList(se.Fingerprint); len(fp) > 0 {
		b := []byte{'['}
		for k, p := range fp {
			if k > 0 {
				b = append(b, ',')
			}
			b = appendString(b, cutUTF8(p, maxValueBytes))
		}
		a.add("fingerprint", append(b, ']'))
	}
	a.str("sentry.in_app", inApp, maxFrames*maxChain)
	a.str("sentry.event_id", cleanID(se.EventID), 32)
	a.str(ingest.AttrDist, clean(se.Dist), 64)
	a.str(ingest.AttrDebugIDs, debugIDs(se), maxValueBytes)
	if len(excs) > 0 {
		if m := excs[len(excs)-1].Mechanism; m != nil && m.Handled != nil {
			a.add("handled", strconv.AppendBool(nil, *m.Handled))
		}
	}
	for _, kv := range [...][2]string{
		{"platform", se.Platform}, {"logger", se.Logger}, {"transaction", se.Transaction},
		{"server_name", se.ServerName}, {"sdk.name", sdkName(se)}, {"user.id", userID(se)},
	} {
		a.str(kv[0], kv[1], maxValueBytes)
	}
	agent := userAgent // the browser's that sent it, unless the event names its own
	if r := se.Request; r != nil {
		a.str("request.method", r.Method, 32)
		a.str("request.url", r.URL, maxValueBytes)
		if ua := headerValue(r.Headers, "User-Agent"); ua != "" {
			agent = ua
		}
	}
	a.str("user_agent", agent, maxValueBytes) // browser and os come from it (CONTRACT 8)
	if c := se.Contexts; c != nil {
		a.str("runtime", c.Runtime.text(), maxValueBytes)
		// browser and os are names (browser:Firefox, CONTRACT 8), as those
		// derived from a user agent; their versions go apart.
		for _, nv := range [...]struct {
			key string
			v   *nameVersion
		}{{"os", c.OS}, {"browser", c.Browser}} {
			if nv.v != nil {
				a.str(nv.key, strings.TrimSpace(nv.v.Name), maxValueBytes)
				a.str(nv.key+".version", strings.TrimSpace(nv.v.Version), maxValueBytes)
			}
		}
	}
	if logAside {
		a.str("sentry.message", logText, maxValueBytes) // a log message beside an exception
	}
	a.str("sentry.message.template", template, maxValueBytes)
	for _, kv := range tags {
		if kv[0] != "service" {
			a.add("tags."+kv[0], appendString(nil, limitRunes(kv[1], maxTagRunes)))
		}
	}
	if len(excs) > 0 {
		// The exception as sent, under OpenTelemetry's names: what grouping
		// rules' error.type and error.value match when the stack trace
		// names no type (sentry-go's errors, exceptions without frames).
		// Last, so that they never take the place of a tag under the cap
		// of attribute keys; the value's first line, as rules read it.
		main := &excs[len(excs)-1]
		a.str("exception.type", oneLine(main.Type, maxNameBytes), maxNameBytes)
		first, _, _ := strings.Cut(main.Value, "\n")
		a.str("exception.message", oneLine(first, maxNameBytes), maxNameBytes)
	}
	return &a
}

func (nv *nameVersion) text() string {
	if nv == nil {
		return ""
	}
	return strings.TrimSpace(nv.Name + " " + nv.Version)
}

// headerValue is the value of the named header of a Sentry request's
// headers: an object or a list of [name, value] pairs; "" when absent.
func headerValue(raw json.RawMessage, name string) string {
	if len(raw) == 0 {
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		for k, v := range obj {
			if strings.EqualFold(k, name) {
				var s string
				if json.Unmarshal(v, &s) == nil {
					return s
				}
			}
		}
		return ""
	}
	var pairs [][]json.RawMessage
	if json.Unmarshal(raw, &pairs) == nil {
		for _, p := range pairs {
			var k, v string
			if len(p) == 2 && json.Unmarshal(p[0], &k) == nil && strings.EqualFold(k, name) && json.Unmarshal(p[1], &v) == nil {
				return v
			}
		}
	}
	return ""
}

func sdkName(se *sentryEvent) string {
	if se.SDK == nil {
		return ""
	}
	return se.SDK.Name
}

func userID(se *sentryEvent) string {
	if se.User == nil {
		return ""
	}
	return scalarString(se.User.ID)
}

// threadFrames are the frames shown when no exception has any: the crashed
// thread's, else the current one's, else the first with frames, else the
// legacy event-level stacktrace.
func threadFrames(se *sentryEvent) []frame {
	threads := se.Threads.Values
	pick := -1
	for k := range threads {
		st := threads[k].Stacktrace
		if st == nil || len(st.Frames) == 0 {
			continue
		}
		switch {
		case threads[k].Crashed:
			return st.Frames
		case pick < 0 || threads[k].Current && !threads[pick].Current:
			pick = k
		}
	}
	switch {
	case pick >= 0:
		return threads[pick].Stacktrace.Frames
	case se.Stacktrace != nil:
		return se.Stacktrace.Frames
	case se.LegacyStacktrace != nil:
		return se.LegacyStacktrace.Frames
	}
	return nil
}

// eventLogEntry is the event's log message (logentry, else message, in
// either of their shapes) and, when it was formatted from parameters, its
// template.
func eventLogEntry(se *sentryEvent) (text, template string) {
	for _, raw := range [...]json.RawMessage{se.LogEntry, se.Message, se.LegacyMessage} {
		t := bytes.TrimSpace(raw)
		if len(t) == 0 {
			continue
		}
		if t[0] == '"' {
			if s := scalarString(t); s != "" {
				return s, ""
			}
			continue
		}
		var le logEntry
		if t[0] != '{' || json.Unmarshal(t, &le) != nil {
			continue
		}
		if text, template = le.text(); text != "" {
			return text, template
		}
	}
	return "", ""
}

// text is the formatted message and its template: "formatted" when the SDK
// sent it, else "message" with its parameters put in. "message" is a
// template only when params came with it (CONTRACT 8): the events group on
// it.
func (le *logEntry) text() (string, string) {
	hasParams := len(bytes.TrimSpace(le.Params)) > 0 && !bytes.Equal(bytes.TrimSpace(le.Params), []byte("null"))
	switch {
	case le.Formatted != "":
		if hasParams && le.Message != "" && le.Message != le.Formatted {
			return le.Formatted, le.Message
		}
		return le.Formatted, ""
	case hasParams:
		if s := formatParams(le.Message, le.Params); s != le.Message {
			return s, le.Message
		}
	}
	return le.Message, ""
}

// formatParams puts parameters into a message as Sentry does: positional
// parameters replace %s-style conversions or "{}", named ones %(name)s.
func formatParams(msg string, raw json.RawMessage) string {
	var list []json.RawMessage
	var named map[string]json.RawMessage
	if json.Unmarshal(raw, &list) != nil && json.Unmarshal(raw, &named) != nil {
		return msg
	}
	var b strings.Builder
	next := 0
	for k := 0; k < len(msg); k++ {
		c := msg[k]
		switch {
		case c == '%' && k+1 < len(msg) && msg[k+1] == '%':
			b.WriteByte('%')
			k++
			continue
		case c == '%' && k+1 < len(msg) && strings.IndexByte("sdifru", msg[k+1]) >= 0 && next < len(list),
			c == '{' && k+1 < len(msg) && msg[k+1] == '}' && next < len(list):
			b.WriteString(paramText(list[next]))
			next++
			k++
			continue
		case c == '%' && named != nil && strings.HasPrefix(msg[k:], "%("):
			if end := strings.Index(msg[k:], ")s"); end > 0 {
				if v, ok := named[msg[k+2:k+end]]; ok {
					b.WriteString(paramText(v))
					k += end + 1
					continue
				}
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func paramText(raw json.RawMessage) string {
	if s := scalarString(raw); s != "" {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// eventTime reads an event timestamp, RFC 3339 (a time zone optional, UTC
// assumed, as Sentry does) or seconds since the epoch, as Unix milliseconds;
// a missing or unreadable one is the time of receipt.
// sentIfFuture is a timestamp as sent (a string's text, or a number as
// written) when it lies more than ingest.MaxFuture ahead of received, for
// original_timestamp; else "".
func sentIfFuture(raw json.RawMessage, ms, received int64) string {
	if ms <= received+ingest.MaxFuture.Milliseconds() {
		return ""
	}
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && t[0] == '"' {
		s, _ := jsonString(t)
		return clean(s)
	}
	return string(t)
}

func eventTime(raw json.RawMessage, received int64) int64 {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return received
	}
	if t[0] != '"' {
		if ms, ok := parseSeconds(string(t)); ok {
			return ms
		}
		return received
	}
	s, _ := jsonString(t)
	if ms, ok := parseSeconds(s); ok {
		return ms
	}
	for _, layout := range [...]string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00"} {
		if tm, err := time.Parse(layout, s); err == nil {
			return tm.UnixMilli()
		}
	}
	return received
}

// debugIDs lists the event's source map images as "debug_id file" lines
// (ingest.AttrDebugIDs), for symbolication in the worker.
func debugIDs(se *sentryEvent) string {
	if se.DebugMeta == nil {
		return ""
	}
	var b strings.Builder
	for _, im := range se.DebugMeta.Images {
		if im.Type != "sourcemap" || im.DebugID == "" || im.CodeFile == "" || strings.ContainsAny(im.DebugID+im.CodeFile, " \n") {
			continue
		}
		b.WriteString(strings.ToLower(im.DebugID) + " " + im.CodeFile + "\n")
	}
	return clean(b.String())
}
