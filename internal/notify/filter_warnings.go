package notify

import (
	"context"
	"fmt"
	"strings"

	"github.com/errata-dev/errata/internal/store"
)

// FilterWarning says that a channel's filter names a value no event of its
// project has carried in the last 30 days (CONTRACT 8): filters match
// exactly, so such a filter silently takes no ticket ("Production" when
// the events say "production").
type FilterWarning struct {
	// Filter is "environments" or "services".
	Filter, Value, Message string
}

// filterKinds are the filters warned about, with the kind of value
// processing records for each (store.TouchProjectValues).
var filterKinds = []struct {
	filter, kind, noun string
	values             func(store.Filters) []string
}{
	{"environments", store.ValueEnvironment, "environment", func(f store.Filters) []string { return f.Environments }},
	{"services", store.ValueService, "service", func(f store.Filters) []string { return f.Services }},
}

// maxSuggested bounds the near values one warning names.
const maxSuggested = 3

// FilterWarnings returns the warnings of each of filters, the filters of
// channels of projectID, in their order: one indexed read per kind of
// filter for the whole list, none when no filter names a value.
func (s *Service) FilterWarnings(ctx context.Context, projectID string, filters []store.Filters) ([][]FilterWarning, error) {
	out := make([][]FilterWarning, len(filters))
	since := s.now().Add(-store.ValuesKept)
	for _, k := range filterKinds {
		var norms []string
		for _, f := range filters {
			for _, v := range k.values(f) {
				norms = append(norms, store.NormValue(v))
			}
		}
		if len(norms) == 0 {
			continue
		}
		seen, err := s.db.Read().ProjectValuesLike(ctx, projectID, k.kind, dedupe(norms), since)
		if err != nil {
			return nil, err
		}
		exact, near := map[string]bool{}, map[string][]string{}
		for _, v := range seen {
			exact[v.Value] = true
			n := store.NormValue(v.Value)
			near[n] = append(near[n], v.Value)
		}
		for i, f := range filters {
			for _, v := range k.values(f) {
				if !exact[v] {
					out[i] = append(out[i], FilterWarning{Filter: k.filter, Value: v, Message: warningMessage(k.noun, v, near[store.NormValue(v)])})
				}
			}
		}
	}
	return out, nil
}

// warningMessage explains a warning, suggesting the values events carried
// that differ from v only by case or spaces.
func warningMessage(noun, v string, near []string) string {
	msg := fmt.Sprintf("no event of this project has had the %s %q in the last 30 days", noun, v)
	if len(near) == 0 {
		return msg + "; the filter takes no ticket until one has"
	}
	quoted := make([]string, 0, maxSuggested)
	for _, n := range near[:min(len(near), maxSuggested)] {
		quoted = append(quoted, fmt.Sprintf("%q", n))
	}
	return msg + "; its events say " + strings.Join(quoted, " or ") + " (filters match exactly)"
}

func dedupe(vs []string) []string {
	seen := make(map[string]bool, len(vs))
	out := vs[:0]
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
