package process

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
)

// knownReleases remembers the releases this process has recorded in
// the releases table with a first_seen (committed), so that a steady stream of one release costs
// no statement per transaction. It is only an optimisation: after a
// restart, or once it holds maxKnownReleases and is emptied, the insert
// (ON CONFLICT DO NOTHING) runs again.
type knownReleases struct {
	mu sync.Mutex
	m  map[string]bool
}

const maxKnownReleases = 100_000

func releaseKey(project, version string) string { return project + "\x00" + version }

// unknown returns the versions of project not known to be recorded.
func (k *knownReleases) unknown(project string, versions []string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for _, v := range versions {
		if !k.m[releaseKey(project, v)] {
			out = append(out, v)
		}
	}
	return out
}

// committed records keys whose insert has committed.
func (k *knownReleases) committed(keys []string) {
	if len(keys) == 0 {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil || len(k.m)+len(keys) > maxKnownReleases {
		k.m = map[string]bool{}
	}
	for _, key := range keys {
		k.m[key] = true
	}
}

// noteReleases records in c's transaction the releases the batches
// carried that this process does not know to be recorded, and returns
// their keys for committed once the transaction has committed.
func (p *Processor) noteReleases(ctx context.Context, c *store.Conn, values map[valueKind]map[string]time.Time) ([]string, error) {
	var kinds []valueKind
	for k := range values {
		if k.kind == valueRelease {
			kinds = append(kinds, k)
		}
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].project < kinds[j].project })
	var keys []string
	for _, k := range kinds {
		vs, at := sortedValues(values[k])
		vs = p.releases.unknown(k.project, vs)
		if err := c.NoteReleases(ctx, k.project, vs, newReleaseID, at); err != nil {
			return nil, err
		}
		for _, v := range vs {
			keys = append(keys, releaseKey(k.project, v))
		}
	}
	return keys, nil
}

func newReleaseID() string { return id.New(id.Release) }
