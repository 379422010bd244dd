package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLockFile: a second holder waits for the first, gives up after its
// wait or when its context ends, and gets the lock once it is released.
func TestLockFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "errata.db.lock")
	unlock, err := lockFile(ctx, path, time.Second)
	if err != nil {
		t.Fatal(err)
	}

	if _, err := lockFile(ctx, path, 100*time.Millisecond); err == nil || !strings.Contains(err.Error(), "another process has held it") {
		t.Fatalf("second lock while held: %v, want a time-out", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := lockFile(cctx, path, time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("second lock with an ended context: %v, want context.Canceled", err)
	}

	got := make(chan error, 1)
	go func() {
		u, err := lockFile(ctx, path, time.Minute)
		if err == nil {
			u()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("second lock returned %v while the first was held", err)
	case <-time.After(200 * time.Millisecond):
	}
	unlock()
	if err := <-got; err != nil {
		t.Fatalf("second lock after release: %v", err)
	}
}
