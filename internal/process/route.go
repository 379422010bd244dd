package process

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/summary"
)

// Upgrades must not re-open known problems: a change of the fingerprint
// algorithm moves events to new fingerprints. A group made by an older
// version therefore keeps receiving the events whose fingerprint under
// that version matches it (as Sentry's grouping-config transition does with
// secondary hashes); events that match no such group make groups of the
// current version. This release's new groups are of the current version;
// an older release running beside it (a rolling upgrade) may still make
// groups of its own version, so an error may have one of each, and this
// release's own group then takes its events when it was made first
// (target).

// fingerprints are one distinct event's fingerprints: the current version's
// and, when groups of older versions exist, theirs (by version).
type fingerprints struct {
	in      grouping.Input
	current grouping.Result
	older   map[int]string
	// same lists the older versions that give the current fingerprint
	// (not in older: the current key's group is theirs too).
	same []int
}

// fingerprints returns those of e, an event of projectID, computed once per
// distinct event of the batches.
func (p *prepared) fingerprints(projectID string, e *ingest.Event) *fingerprints {
	rules := p.rules[projectID]
	ck := e.Message + "\x00" + e.StackTrace
	switch {
	case rules != nil:
		// Rules match the level and any attribute, and differ by project.
		ck += "\x00" + projectID + "\x00" + e.Level.String() + "\x00" + string(e.Attributes)
	case hasGroupingAttrs(e.Attributes):
		// The level too: an event's own fingerprint may name it.
		ck += "\x00" + e.Level.String() + "\x00" + string(e.Attributes)
	}
	f, ok := p.fps[ck]
	if !ok {
		f = p.memos.fingerprint(ck, e, rules)
		p.fps[ck] = f
	}
	if p.legacy != nil && f.older == nil {
		f.older = map[int]string{}
		for _, v := range grouping.Versions() {
			if v == grouping.Version {
				continue
			}
			// One the current version agrees with needs no look-up: the
			// group of its key is found as the current one's is (a key
			// names no version), so most events of groups of the version
			// before cost no query per part.
			if r, ok := grouping.FingerprintVersion(f.in, v); ok && r.Fingerprint != f.current.Fingerprint {
				f.older[v] = r.Fingerprint
			} else if ok {
				f.same = append(f.same, v)
			}
		}
	}
	return f
}

// target is the fingerprint of the group that takes an event of projectID
// and service: walking the older versions newest first, the first whose
// fingerprint of the event names a group of that version, else the
// current version's. A version that gives the event the current
// fingerprint names the current key's group (f.same; a key names no
// version, so it is looked up once, in currentFound), except the previous
// version's: the release before took its current key last, so a group of
// that version there counts as the current version's. One addition: while
// an older release runs beside this one (a rolling upgrade), an error may
// get a group of each version, this release's first; the current key's
// group then keeps this release's events when it was made before the
// older one. Group ids are ordered by their creation
// (internal/id), as far as the hosts' clocks agree.
func (p *prepared) target(projectID, service string, f *fingerprints) (string, bool) {
	if p.legacy == nil {
		return f.current.Fingerprint, false
	}
	cur, hasCur := p.currentFound[store.GroupKey{ProjectID: projectID, Service: service, Fingerprint: f.current.Fingerprint}]
	// The release before this one (version prev current) walked the
	// versions below prev and took its current key last: a group of
	// prev at the current key is the current one as it saw it, as is one
	// of this version.
	prev := grouping.Version - 1
	current := hasCur && (cur.Version == grouping.Version || cur.Version == prev && slices.Contains(f.same, prev))
	vs := grouping.Versions()
	for i := len(vs) - 1; i >= 0; i-- {
		v := vs[i]
		if v == grouping.Version {
			continue
		}
		if hasCur && cur.Version == v && v < prev && slices.Contains(f.same, v) {
			return f.current.Fingerprint, false // version v's group of the event, at the current key
		}
		ofp, ok := f.older[v]
		if !ok {
			continue
		}
		old, ok := p.legacy[store.GroupKey{ProjectID: projectID, Service: service, Fingerprint: ofp}]
		if !ok || old.Version != v {
			continue // none, or another version's group (another error's)
		}
		if current && cur.ID < old.ID {
			break // the current key's own group, made first
		}
		return ofp, true
	}
	return f.current.Fingerprint, false
}

// legacyLookup returns the groups of fingerprint version v that keys name.
type legacyLookup func(ctx context.Context, keys []store.GroupKey, v int) (map[store.GroupKey]store.GroupRef, error)

// findLegacy fingerprints the batches' error events under the older
// versions and finds the groups of those versions they match.
func (p *prepared) findLegacy(ctx context.Context, batches []store.Batch, decoded [][]ingest.Event, old legacyLookup) error {
	p.legacy, p.currentFound = map[store.GroupKey]store.GroupRef{}, map[store.GroupKey]store.GroupRef{}
	byVersion := map[int][]store.GroupKey{}
	// By version: two older versions often give an event the same
	// fingerprint, and the group may be of either.
	type versionKey struct {
		v int
		k store.GroupKey
	}
	seen := map[versionKey]bool{}
	olderOf := map[store.GroupKey][]store.GroupKey{} // current key: its older keys
	for i, b := range batches {
		for j := range decoded[i] {
			e := &decoded[i][j]
			if summary.Counts(e.Level) {
				continue
			}
			f := p.fingerprints(b.ProjectID, e)
			for v, fp := range f.older {
				k := store.GroupKey{ProjectID: b.ProjectID, Service: e.Service, Fingerprint: fp}
				if vk := (versionKey{v, k}); !seen[vk] {
					seen[vk] = true
					byVersion[v] = append(byVersion[v], k)
				}
			}
			if len(f.older) > 0 {
				k := store.GroupKey{ProjectID: b.ProjectID, Service: e.Service, Fingerprint: f.current.Fingerprint}
				for _, fp := range f.older {
					if o := (store.GroupKey{ProjectID: b.ProjectID, Service: e.Service, Fingerprint: fp}); !slices.Contains(olderOf[k], o) {
						olderOf[k] = append(olderOf[k], o)
					}
				}
			}
		}
	}
	for v, keys := range byVersion {
		found, err := old(ctx, keys, v)
		if err != nil {
			return err
		}
		for k, r := range found {
			p.legacy[k] = r
		}
	}
	// Whether the current version has its group too (target), only for
	// the events an older group matched.
	var current []store.GroupKey
	for k, olders := range olderOf {
		if slices.ContainsFunc(olders, func(o store.GroupKey) bool { _, ok := p.legacy[o]; return ok }) {
			current = append(current, k)
		}
	}
	if len(current) > 0 {
		found, err := old(ctx, current, store.AnyVersion) // a key names no version
		if err != nil {
			return err
		}
		p.currentFound = found
	}
	return nil
}

// legacyRecheck is how often a processor that found no group of an older
// version looks again: processes of an older release may still make some
// during a rolling upgrade.
const legacyRecheck = 5 * time.Minute

// legacyGroups remembers whether groups of older versions exist.
type legacyGroups struct {
	mu      sync.Mutex
	exist   bool
	checked time.Time
}

// lookup returns how to find groups of older versions, or nil when there
// are none (checked at most every legacyRecheck while there are none).
func (p *Processor) legacyLookup(ctx context.Context) (legacyLookup, error) {
	l := &p.legacy
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.exist && (l.checked.IsZero() || time.Since(l.checked) >= legacyRecheck) {
		exist, err := p.db.Read().HasGroupsBelowVersion(ctx, grouping.Version)
		if err != nil {
			return nil, err
		}
		l.exist, l.checked = exist, time.Now()
	}
	if !l.exist {
		return nil, nil
	}
	return p.db.Read().GroupsOfVersion, nil
}
