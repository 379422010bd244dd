package process

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// apply stores a prepared batch's effects and deletes the batch, all in the
// transaction of c: a crash leaves either everything or nothing.
func (p *Processor) apply(ctx context.Context, c *store.Conn, pr *prepared, now time.Time) ([]tickets.Event, error) {
	projects := make([]string, len(pr.batches))
	for i, b := range pr.batches {
		projects[i] = b.ProjectID
	}
	if err := c.LockProjects(ctx, projects); err != nil {
		return nil, err
	}
	if err := c.FinishBatches(ctx, pr.batches); err != nil {
		return nil, err
	}
	var out []tickets.Event
	keys := make([]store.GroupKey, len(pr.groups))
	for i, ga := range pr.groups {
		keys[i] = store.GroupKey{ProjectID: ga.projectID, Service: ga.service, Fingerprint: ga.key}
	}
	existing, err := c.GroupsByKeys(ctx, keys)
	if err != nil {
		return nil, err
	}
	seen := txGroups{byID: map[string]store.Group{}, byKey: map[store.GroupKey]string{}}
	var facets []store.FacetCount
	var refs []store.EventRef
	var w partWrites
	for i, ga := range pr.groups {
		g, found, err := seen.resolve(ctx, c, ga, keys[i], existing)
		if err != nil {
			return nil, err
		}
		if found { // stored before, or inserted by an earlier aggregate
			w.updated.add(g.ID)
		}
		g, evs, err := p.applyGroup(ctx, c, ga, g, found, now, &w)
		if err != nil {
			return nil, err
		}
		if r := pr.relCounts[relVersion{ga.projectID, ga.first.Release}]; !found && r != nil {
			r.newGroups++
		}
		seen.put(g)
		out = append(out, evs...)
		facets = ga.facetCounts(g.ID, facets)
		refs = ga.eventRefs(g.ID, refs)
	}
	if err := w.write(ctx, c, &seen, p.opts.Samples); err != nil {
		return nil, err
	}
	spiked, err := p.raiseSpikes(ctx, c, w.spikes, now)
	if err != nil {
		return nil, err
	}
	out = append(out, spiked...)
	if err := c.AddGroupCounts(ctx, w.counts); err != nil {
		return nil, err
	}
	if err := addCounts(ctx, c, facets, refs, pr.deferCounts); err != nil {
		return nil, err
	}
	if p.opts.OnTickets != nil && len(out) > 0 {
		if err := p.opts.OnTickets(ctx, c, out); err != nil {
			return nil, err
		}
	}
	if err := touchValues(ctx, c, pr.values); err != nil {
		return nil, err
	}
	if pr.releases, err = p.noteReleases(ctx, c, pr.values); err != nil {
		return nil, err
	}
	if err := countReleases(ctx, c, pr.relCounts); err != nil {
		return nil, err
	}
	// Last: every batch of a window updates the same summary row, so its
	// lock is taken as late, and held as briefly, as possible.
	for _, d := range pr.info {
		if _, err := c.AddInfo(ctx, *d, id.NewAt(id.InfoSummary, d.WindowStart), now); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// addCounts adds the value counts and ids of a part's events to their
// groups, or records them to be folded later (deferPart).
func addCounts(ctx context.Context, c *store.Conn, facets []store.FacetCount, refs []store.EventRef, deferred bool) error {
	if deferred {
		return c.AddPendingCounts(ctx, facets, refs)
	}
	if err := c.AddFacets(ctx, facets); err != nil {
		return err
	}
	return c.AddEventRefs(ctx, refs)
}

// touchValues records the environments and services the batches' events
// carried (store.TouchProjectValues), project by project in a fixed order.
func touchValues(ctx context.Context, c *store.Conn, values map[valueKind]map[string]time.Time) error {
	kinds := make([]valueKind, 0, len(values))
	for k := range values {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if kinds[i].project != kinds[j].project {
			return kinds[i].project < kinds[j].project
		}
		return kinds[i].kind < kinds[j].kind
	})
	for _, k := range kinds {
		vs, at := sortedValues(values[k])
		if k.kind == valueRelease {
			continue // noteReleases
		}
		if err := c.TouchProjectValues(ctx, k.project, k.kind, vs, at); err != nil {
			return err
		}
	}
	return nil
}

// sortedValues returns the values of m in order and the latest of their
// receipt times.
func sortedValues(m map[string]time.Time) ([]string, time.Time) {
	var at time.Time
	vs := make([]string, 0, len(m))
	for v, t := range m {
		vs = append(vs, v)
		if t.After(at) {
			at = t
		}
	}
	sort.Strings(vs)
	return vs, at
}

// applyGroup applies one group's figures and returns the group: inserted
// when new, else for the caller to write (store.UpdateGroups); g is the
// stored group when found.
func (p *Processor) applyGroup(ctx context.Context, c *store.Conn, ga *groupAgg, g store.Group, found bool, now time.Time, w *partWrites) (store.Group, []tickets.Event, error) {
	isNew := !found
	var events []tickets.Event
	if isNew {
		g = newGroup(ga.projectID, ga, now)
	}
	merge(&g, ga, now)
	takeSample, prune := p.hot.sample(g.ID, now, isNew && ga.count == 1, p.opts.Samples)
	if refresh := p.hot.refreshSearch(g.ID, now); isNew {
		g.SearchMessage = searchMessage(ga.first.Message, g.SampleMessage)
	} else if refresh || takeSample && g.EventCount < quietGroup {
		// Free words match the stored samples' messages (CONTRACT 8): the
		// first, those kept, and the one this batch stores. A busy group
		// rewrites its index row once a minute at most; a quiet one with
		// each sample it takes, so that every stored sample is found.
		// It is made once the part's samples are stored (partWrites.write).
		w.search(g.ID)
	} else if takeSample {
		p.hot.markStale(g.ID) // refreshSearches adds its message within searchEvery
	}
	opened, err := tickets.OpenAfter(ctx, c, &g, isNew, tickets.Batch{Releases: ga.rels,
		IgnoreBatch: tickets.IgnoreBatch{At: ga.lastBatch.ReceivedAt, Arrivals: ga.arrivals, Users: ga.users}}, time.UnixMilli(ga.minTS).UTC(), now)
	if err != nil {
		return g, nil, err
	}
	if isNew {
		if err := c.InsertGroup(ctx, g); err != nil {
			return g, nil, err
		}
		components, _ := json.Marshal(ga.fp.Components)
		if err := c.InsertGroupGrouping(ctx, store.GroupGrouping{GroupID: g.ID, Version: ga.fp.Version, Components: string(components)}); err != nil {
			return g, nil, err
		}
	}
	if opened != nil {
		opened.EventsBefore = g.EventCount - int64(ga.count) // g holds this batch's events already
		if err := c.InsertTicket(ctx, *opened); err != nil {
			return g, nil, err
		}
		if err := tickets.RecordOpened(ctx, c, g, *opened, now); err != nil {
			return g, nil, err
		}
		events = append(events, tickets.Event{Ticket: *opened, Group: g, Kind: opened.Reason, Environments: ga.envs})
	}
	if isNew {
		w.sample(sample(g.ID, ga.firstBatch, ga.first, true), false)
	}
	if takeSample {
		w.sample(sample(g.ID, ga.lastBatch, ga.last, false), prune)
	}
	w.counts = appendMinutes(w.counts, g, ga.arrivals)
	// A ticket opened by this batch is checked too: its events after the
	// first came while it was open, and whether a burst spikes must not
	// depend on how its events were batched. A new group has no stored
	// counts and no baseline: below the rule's minimum it cannot spike, and
	// nothing need be read.
	mayRaise := !isNew || int64(ga.count) >= p.opts.Spike.Min
	if mayRaise && g.Status == store.GroupUnresolved && g.TicketID != "" && p.hot.checkSpike(g.ID, g.TicketID, ga.count, now, ga.lastBatch.ReceivedAt, ga.envs, p.opts.Spike) {
		w.spikes = append(w.spikes, spikeCheck{g: g, pending: ga.count, at: ga.lastBatch.ReceivedAt, envs: ga.envs, opened: opened != nil})
	}
	return g, events, nil
}

func newGroup(projectID string, ga *groupAgg, now time.Time) store.Group {
	return store.Group{
		ID: id.New(id.Group), ProjectID: projectID, Service: ga.service, Fingerprint: ga.fp.Fingerprint,
		FingerprintVersion: ga.fp.Version, FingerprintRule: string(ga.fp.Rule), Status: store.GroupUnresolved,
		FirstSeen: time.UnixMilli(ga.minTS).UTC(), LastSeen: time.UnixMilli(ga.maxTS).UTC(), FirstRelease: ga.first.Release,
		Title: ga.fp.Title, ExceptionType: ga.fp.ExceptionType, Culprit: ga.fp.Culprit, UpdatedAt: now,
	}
}

// merge adds a batch's figures to a group.
func merge(g *store.Group, ga *groupAgg, now time.Time) {
	g.EventCount += int64(ga.count)
	g.Level = max(g.Level, int(ga.level))
	if first := time.UnixMilli(ga.minTS).UTC(); first.Before(g.FirstSeen) {
		g.FirstSeen = first
	}
	if last := time.UnixMilli(ga.maxTS).UTC(); last.After(g.LastSeen) {
		g.LastSeen = last
	}
	g.Environments = tickets.MergeList(g.Environments, ga.envs)
	g.Releases = tickets.MergeList(g.Releases, ga.rels)
	if g.FirstRelease == "" {
		g.FirstRelease = ga.first.Release
	}
	if ga.last.Release != "" {
		g.LastRelease = ga.last.Release
	}
	if ga.last.Environment != "" {
		g.LastEnvironment = ga.last.Environment
	}
	g.SampleMessage = ga.last.Message
	if ga.lastTrace != "" { // known: the latest of the part's events that had one
		g.LastTraceID = ga.lastTrace
	}
	g.UpdatedAt = now
}

// searchSep joins the messages of a group's search message: a control
// character, which no query holds, so that no phrase matches across two.
const searchSep = "\x1f"

// searchMessage is what free words match besides the title and culprit
// (CONTRACT 8: "sample messages"): the message of the group's first sample,
// then others (newest first: the latest event's, the stored samples'),
// each once, as many as fit in maxSearchMessage.
func searchMessage(first string, others ...string) string {
	var b strings.Builder
	b.WriteString(first)
	seen := map[string]bool{first: true}
	for _, m := range others { // newest first, as many as fit
		if m == "" || seen[m] || b.Len()+len(searchSep)+len(m) > maxSearchMessage {
			continue
		}
		seen[m] = true
		b.WriteString(searchSep)
		b.WriteString(m)
	}
	return b.String()
}

// maxSearchMessage bounds a group's search message: its first sample's
// message and as many of the others as fit (a message is at most 16 KiB).
const maxSearchMessage = 64 << 10

// quietGroup is the event count under which a group refreshes its search
// message with every sample it stores, not once a minute.
const quietGroup = 100

// samplesSearch is g's search message from its stored samples: the first
// sample's message, the latest event's and the kept samples'.
func samplesSearch(ctx context.Context, c *store.Conn, g store.Group) (string, error) {
	kept, err := c.GroupSampleMessages(ctx, g.ID)
	if err != nil {
		return "", err
	}
	return keptSearch(g, kept), nil
}

// keptSearch is g's search message from the messages of its kept samples
// (newest first): the first sample's, the latest event's, then theirs.
func keptSearch(g store.Group, kept []string) string {
	return searchMessage(firstSearched(g), append([]string{g.SampleMessage}, kept...)...)
}

// firstSearched is the first sample's message in g's search message (all
// of it for a group searched before the first was kept there).
func firstSearched(g store.Group) string {
	first, _, _ := strings.Cut(g.SearchMessage, searchSep)
	if first == "" {
		return g.SampleMessage
	}
	return first
}

func sample(groupID string, b store.Batch, e *ingest.Event, first bool) store.GroupEvent {
	attrs := string(e.Attributes)
	if attrs == "" {
		attrs = "{}"
	}
	return store.GroupEvent{GroupID: groupID, First: first, ReceivedAt: b.ReceivedAt, Timestamp: time.UnixMilli(e.Timestamp).UTC(),
		Level: int(e.Level), Message: e.Message, StackTrace: e.StackTrace, Environment: e.Environment, Release: e.Release,
		TraceID: e.TraceID, SpanID: e.SpanID, Attributes: strings.ToValidUTF8(attrs, "\uFFFD"), Symbolication: string(e.Symbolication),
		Detail: strings.ToValidUTF8(ingest.WithAgent(string(e.Detail), sampleAgent(e)), "\uFFFD")}
}

// countReleases adds the batches' error events and new groups to their
// releases (made when new), in a fixed order.
func countReleases(ctx context.Context, c *store.Conn, rels map[relVersion]*releaseAgg) error {
	keys := make([]relVersion, 0, len(rels))
	for k := range rels {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].project != keys[j].project {
			return keys[i].project < keys[j].project
		}
		return keys[i].version < keys[j].version
	})
	for _, k := range keys {
		r := rels[k]
		if err := c.CountReleaseEvents(ctx, k.project, k.version, id.New(id.Release), r.first, r.last, r.events, r.newGroups); err != nil {
			return err
		}
	}
	return nil
}

// appendMinutes adds a group's events by receipt minute to counts: one
// count a minute, however many batches arrived in it.
func appendMinutes(counts []store.GroupCount, g store.Group, arrivals map[int64]int) []store.GroupCount {
	first := len(counts)
next:
	for at, n := range arrivals {
		minute := time.UnixMilli(at).UTC().Truncate(time.Minute)
		for i := first; i < len(counts); i++ {
			if counts[i].Minute.Equal(minute) {
				counts[i].N += n
				continue next
			}
		}
		counts = append(counts, store.GroupCount{GroupID: g.ID, ProjectID: g.ProjectID, Minute: minute, N: n})
	}
	return counts
}
