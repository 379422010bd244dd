package store

import (
	"context"
	"errors"
	"fmt"
)

// Setting returns a stored server setting, or creates it with the value made
// by create when it is missing. Several processes may race to create it: the
// first insert wins and every process reads that one.
func (db *DB) Setting(ctx context.Context, name string, create func() ([]byte, error)) ([]byte, error) {
	var v []byte
	err := db.Read().queryRow(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v)
	if err == nil {
		return v, nil
	}
	if err = translate(err); !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("store: setting %s: %w", name, err)
	}
	nv, err := create()
	if err != nil {
		return nil, fmt.Errorf("store: make setting %s: %w", name, err)
	}
	if _, err := db.Write().exec(ctx, `INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, name, nv); err != nil {
		return nil, fmt.Errorf("store: save setting %s: %w", name, err)
	}
	if err := db.Write().queryRow(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v); err != nil {
		return nil, fmt.Errorf("store: setting %s: %w", name, translate(err))
	}
	return v, nil
}
