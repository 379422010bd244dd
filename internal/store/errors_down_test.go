package store

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// TestCorruptFileIsDown: a file that is not a SQLite database (or a
// corrupt one) answers unavailable, as a database that cannot serve, not
// an internal error, and counts against /readyz (isDown).
func TestCorruptFileIsDown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "errata.db")
	if err := os.WriteFile(path, bytes.Repeat([]byte("not a database "), 512), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Exec(`CREATE TABLE t (x INTEGER)`)
	if err == nil {
		t.Fatal("a write to a file that is not a database succeeded")
	}
	if got := translate(err); !IsUnavailable(got) || !isDown(got) {
		t.Errorf("translate(%v) = %v: want unavailable, the database down", err, got)
	}
}
