package notify

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/text"
	"github.com/errata-dev/errata/internal/tickets"
)

// MaxFilterValues is the most environments, or services, a channel's
// filters list.
const MaxFilterValues = 50

// FiltersPatch changes a channel's filters; nil fields stay. An empty list
// means all.
type FiltersPatch struct {
	MinSeverity  *string
	Environments *[]string
	Services     *[]string
}

// apply returns f changed by p.
func (p *FiltersPatch) apply(f store.Filters) store.Filters {
	if p == nil {
		return f
	}
	if p.MinSeverity != nil {
		f.MinSeverity = *p.MinSeverity
	}
	if p.Environments != nil {
		f.Environments = *p.Environments
	}
	if p.Services != nil {
		f.Services = *p.Services
	}
	return f
}

// checkFilters validates filters (422 naming the field, as
// filters.min_severity) and returns them with the defaults filled in and
// duplicate values dropped.
func checkFilters(f store.Filters) (store.Filters, error) {
	if f.MinSeverity == "" {
		f.MinSeverity = store.DefaultMinSeverity
	}
	if _, ok := tickets.ParseSeverity(f.MinSeverity); !ok {
		return f, problem.Newf("validation-failed", "filters.min_severity: want %s, got %q", severityChoice(), f.MinSeverity)
	}
	var err error
	if f.Environments, err = checkValues("filters.environments", f.Environments, ingest.MaxEnvironmentLen); err != nil {
		return f, err
	}
	if f.Services, err = checkValues("filters.services", f.Services, ingest.MaxServiceLen); err != nil {
		return f, err
	}
	return f, nil
}

// severityChoice lists the severities for a problem's detail.
func severityChoice() string {
	var names []string
	for _, s := range tickets.Severities() {
		names = append(names, s.String())
	}
	return strings.Join(names, ", ")
}

// checkValues checks a filter's list: at most MaxFilterValues values, each
// trimmed of surrounding spaces (" production" would never match an event)
// and then as events carry them: 1 to maxLen characters (422 naming the list, as
// before) of UTF-8 text without a control character, tab and newline
// included once the value is trimmed (CONTRACT 8; 422 naming the value, as
// filters.environments[0]).
func checkValues(field string, vs []string, maxLen int) ([]string, error) {
	if len(vs) > MaxFilterValues {
		return nil, problem.Newf("validation-failed", "%s: at most %d values, got %d", field, MaxFilterValues, len(vs))
	}
	out := make([]string, 0, len(vs))
	for i, v := range vs {
		at := field + "[" + strconv.Itoa(i) + "]"
		if err := text.Check(at, v); err != nil {
			return nil, err
		}
		v = strings.TrimSpace(v)
		if strings.ContainsAny(v, "\t\n") { // allowed in other strings, never in an event's environment or service
			return nil, problem.Newf("validation-failed", "%s: must not contain control characters", at)
		}
		if v == "" || utf8.RuneCountInString(v) > maxLen { // characters, as ingestion counts them
			return nil, problem.Newf("validation-failed", "%s: each value must be 1 to %d characters, not blank, got %q", field, maxLen, vs[i])
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// wants reports whether ch is sent the ticket event ev at once: its
// severity is at least the channel's minimum, and its environments and
// service are among those the channel lists (an empty list takes all).
// An event's environments are those of the events that caused it, or the
// group's last one.
func wants(ch store.Channel, ev tickets.Event) bool {
	least, ok := tickets.ParseSeverity(ch.Filters.MinSeverity)
	if !ok {
		least = tickets.High
	}
	if ev.Severity() < least {
		return false
	}
	if f := ch.Filters.Services; len(f) > 0 && !slices.Contains(f, ev.Group.Service) {
		return false
	}
	if f := ch.Filters.Environments; len(f) > 0 {
		envs := ev.Environments
		if len(envs) == 0 && ev.Group.LastEnvironment != "" {
			envs = []string{ev.Group.LastEnvironment}
		}
		return slices.ContainsFunc(envs, func(e string) bool { return slices.Contains(f, e) })
	}
	return true
}
