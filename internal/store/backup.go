package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrBackupUnsupported is Backup on PostgreSQL, whose own tools (pg_dump,
// pg_basebackup, continuous archiving) do the job better than a copy made
// through the application could.
var ErrBackupUnsupported = errors.New("store: backup copies the embedded SQLite database only")

// BackupInfo describes a copy Backup wrote.
type BackupInfo struct {
	// Size is the copy's size in bytes.
	Size int64
	// Schema is where the copy's migrations stand (read back from it).
	Schema Schema
}

// Backup writes a consistent copy of the SQLite database opts select to
// dest, a file that must not exist yet, and syncs it to disk. It may run
// while servers use the database: the copy is the database as one read
// transaction sees it (SQLite's VACUUM INTO), so it holds every commit made
// before that transaction began and nothing of any later one, and writers
// go on meanwhile. It neither creates nor migrates the database, and it
// opens no pool of its own (a pool's Close checkpoints, which would make a
// busy server's writer wait). The copy is compact (free pages are left out),
// a complete database file with no -wal beside it, and readable by its
// owner only: it holds password and key hashes.
func Backup(ctx context.Context, opts Options, dest string) (BackupInfo, error) {
	d, src, err := opts.target()
	if err != nil {
		return BackupInfo{}, err
	}
	if !d.file() {
		return BackupInfo{}, ErrBackupUnsupported
	}
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return BackupInfo{}, missingDB(src)
	}
	// Creating the file first, exclusively, is what refuses to overwrite:
	// VACUUM INTO accepts an existing empty file.
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return BackupInfo{}, fmt.Errorf("store: backup: %s already exists (a backup never overwrites a file)", dest)
	}
	if err != nil {
		return BackupInfo{}, fmt.Errorf("store: backup: %w", err)
	}
	_ = f.Close()
	info, err := vacuumInto(ctx, src, dest)
	if err != nil {
		_ = os.Remove(dest)
		return BackupInfo{}, fmt.Errorf("store: backup of %s to %s: %w", src, dest, err)
	}
	return info, nil
}

// vacuumInto copies the database src into the empty file dest on a
// connection of its own and syncs the result (SQLite writes the copy
// without syncing it).
func vacuumInto(ctx context.Context, src, dest string) (BackupInfo, error) {
	conn, err := sql.Open("sqlite", "file:"+fileURI(src)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return BackupInfo{}, err
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	if _, err := conn.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return BackupInfo{}, translate(err)
	}
	f, err := os.OpenFile(dest, os.O_RDWR, 0)
	if err != nil {
		return BackupInfo{}, err
	}
	st, err := f.Stat()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return BackupInfo{}, err
	}
	// The directory entry must reach the disk too, or a crash could leave
	// a synced file with no name.
	if err := syncDir(filepath.Dir(dest)); err != nil {
		return BackupInfo{}, err
	}
	schema, err := ReadSchema(ctx, Options{URL: "sqlite:" + dest})
	if err != nil {
		return BackupInfo{}, fmt.Errorf("read the copy back: %w", err)
	}
	return BackupInfo{Size: st.Size(), Schema: schema}, nil
}

// syncDir flushes a directory's entries to disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
