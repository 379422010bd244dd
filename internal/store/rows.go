package store

import (
	"fmt"
	"strings"
)

// collect scans every row with scan and closes rows.
func collect[T any](rows *boundRows, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("store: scan: %w", translate(err))
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: rows: %w", translate(err))
	}
	return out, nil
}

// scanOne reads a row of one column: collect(rows, scanOne[string]).
func scanOne[T any](s interface{ Scan(...any) error }) (T, error) {
	var v T
	return v, s.Scan(&v)
}

// tuples is n copies of tuple separated by commas: the placeholders of a
// multi-row VALUES or of an IN list ("?" or "(?, ?, ?)").
func tuples(n int, tuple string) string {
	if n <= 0 {
		return ""
	}
	return tuple + strings.Repeat(", "+tuple, n-1)
}

// prefixCols prefixes each column of a list with a table alias.
func prefixCols(prefix, cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = prefix + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}
