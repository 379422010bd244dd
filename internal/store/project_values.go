package store

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// The kinds of value project_values records.
const (
	ValueEnvironment = "environment"
	ValueService     = "service"
)

// MaxProjectValues bounds the values of one kind a project keeps: a sender
// making up a new environment per event fills it and then records nothing
// new until retention frees rows (which only costs warnings their
// accuracy).
const MaxProjectValues = 1000

// ValuesKept is how long a value no event carried stays recorded; filter
// warnings look that far back.
const ValuesKept = 30 * 24 * time.Hour

// valueRefresh is how stale last_seen may grow before a batch carrying the
// value writes it again.
const valueRefresh = time.Hour

// SeenValue is an environment or service events of a project carried.
type SeenValue struct {
	Kind, Value string
	LastSeen    time.Time
}

// NormValue is v as filter suggestions compare it: lower-cased, without
// spaces ("Production", " production" and "pro duction" are one).
func NormValue(v string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, v)
}

// TouchProjectValues records that events of projectID received at at carried
// values of kind: a known value has its last_seen moved when it is an hour
// old or more, a new one is added while the project keeps fewer than
// MaxProjectValues of the kind. Call it in the processing transaction,
// under the project's lock; values holds at most a few hundred.
func (c *Conn) TouchProjectValues(ctx context.Context, projectID, kind string, values []string, at time.Time) error {
	if len(values) == 0 {
		return nil
	}
	args := []any{projectID, kind}
	for _, v := range values {
		args = append(args, v)
	}
	rows, err := c.query(ctx, `SELECT value, last_seen FROM project_values WHERE project_id = ? AND kind = ? AND value IN (`+tuples(len(values), "?")+`)`, args...)
	if err != nil {
		return fmt.Errorf("store: project values: %w", err)
	}
	known, err := collect(rows, scanSeenValue(kind))
	if err != nil {
		return fmt.Errorf("store: project values: %w", err)
	}
	seen := make(map[string]bool, len(known))
	for _, k := range known {
		seen[k.Value] = true
		if at.Sub(k.LastSeen) < valueRefresh {
			continue
		}
		if _, err := c.exec(ctx, `UPDATE project_values SET last_seen = ? WHERE project_id = ? AND kind = ? AND value = ? AND last_seen < ?`,
			ms(at), projectID, kind, k.Value, ms(at)); err != nil {
			return fmt.Errorf("store: touch project value: %w", err)
		}
	}
	return c.addProjectValues(ctx, projectID, kind, values, seen, at)
}

// addProjectValues adds the values not seen yet, within MaxProjectValues.
func (c *Conn) addProjectValues(ctx context.Context, projectID, kind string, values []string, seen map[string]bool, at time.Time) error {
	if len(seen) == len(values) {
		return nil
	}
	var n int
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM project_values WHERE project_id = ? AND kind = ?`, projectID, kind).Scan(&n); err != nil {
		return fmt.Errorf("store: count project values: %w", err)
	}
	for _, v := range values {
		if seen[v] {
			continue
		}
		if n >= MaxProjectValues {
			return nil
		}
		if _, err := c.exec(ctx, `INSERT INTO project_values (project_id, kind, value, norm, last_seen) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (project_id, kind, value) DO NOTHING`, projectID, kind, v, NormValue(v), ms(at)); err != nil {
			return fmt.Errorf("store: add project value: %w", err)
		}
		n++
	}
	return nil
}

// ProjectValuesLike returns the values of kind that events of projectID
// carried since since whose NormValue is one of norms.
func (c *Conn) ProjectValuesLike(ctx context.Context, projectID, kind string, norms []string, since time.Time) ([]SeenValue, error) {
	var out []SeenValue
	for start := 0; start < len(norms); start += 500 {
		part := norms[start:min(start+500, len(norms))]
		args := []any{projectID, kind, ms(since)}
		for _, n := range part {
			args = append(args, n)
		}
		rows, err := c.query(ctx, `SELECT value, last_seen FROM project_values WHERE project_id = ? AND kind = ? AND last_seen >= ?
			AND norm IN (`+tuples(len(part), "?")+`) ORDER BY value`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: project values like: %w", err)
		}
		vs, err := collect(rows, scanSeenValue(kind))
		if err != nil {
			return nil, fmt.Errorf("store: project values like: %w", err)
		}
		out = append(out, vs...)
	}
	return out, nil
}

// scanSeenValue scans value, last_seen of kind.
func scanSeenValue(kind string) func(interface{ Scan(...any) error }) (SeenValue, error) {
	return func(s interface{ Scan(...any) error }) (SeenValue, error) {
		v := SeenValue{Kind: kind}
		var last int64
		err := s.Scan(&v.Value, &last)
		v.LastSeen = fromMS(last)
		return v, err
	}
}
