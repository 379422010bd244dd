package notify

import (
	"context"
	"slices"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/store"
)

// recordChannel writes an audit entry about channel ch of project p (read
// in c when only its id is known) to the organization's log, with changes
// (field: {from, to}) when there are any. Secrets are never written.
func (s *Service) recordChannel(ctx context.Context, c *store.Conn, p store.Project, action string, ch store.Channel, changes map[string]any) error {
	if p.OrgID == "" {
		var err error
		if p, err = c.ProjectByID(ctx, p.ID); err != nil {
			return err
		}
	}
	data := map[string]any{"name": ch.Name, "type": ch.Type, "project_id": p.ID}
	if ch.Email != "" {
		data["email"] = ch.Email
	}
	if ch.URL != "" {
		data["url"] = ch.URL
	}
	if len(changes) > 0 {
		data["changes"] = changes
	}
	return audit.Record(ctx, c, audit.Entry{OrgID: p.OrgID, Action: action, Target: ch.ID, Data: data, At: s.now()})
}

// channelChanges lists what a patch changed of a channel.
func channelChanges(a, b store.Channel) map[string]any {
	out := map[string]any{}
	change := func(field string, from, to any) { out[field] = map[string]any{"from": from, "to": to} }
	if a.Name != b.Name {
		change("name", a.Name, b.Name)
	}
	if a.Email != b.Email {
		change("email", a.Email, b.Email)
	}
	if a.URL != b.URL {
		change("url", a.URL, b.URL)
	}
	if a.Format != b.Format {
		change("format", a.Format, b.Format)
	}
	if a.Enabled != b.Enabled {
		change("enabled", a.Enabled, b.Enabled)
	}
	if a.Filters.MinSeverity != b.Filters.MinSeverity || !slices.Equal(a.Filters.Services, b.Filters.Services) ||
		!slices.Equal(a.Filters.Environments, b.Filters.Environments) {
		change("filters", filtersData(a.Filters), filtersData(b.Filters))
	}
	return out
}

// filtersData is filters as the channel object shows them (snake_case
// fields, empty lists as []).
func filtersData(f store.Filters) map[string]any {
	list := func(v []string) []string {
		if v == nil {
			return []string{}
		}
		return v
	}
	return map[string]any{"min_severity": f.MinSeverity, "environments": list(f.Environments), "services": list(f.Services)}
}
