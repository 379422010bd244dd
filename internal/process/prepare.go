package process

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"time"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
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
	lastBatch   store.Batch // the batch of last, for its receipt time
	firstBatch  store.Batch
	minTS       int64
	maxTS       int64
	envs, rels  []string            // in order of appearance
	minutes     map[int64]int       // events by receipt minute (Unix ms)
	facets      map[facetKV]int     // attribute values (facets.go)
	refs        map[[2]string]int64 // ids carried (kind, id), with the latest receipt (Unix ms)
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

	window    time.Duration
	byKey     map[string]*groupAgg
	infoByWin map[string]*store.InfoDelta
	fps       map[string]*fingerprints // repeated errors fingerprint once
	templates map[string]map[string]*store.TemplateCount
	// legacy holds the keys of groups made by an older fingerprint
	// version that the batches' events match (nil when none exist).
	legacy map[store.GroupKey]bool
	// values are the environments and services the events carried, by
	// project and kind (store.TouchProjectValues), each with the latest
	// receipt time; at most maxValuesPerApply a project and kind.
	values map[valueKind]map[string]time.Time
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
// older fingerprint versions (nil: there are none).
func prepare(ctx context.Context, batches []store.Batch, window time.Duration, old legacyLookup) (*prepared, error) {
	p := &prepared{batches: batches, window: window, byKey: map[string]*groupAgg{}, infoByWin: map[string]*store.InfoDelta{},
		fps: map[string]*fingerprints{}, templates: map[string]map[string]*store.TemplateCount{}, values: map[valueKind]map[string]time.Time{}}
	decoded := make([][]ingest.Event, len(batches))
	for i, b := range batches {
		events, err := ingest.DecodePayload(b.Payload)
		if err != nil {
			return nil, fmt.Errorf("batch %d: %w", b.ID, err)
		}
		ingest.ScrubNUL(events) // batches queued before intake scrubbed them
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
	start := b.ReceivedAt.Truncate(p.window)
	wk := b.ProjectID + "\x00" + strconv.FormatInt(start.UnixMilli(), 10)
	info := p.infoByWin[wk]
	minute := b.ReceivedAt.Truncate(time.Minute).UnixMilli()
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
		if e.Level <= ingest.Info {
			if info == nil {
				info = &store.InfoDelta{ProjectID: b.ProjectID, WindowStart: start, WindowEnd: start.Add(p.window), Services: map[string]int64{}}
				p.infoByWin[wk] = info
				p.templates[wk] = map[string]*store.TemplateCount{}
			}
			addInfo(info, e, p.templates[wk])
			continue
		}
		fps := p.fingerprints(e)
		target, legacy := p.target(b.ProjectID, e.Service, fps)
		key := b.ProjectID + "\x00" + e.Service + "\x00" + target
		g := p.byKey[key]
		if g == nil {
			g = &groupAgg{projectID: b.ProjectID, service: e.Service, fp: fps.current, key: target, legacy: legacy,
				first: e, firstBatch: b, minTS: e.Timestamp, maxTS: e.Timestamp, minutes: map[int64]int{}}
			p.byKey[key] = g
		}
		g.count++
		g.minutes[minute]++
		g.last, g.lastBatch = e, b
		g.level = max(g.level, e.Level)
		g.minTS, g.maxTS = min(g.minTS, e.Timestamp), max(g.maxTS, e.Timestamp)
		g.envs = appendNew(g.envs, e.Environment)
		g.rels = appendNew(g.rels, e.Release)
		var sdkID string
		kvs, sdkID = facets(e, kvs)
		g.addFacets(kvs)
		g.addRefs(e.TraceID, sdkID, b.ReceivedAt.UnixMilli())
	}
}

func addInfo(d *store.InfoDelta, e *ingest.Event, templates map[string]*store.TemplateCount) {
	// event_count counts info events, debug_count debug ones: each event
	// once (CONTRACT 7).
	if e.Level == ingest.Debug {
		d.Debug++
	} else {
		d.Events++
	}
	d.Services[e.Service]++
	tpl := grouping.Parameterize(e.Message)
	t := templates[tpl]
	if t == nil {
		h := fnv.New64a()
		_, _ = h.Write([]byte(tpl))
		t = &store.TemplateCount{Hash: strconv.FormatUint(h.Sum64(), 16), Template: tpl, Sample: e.Message}
		templates[tpl] = t
	}
	t.Count++
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
)

// groupingInput is what an event offers grouping: its message and stack
// trace, attributes.fingerprint (a string or an array of strings) and the
// in-app flags of a Sentry SDK (attributes["sentry.in_app"]).
func groupingInput(e *ingest.Event) grouping.Input {
	in := grouping.Input{Message: e.Message, StackTrace: e.StackTrace}
	attrs := e.Attributes
	if len(attrs) == 0 || (!bytes.Contains(attrs, fingerprintKey) && !bytes.Contains(attrs, inAppKey)) {
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
	return in
}

// customFingerprint reads the value of attributes.fingerprint: a string or
// an array of strings; nil when absent or of another type.
func customFingerprint(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if one == "" {
			return nil
		}
		return []string{one}
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil && len(many) > 0 {
		return many
	}
	return nil
}
