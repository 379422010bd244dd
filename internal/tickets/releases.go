package tickets

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"time"

	version "github.com/hashicorp/go-version"

	"github.com/errata-dev/errata/internal/store"
)

// ResolveNext is the resolved_in that means the next release: newer than
// the newest the project has seen when the group is resolved. It is stored
// as that release, or as itself when the project has seen none (then any
// event that names a release regresses the group).
const ResolveNext = "next"

// semverGrammar is SemVer 2.0.0's grammar: MAJOR.MINOR.PATCH without
// leading zeros, an optional pre-release and build metadata.
var semverGrammar = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// semver reads v as a semantic version (a leading v allowed), or nil when
// it is not one. Only SemVer 2.0.0 counts (CONTRACT 8: "semver order when
// both versions parse as semver"): "1.2", "1.2.3.4" and "2024.01.05" are
// not, and are ordered as the project first saw them, like any other
// name. go-version alone would read them leniently (1.2 as 1.2.0).
func semver(v string) *version.Version {
	v = strings.TrimPrefix(v, "v")
	if !semverGrammar.MatchString(v) {
		return nil
	}
	s, err := version.NewSemver(v)
	if err != nil {
		return nil
	}
	return s
}

// releaseOrder compares releases of one project (CONTRACT 8): semver order
// when both parse, else the order in which the project first saw them (a
// release it has not seen yet is newer than every seen one, except the
// release a group was resolved in, which is newest until it is seen).
type releaseOrder struct {
	seen map[string]time.Time
}

func newReleaseOrder(ctx context.Context, c *store.Conn, projectID string, versions []string) (releaseOrder, error) {
	seen, err := c.ReleaseFirstSeen(ctx, projectID, versions)
	return releaseOrder{seen: seen}, err
}

// newer reports whether release a is newer than base.
func (o releaseOrder) newer(a, base string) bool {
	if a == base || a == "" {
		return false
	}
	if sa, sb := semver(a), semver(base); sa != nil && sb != nil {
		return sa.GreaterThan(sb)
	}
	tb, ok := o.seen[base]
	if !ok {
		return false // base not seen yet: every release so far came before it
	}
	ta, ok := o.seen[a]
	if !ok {
		return true // first seen by this batch, after base
	}
	return ta.After(tb) || (ta.Equal(tb) && a > base)
}

// newestRelease is the newest release a project has seen (CONTRACT 8's
// order, over its latest first-seen releases); "" when none.
func newestRelease(ctx context.Context, c *store.Conn, projectID string) (string, error) {
	recent, err := c.RecentReleases(ctx, projectID, 1000)
	if err != nil || len(recent) == 0 {
		return "", err
	}
	o, err := newReleaseOrder(ctx, c, projectID, recent)
	if err != nil {
		return "", err
	}
	best := recent[0]
	for _, v := range recent[1:] {
		if o.newer(v, best) {
			best = v
		}
	}
	return best, nil
}

// Regresses reports whether a batch of events of the releases rels reopens
// a resolved group: always, unless it was resolved in a release; then only
// when one of rels is newer than that release (events of older or equal
// releases, or of none, are counted without reopening it).
func Regresses(ctx context.Context, c *store.Conn, g store.Group, rels []string) (bool, error) {
	switch g.ResolvedIn {
	case "":
		return true, nil
	case ResolveNext: // resolved in the next release before any was seen
		return slices.ContainsFunc(rels, func(r string) bool { return r != "" }), nil
	}
	o, err := newReleaseOrder(ctx, c, g.ProjectID, append([]string{g.ResolvedIn}, rels...))
	if err != nil {
		return false, err
	}
	for _, r := range rels {
		if o.newer(r, g.ResolvedIn) {
			return true, nil
		}
	}
	return false, nil
}
