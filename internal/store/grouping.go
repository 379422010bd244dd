package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// GroupingRules are a project's grouping rules (CONTRACT 8), as written.
type GroupingRules struct {
	ProjectID   string
	Fingerprint string
	StackTrace  string
	UpdatedAt   time.Time
	UpdatedBy   string // the user who last changed them
}

// GroupingRules returns a project's rules; a project that never had any
// has empty ones (zero UpdatedAt).
func (c *Conn) GroupingRules(ctx context.Context, projectID string) (GroupingRules, error) {
	r := GroupingRules{ProjectID: projectID}
	var at int64
	err := c.queryRow(ctx, `SELECT fingerprint, stack_trace, updated_at, updated_by FROM grouping_rules WHERE project_id = ?`, projectID).
		Scan(&r.Fingerprint, &r.StackTrace, &at, &r.UpdatedBy)
	switch err = translate(err); {
	case errors.Is(err, ErrNotFound):
		return r, nil
	case err != nil:
		return r, fmt.Errorf("store: grouping rules of %s: %w", projectID, err)
	}
	r.UpdatedAt = fromMS(at)
	return r, nil
}

// GroupingRulesOf returns the non-empty rules of the projects named, by
// project: what processing applies to their events.
func (c *Conn) GroupingRulesOf(ctx context.Context, projectIDs []string) (map[string]GroupingRules, error) {
	out := map[string]GroupingRules{}
	if len(projectIDs) == 0 {
		return out, nil
	}
	args := make([]any, len(projectIDs))
	for k, id := range projectIDs {
		args[k] = id
	}
	rows, err := c.query(ctx, `SELECT project_id, fingerprint, stack_trace, updated_at, updated_by FROM grouping_rules
		WHERE project_id IN (`+tuples(len(projectIDs), "?")+`) AND (fingerprint <> '' OR stack_trace <> '')`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: grouping rules: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r GroupingRules
		var at int64
		if err := rows.Scan(&r.ProjectID, &r.Fingerprint, &r.StackTrace, &at, &r.UpdatedBy); err != nil {
			return nil, fmt.Errorf("store: grouping rules: %w", err)
		}
		r.UpdatedAt = fromMS(at)
		out[r.ProjectID] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: grouping rules: %w", err)
	}
	return out, nil
}

// PutGroupingRules replaces a project's rules.
func (c *Conn) PutGroupingRules(ctx context.Context, r GroupingRules) error {
	_, err := c.exec(ctx, `INSERT INTO grouping_rules (project_id, fingerprint, stack_trace, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (project_id) DO UPDATE SET fingerprint = excluded.fingerprint, stack_trace = excluded.stack_trace,
		updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
		r.ProjectID, r.Fingerprint, r.StackTrace, ms(r.UpdatedAt), r.UpdatedBy)
	if err != nil {
		return fmt.Errorf("store: put grouping rules of %s: %w", r.ProjectID, err)
	}
	return nil
}

// GroupGrouping is what made a group's fingerprint: the algorithm version
// and its components as JSON (grouping.Component).
type GroupGrouping struct {
	GroupID    string
	Version    int
	Components string
}

// InsertGroupGrouping records what made a new group's fingerprint.
func (c *Conn) InsertGroupGrouping(ctx context.Context, g GroupGrouping) error {
	if _, err := c.exec(ctx, `INSERT INTO group_grouping (group_id, version, components) VALUES (?, ?, ?) ON CONFLICT (group_id) DO NOTHING`,
		g.GroupID, g.Version, g.Components); err != nil {
		return fmt.Errorf("store: insert grouping of %s: %w", g.GroupID, err)
	}
	return nil
}

// GroupGroupingOf returns what made a group's fingerprint; ErrNotFound for
// a group made before it was recorded.
func (c *Conn) GroupGroupingOf(ctx context.Context, groupID string) (GroupGrouping, error) {
	g := GroupGrouping{GroupID: groupID}
	err := c.queryRow(ctx, `SELECT version, components FROM group_grouping WHERE group_id = ?`, groupID).Scan(&g.Version, &g.Components)
	if err != nil {
		return g, fmt.Errorf("store: grouping of %s: %w", groupID, translate(err))
	}
	return g, nil
}
