package process

import (
	"context"
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
// groups of its own version, so an error may have one of each, and the
// current version's then takes this release's events (target).

// fingerprints are one distinct event's fingerprints: the current version's
// and, when groups of older versions exist, theirs (by version).
type fingerprints struct {
	in      grouping.Input
	current grouping.Result
	older   map[int]string
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
			}
		}
	}
	return f
}

// target is the fingerprint of the group that takes an event of projectID
// and service: the current version's group when there is one, else a group
// of an older version matching it (the newest such version first), else
// the current version's. The current one wins because, while processes of
// an older release run beside this one (a rolling upgrade), an error may
// have a group of each: this release's events then keep going to its
// own.
func (p *prepared) target(projectID, service string, f *fingerprints) (string, bool) {
	if p.legacy != nil && !p.currentFound[store.GroupKey{ProjectID: projectID, Service: service, Fingerprint: f.current.Fingerprint}] {
		vs := grouping.Versions()
		for i := len(vs) - 1; i >= 0; i-- {
			if fp, ok := f.older[vs[i]]; ok && p.legacy[store.GroupKey{ProjectID: projectID, Service: service, Fingerprint: fp}] {
				return fp, true
			}
		}
	}
	return f.current.Fingerprint, false
}

// legacyLookup reports which keys name a group of fingerprint version v.
type legacyLookup func(ctx context.Context, keys []store.GroupKey, v int) (map[store.GroupKey]bool, error)

// findLegacy fingerprints the batches' error events under the older
// versions and finds the groups of those versions they match.
func (p *prepared) findLegacy(ctx context.Context, batches []store.Batch, decoded [][]ingest.Event, old legacyLookup) error {
	p.legacy, p.currentFound = map[store.GroupKey]bool{}, map[store.GroupKey]bool{}
	byVersion := map[int][]store.GroupKey{}
	// By version: two older versions often give an event the same
	// fingerprint, and the group may be of either.
	type versionKey struct {
		v int
		k store.GroupKey
	}
	seen := map[versionKey]bool{}
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
			if len(f.older) > 0 { // and whether the current version has its group
				k := store.GroupKey{ProjectID: b.ProjectID, Service: e.Service, Fingerprint: f.current.Fingerprint}
				if vk := (versionKey{grouping.Version, k}); !seen[vk] {
					seen[vk] = true
					byVersion[grouping.Version] = append(byVersion[grouping.Version], k)
				}
			}
		}
	}
	for v, keys := range byVersion {
		found, err := old(ctx, keys, v)
		if err != nil {
			return err
		}
		into := p.legacy
		if v == grouping.Version {
			into = p.currentFound
		}
		for k := range found {
			into[k] = true
		}
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
