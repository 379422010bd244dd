package store_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestArtifactPieces: a file written from a reader is kept in pieces and
// read back whole (ArtifactData) or by its end (ArtifactTail); one over its
// limit is refused; deleting its release deletes its pieces.
func TestArtifactPieces(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		rel, err := db.Write().EnsureRelease(ctx, p.ID, "2.0", id.New(id.Release), now)
		if err != nil {
			t.Fatal(err)
		}
		data := []byte(strings.Repeat("function f(){return 1}\n", 3*store.ArtifactPiece/23) + "//# sourceMappingURL=main.js.map\n")
		a := store.Artifact{ID: id.New(id.Artifact), ProjectID: p.ID, ReleaseID: rel.ID, URL: "~/main.js", Kind: "minified_source", CreatedAt: now}
		err = db.Tx(ctx, func(tx *store.Conn) error {
			n, err := tx.WriteArtifact(ctx, a, bytes.NewReader(data), int64(len(data)))
			if err == nil && n != int64(len(data)) {
				t.Errorf("wrote %d bytes, want %d", n, len(data))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().ArtifactByURL(ctx, rel.ID, "", "~/main.js")
		if err != nil || got.Size != int64(len(data)) || got.Data != nil {
			t.Fatalf("ArtifactByURL = %+v, %v", got, err)
		}
		whole, err := db.Read().ArtifactData(ctx, got)
		if err != nil || !bytes.Equal(whole, data) {
			t.Fatalf("ArtifactData: %d bytes, %v; want %d equal bytes", len(whole), err, len(data))
		}
		tail, err := db.Read().ArtifactTail(ctx, got.ID, 100)
		if err != nil || !bytes.Equal(tail, data[len(data)-100:]) {
			t.Errorf("ArtifactTail = %q, %v", tail, err)
		}
		big := store.Artifact{ID: id.New(id.Artifact), ProjectID: p.ID, ReleaseID: rel.ID, URL: "~/big.js", Kind: "source", CreatedAt: now}
		err = db.Tx(ctx, func(tx *store.Conn) error {
			_, err := tx.WriteArtifact(ctx, big, bytes.NewReader(data), int64(len(data)-1))
			return err
		})
		if !errors.Is(err, store.ErrArtifactTooLarge) {
			t.Errorf("a file over its limit: %v", err)
		}
		if _, err := db.Read().ArtifactByURL(ctx, rel.ID, "", "~/big.js"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the refused file was kept: %v", err)
		}
		if _, err := db.Write().Prune(ctx, store.DefaultRetention, now.AddDate(1, 0, 0)); err != nil {
			t.Fatal(err)
		}
		if left, err := db.Read().ArtifactTail(ctx, got.ID, 100); err != nil || len(left) != 0 {
			t.Errorf("pieces after their release was pruned: %d bytes, %v", len(left), err)
		}
	})
}
