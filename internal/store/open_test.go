package store_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/errata-dev/errata/internal/store"
)

// TestOpenTogether opens a fresh SQLite file from several connections at
// once, as `errata migrate` and `errata serve` started together do: each
// first connection switches the file to WAL, and SQLite answers one of two
// such switches SQLITE_BUSY at once, which the open must ride out.
func TestOpenTogether(t *testing.T) {
	ctx := context.Background()
	const rounds, openers = 60, 6
	for round := range rounds {
		path := filepath.Join(t.TempDir(), "errata.db")
		var wg sync.WaitGroup
		errs := make(chan error, openers)
		for range openers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, err := store.Open(ctx, store.Options{URL: "sqlite:" + path})
				if err != nil {
					errs <- err
					return
				}
				errs <- db.Close()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}

// TestOpenSaysTheDirectoryIsMissing: a SQLite URL whose directory does not
// exist is refused naming the directory and the setting, not with
// SQLite's "unable to open database file".
func TestOpenSaysTheDirectoryIsMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nowhere")
	_, err := store.Open(context.Background(), store.Options{URL: "sqlite:" + filepath.Join(dir, "errata.db")})
	if err == nil || !strings.Contains(err.Error(), "the directory "+dir+" does not exist (ERRATA_DATABASE_URL)") {
		t.Fatalf("Open = %v", err)
	}
}
