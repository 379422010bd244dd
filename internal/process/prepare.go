package process

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/search"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/summary"
)

// groupAgg is what the claimed batches bring to one error group.
type groupAgg struct {
	projectID string
	service   string
	fp        grouping.Result // the current version's: a new group gets it
	// key is the fingerprint of the group that takes the events: fp's, or
	// that of a group made by an older version (legacy) whose fingerprint
	// under that version the events share.
	key         string
	legacy      bool
	count       int
	level       ingest.Level
	first, last *ingest.Event
	lastTrace   string      // the trace id of the latest event that had one
	lastBatch   store.Batch // the batch of last, for its receipt time
	firstBatch  store.Batch
	minTS       int64
	maxTS       int64
	envs, rels  []string            // in order of appearance
	arrivals    map[int64]int       // events by receipt time (Unix ms): a batch's events share it
	facets      *facetTally         // attribute values (facets.go)
	refs        map[[2]string]int64 // ids carried (kind, id), with the latest receipt (Unix ms)
	// users are the distinct user.id attributes of the events, at most
	// maxUsersPerGroup (for an ignore condition on users).
	users    []string
	userSeen map[string]bool
}

// maxUsersPerGroup bounds the user ids one transaction records for a group.
const maxUsersPerGroup = 1000

// valueRelease is the kind of value noteReleases records in releases.first_seen
// rather than project_values.
const valueRelease = "release"

// addUser adds an event's user.id attribute (raw, as facets read it from
// the attributes; nil when it has none) to g's users.
func (g *groupAgg) addUser(raw json.RawMessage) {
	raw = bytes.TrimSpace(raw)
	if len(g.users) >= maxUsersPerGroup || len(raw) == 0 {
		return
	}
	u := string(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		u = s
	}
	if u == "" || u == "null" || len(u) > 200 || g.userSeen[u] {
		return
	}
	if g.userSeen == nil {
		g.userSeen = map[string]bool{}
	}
	g.userSeen[u] = true
	g.users = append(g.users, u)
}

// prepared is a set of claimed batches turned into per-group and INFO
// figures, computed outside any transaction so that the CPU work runs in
// parallel. Several batches are applied together: a group seen in all of
// them is updated once, which matters when every batch touches the same hot
// groups (their row locks serialise the transactions).
type prepared struct {
	batches []store.Batch
	groups  []*groupAgg // sorted by project, service and fingerprint: a fixed lock order
	info    []*store.InfoDelta
	// deferCounts: the value counts and ids are recorded to be folded
	// later (Processor.deferPart).
	deferCounts bool

	window    time.Duration
	byKey     map[string]*groupAgg
	infoByWin map[string]*store.InfoDelta
	fps       map[string]*fingerprints // repeated errors fingerprint once
	templates map[string]summary.Templates
	// legacy holds the keys, and ids, of groups made by an older
	// fingerprint version that the batches' events match (nil when none
	// exist).
	legacy map[store.GroupKey]store.GroupRef
	// currentFound holds the groups of the current keys of the events
	// that also match an older version's group, whatever version made
	// them (target).
	currentFound map[store.GroupKey]store.GroupRef
	// rules are the grouping rules of the batches' projects that have any.
	rules map[string]*grouping.Rules
	// memos are the Processor's, across claims (nil: none).
	memos *memos
	// values are the environments and services the events carried, by
	// project and kind (store.TouchProjectValues), each with the latest
	// receipt time; at most maxValuesPerApply a project and kind.
	values map[valueKind]map[string]time.Time
	// releases are the release keys apply noted, known to this
	// process once its transaction commits (knownReleases).
	releases []string
	// relCounts are the error events' counts by project and release.
	relCounts map[relVersion]*releaseAgg
}

// relVersion is one release of one project.
type relVersion struct{ project, version string }

// releaseAgg is what the batches bring to a release: events, groups they
// opened, and the receipt times of the first and last.
type releaseAgg struct {
	events, newGroups int64
	first, last       time.Time
}

// countRelease counts an error event of release v received with b.
func (p *prepared) countRelease(b store.Batch, v string) {
	if v == "" {
		return
	}
	k := relVersion{b.ProjectID, v}
	r := p.relCounts[k]
	if r == nil {
		r = &releaseAgg{first: b.ReceivedAt, last: b.ReceivedAt}
		p.relCounts[k] = r
	}
	r.events++
	if b.ReceivedAt.Before(r.first) {
		r.first = b.ReceivedAt
	}
	if b.ReceivedAt.After(r.last) {
		r.last = b.ReceivedAt
	}
}

// valueKind is one kind of value (store.ValueEnvironment, ValueService) of
// one project.
type valueKind struct{ project, kind string }

// maxValuesPerApply bounds the values of one kind one transaction records
// for a project: batches of made-up environments cost no more than this.
const maxValuesPerApply = 100

// see records that an event of b carried v, of kind.
func (p *prepared) see(b store.Batch, kind, v string) {
	if v == "" {
		return
	}
	k := valueKind{b.ProjectID, kind}
	vs := p.values[k]
	if vs == nil {
		vs = map[string]time.Time{}
		p.values[k] = vs
	}
	if at, ok := vs[v]; ok || len(vs) >= maxValuesPerApply {
		if ok && b.ReceivedAt.After(at) {
			vs[v] = b.ReceivedAt
		}
		return
	}
	vs[v] = b.ReceivedAt
}

// prepare decodes and aggregates batches. old finds the groups made by
// older fingerprint versions (nil: there are none); rules are the grouping
// rules of the projects that have any. sym, if not nil, symbolicates error
// events first. m remembers templates and fingerprints across calls (nil:
// nothing is remembered).
func prepare(ctx context.Context, batches []store.Batch, window time.Duration, old legacyLookup, rules map[string]*grouping.Rules,
	sym func(context.Context, string, *ingest.Event) error, m *memos) (*prepared, error) {
	p := &prepared{batches: batches, window: window, byKey: map[string]*groupAgg{}, infoByWin: map[string]*store.InfoDelta{},
		fps: map[string]*fingerprints{}, templates: map[string]summary.Templates{}, values: map[valueKind]map[string]time.Time{},
		rules: rules, relCounts: map[relVersion]*releaseAgg{}, memos: m}
	decoded := make([][]ingest.Event, len(batches))
	for i, b := range batches {
		events, err := ingest.DecodePayload(b.Payload)
		if err != nil {
			return nil, fmt.Errorf("batch %d: %w", b.ID, err)
		}
		ingest.ScrubNUL(events) // batches queued before intake scrubbed them
		if sym != nil {
			for j := range events {
				if !summary.Counts(events[j].Level) {
					if err := sym(ctx, b.ProjectID, &events[j]); err != nil {
						return nil, fmt.Errorf("batch %d: symbolicate: %w", b.ID, err)
					}
				}
			}
		}
		decoded[i] = events
	}
	if old != nil {
		if err := p.findLegacy(ctx, batches, decoded, old); err != nil {
			return nil, err
		}
	}
	for i, b := range batches {
		p.add(b, decoded[i])
	}
	for _, g := range p.byKey {
		p.groups = append(p.groups, g)
	}
	sort.Slice(p.groups, func(i, j int) bool {
		a, b := p.groups[i], p.groups[j]
		if a.projectID != b.projectID {
			return a.projectID < b.projectID
		}
		if a.service != b.service {
			return a.service < b.service
		}
		return a.key < b.key
	})
	for k, d := range p.infoByWin {
		for _, t := range p.templates[k] {
			d.Templates = append(d.Templates, *t)
		}
		sort.Slice(d.Templates, func(i, j int) bool { return d.Templates[i].Hash < d.Templates[j].Hash })
		p.info = append(p.info, d)
	}
	sort.Slice(p.info, func(i, j int) bool {
		if p.info[i].ProjectID != p.info[j].ProjectID {
			return p.info[i].ProjectID < p.info[j].ProjectID
		}
		return p.info[i].WindowStart.Before(p.info[j].WindowStart)
	})
	return p, nil
}

func (p *prepared) add(b store.Batch, events []ingest.Event) {
	start, _ := summary.Window(b.ReceivedAt, p.window)
	wk := b.ProjectID + "\x00" + strconv.FormatInt(start.UnixMilli(), 10)
	info := p.infoByWin[wk]
	arrival := b.ReceivedAt.UnixMilli()
	var kvs []facetKV
	for i := range events {
		e := &events[i]
		// Events of a batch mostly share both: a comparison, not a map
		// look-up, per event.
		if i == 0 || e.Environment != events[i-1].Environment {
			p.see(b, store.ValueEnvironment, e.Environment)
		}
		if i == 0 || e.Service != events[i-1].Service {
			p.see(b, store.ValueService, e.Service)
		}
		if i == 0 || e.Release != events[i-1].Release {
			p.see(b, valueRelease, e.Release)
		}
		if summary.Counts(e.Level) {
			if info == nil {
				info = summary.NewDelta(b.ProjectID, b.ReceivedAt, p.window)
				p.infoByWin[wk] = info
				p.templates[wk] = summary.Templates{}
			}
			var t template
			if len(e.Attributes) > 2 && hasTemplate(e.Attributes) {
				if raw := senderTemplate(e.Attributes); raw != "" {
					t = p.memos.senderTemplate(raw)
				}
			}
			if t.text == "" {
				t = p.memos.template(e.Message)
			}
			summary.Add(info, e, p.templates[wk], summary.Template{Text: t.text, Hash: t.hash})
			continue
		}
		// Only error events keep their ids (INFO summaries have none), so
		// only they pay for the lower-casing (1.7 % of the whole server's
		// CPU when every event did).
		e.TraceID, e.SpanID = search.HexLower(e.TraceID), search.HexLower(e.SpanID)
		fps := p.fingerprints(b.ProjectID, e)
		target, legacy := p.target(b.ProjectID, e.Service, fps)
		key := b.ProjectID + "\x00" + e.Service + "\x00" + target
		g := p.byKey[key]
		if g == nil {
			g = &groupAgg{projectID: b.ProjectID, service: e.Service, fp: fps.current, key: target, legacy: legacy,
				first: e, firstBatch: b, minTS: e.Timestamp, maxTS: e.Timestamp, arrivals: map[int64]int{}}
			p.byKey[key] = g
		}
		g.count++
		g.arrivals[arrival]++
		g.last, g.lastBatch = e, b
		if e.TraceID != "" {
			g.lastTrace = e.TraceID
		}
		g.level = max(g.level, e.Level)
		g.minTS, g.maxTS = min(g.minTS, e.Timestamp), max(g.maxTS, e.Timestamp)
		g.envs = appendNew(g.envs, e.Environment)
		g.rels = appendNew(g.rels, e.Release)
		p.countRelease(b, e.Release)
		var sdkID string
		var userID json.RawMessage
		kvs, sdkID, userID = facets(e, kvs)
		g.addUser(userID)
		g.addFacets(kvs, p.memos)
		g.addRefs(e.TraceID, sdkID, b.ReceivedAt.UnixMilli())
	}
}

func appendNew(list []string, v string) []string {
	if v == "" {
		return list
	}
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

var (
	fingerprintKey = []byte(`"fingerprint"`)
	inAppKey       = []byte(`"sentry.in_app"`)
	templateKey    = []byte(`message.template"`)
	templateKeyAlt = []byte(`"message_template"`)
)

// hasTemplate reports whether attrs may hold the sender's message template.
func hasTemplate(attrs []byte) bool {
	return bytes.Contains(attrs, templateKey) || bytes.Contains(attrs, templateKeyAlt)
}

// senderTemplate is an INFO event's own message template as sent, as
// grouping reads an error's: the top-level attribute message_template,
// else sentry.message.template (a Sentry log's or logentry's); "" when it
// has none. It reads the attributes without decoding them (attrWalker):
// Sentry logs carry one on every record.
func senderTemplate(attrs []byte) string {
	w := attrWalker{s: attrs}
	if !w.expect('{') || w.peek() == '}' {
		return ""
	}
	var own, sentry string
	for !w.bad {
		if w.peek() != '"' {
			break
		}
		// The key is compared as written (no string made of it): the two
		// keys hold no escapes.
		start := w.i
		escaped := w.skipString()
		k := w.s[start+1 : max(start+1, w.i-1)]
		if w.bad || !w.expect(':') {
			break
		}
		switch {
		case !escaped && w.peek() == '"' && string(k) == "message_template":
			own = w.str()
		case !escaped && w.peek() == '"' && string(k) == "sentry.message.template":
			sentry = w.str()
		default:
			w.skip()
		}
		if w.peek() != ',' {
			break
		}
		w.i++
	}
	if strings.TrimSpace(own) != "" {
		return own
	}
	if strings.TrimSpace(sentry) != "" {
		return sentry
	}
	return ""
}

// hasGroupingAttrs reports whether attrs may hold an attribute grouping
// reads.
func hasGroupingAttrs(attrs []byte) bool {
	return bytes.Contains(attrs, fingerprintKey) || bytes.Contains(attrs, inAppKey) ||
		hasTemplate(attrs)
}

// GroupingInput is what an event offers grouping, as processing reads it:
// the dashboard and the API compute the components of a group made before
// they were stored from its first event.
func GroupingInput(e *ingest.Event, rules *grouping.Rules) grouping.Input {
	return groupingInput(e, rules)
}

// groupingInput is what an event offers grouping: its message and stack
// trace, attributes.fingerprint (a string or an array of strings), the
// in-app flags of a Sentry SDK (attributes["sentry.in_app"]) and the
// message's template (attributes.message_template, else a Sentry
// logentry's, sentry.message.template). With rules it also carries the
// level and the attributes the rules match.
func groupingInput(e *ingest.Event, rules *grouping.Rules) grouping.Input {
	in := grouping.Input{Message: e.Message, StackTrace: e.StackTrace}
	attrs := e.Attributes
	if rules != nil {
		in.Rules, in.Level, in.Attributes = rules, e.Level.String(), flatAttributes(attrs)
	}
	if len(attrs) == 0 || !hasGroupingAttrs(attrs) {
		return in
	}
	var v struct {
		Fingerprint json.RawMessage `json:"fingerprint"`
		InApp       string          `json:"sentry.in_app"`
	}
	if json.Unmarshal(attrs, &v) != nil {
		return in
	}
	in.InApp = v.InApp
	in.Fingerprint = customFingerprint(v.Fingerprint)
	if in.Rules == nil && slices.ContainsFunc(in.Fingerprint, func(p string) bool { return strings.Contains(p, "{{") }) {
		// Its {{ level }}, {{ transaction }}, {{ tags.region }}… read
		// them, as a rule's do.
		in.Level, in.Attributes = e.Level.String(), flatAttributes(attrs)
	}
	// Read as the INFO summaries read it: keys as written (encoding/json
	// would take "Message_Template" too), a blank own template giving way
	// to Sentry's.
	in.Template = senderTemplate(attrs)
	return in
}

// flatAttributes are an event's attributes with a string, number or
// boolean value, numbers and booleans as their JSON text.
func flatAttributes(attrs []byte) map[string]string {
	var m map[string]json.RawMessage
	if len(attrs) == 0 || json.Unmarshal(attrs, &m) != nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, raw := range m {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		switch raw[0] {
		case '"':
			var s string
			if json.Unmarshal(raw, &s) == nil {
				out[k] = s
			}
		case '{', '[', 'n':
		default:
			out[k] = string(raw)
		}
	}
	return out
}

// customFingerprint reads the value of attributes.fingerprint: a string or
// an array of strings; nil when absent, of another type, or blank (every
// string of it empty or spaces: [""] would otherwise put every event that
// carries it, whatever its error, in one group). A list with a value keeps
// its blank strings and nulls as they were read before, so that its events
// stay in their groups.
func customFingerprint(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if strings.TrimSpace(one) == "" {
			return nil
		}
		return []string{one}
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil && slices.ContainsFunc(many, func(v string) bool { return strings.TrimSpace(v) != "" }) {
		return many
	}
	return nil
}
