package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestKeyReadsSeeChanges: a key read through DB.APIKeyWithProject (cached
// on SQLite) shows every change to the key and its project as soon as the
// change is made: a revocation in a transaction, new allowed origins, a
// renamed or deleted project; a change rolled back changes nothing; a
// use recorded is recorded once. Readers racing a revocation see it from
// the moment it returns.
func TestKeyReadsSeeChanges(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		k := store.APIKey{ID: id.New(id.Key), ProjectID: p.ID, Name: "k", SecretHash: []byte("h"), CreatedAt: now, AllowedOrigins: store.AllOrigins}
		if err := db.Write().CreateAPIKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		read := func() (store.APIKey, store.Project, error) {
			t.Helper()
			return db.APIKeyWithProject(ctx, k.ID)
		}
		if got, gp, err := read(); err != nil || got.RevokedAt != nil || gp.Name != p.Name {
			t.Fatalf("first read: %+v %+v %v", got, gp, err)
		}

		// A use is recorded, and not again on the next read.
		at := now.Add(time.Hour)
		if err := db.TouchAPIKey(ctx, k.ID, at); err != nil {
			t.Fatal(err)
		}
		if got, _, _ := read(); got.LastUsedAt == nil || !got.LastUsedAt.Equal(at) {
			t.Errorf("last used %v after a use at %v", got.LastUsedAt, at)
		}

		// A change rolled back changes nothing.
		boom := errors.New("rolled back")
		if err := db.Tx(ctx, func(c *store.Conn) error {
			if err := c.UpdateAPIKey(ctx, k.ID, nil, []string{"https://shop.example"}); err != nil {
				return err
			}
			return boom
		}); !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if got, _, _ := read(); len(got.AllowedOrigins) != 1 || got.AllowedOrigins[0] != "*" {
			t.Errorf("origins %v after a rolled-back change, want [*]", got.AllowedOrigins)
		}
		if err := db.Write().UpdateAPIKey(ctx, k.ID, nil, []string{"https://shop.example"}); err != nil {
			t.Fatal(err)
		}
		if got, _, _ := read(); len(got.AllowedOrigins) != 1 || got.AllowedOrigins[0] != "https://shop.example" {
			t.Errorf("origins %v after a change, want the new one", got.AllowedOrigins)
		}
		p.Name, p.Slug = "renamed", "renamed"
		if err := db.Write().UpdateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		if _, gp, _ := read(); gp.Name != "renamed" {
			t.Errorf("project %q after a rename, want renamed", gp.Name)
		}

		// Readers racing a revocation in a transaction.
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						_, _, _ = db.APIKeyWithProject(ctx, k.ID)
					}
				}
			}()
		}
		err := db.Tx(ctx, func(c *store.Conn) error { _, err := c.RevokeAPIKeyOnce(ctx, k.ID, now.Add(2*time.Hour)); return err })
		if err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			if got, _, err := read(); err != nil || got.RevokedAt == nil {
				t.Fatalf("read %d after the revocation returned: revoked %v, %v", i, got.RevokedAt, err)
			}
		}
		close(stop)
		wg.Wait()

		if err := db.Write().DeleteProject(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := read(); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("read after the project's deletion: %v, want not found", err)
		}
	})
}
