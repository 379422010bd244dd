package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestChannelConfirmationMigration: channels made before migration 00018
// stay confirmed and send (docs/decisions.md), and the migration rolls back.
func TestChannelConfirmationMigration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write()) // before going down: the code writes today's columns
		if err := db.MigrateDownTo(ctx, 17); err != nil {
			t.Fatal(err)
		}
		if err := db.Write().ExecForTest(ctx, `INSERT INTO channels (id, project_id, member_id, name, type, url, email, enabled, secret, old_secret,
			health, consecutive_failures, created_at, updated_at) VALUES ('chn_old', ?, 'mem_x', 'n', 'email', '', 'ops@example.net', ?, '', '', 'ok', 0, ?, ?)`,
			p.ID, true, ms(now), ms(now)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		ch, err := db.Read().ChannelByID(ctx, "chn_old")
		if err != nil || ch.Confirmation != store.ConfirmationConfirmed || ch.UnsubscribedAt != nil || !ch.Sends() {
			t.Fatalf("channel after the migration = %+v, %v; want confirmed and sending", ch, err)
		}
	})
}

// TestChannelConfirmation: a pending channel is found by its token's hash
// and confirmed once; an unsubscription disables it, keeps its first time
// and voids the link; an edit never undoes either.
func TestChannelConfirmation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := db.Write()
		p := seedProject(t, w)
		ch := store.Channel{ID: id.New(id.Channel), ProjectID: p.ID, MemberID: "mem_x", Name: "ops", Type: store.ChannelEmail, Email: "ops@example.net",
			Enabled: true, Health: store.HealthOK, Confirmation: store.ConfirmationPending, CreatedAt: now, UpdatedAt: now}
		if err := w.CreateChannel(ctx, ch); err != nil {
			t.Fatal(err)
		}
		h1, h2 := []byte("hash-one"), []byte("hash-two")
		for _, h := range [][]byte{h1, h2} { // a second link replaces the first
			if err := w.SetChannelPending(ctx, ch.ID, h, now); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Read().ChannelByConfirmToken(ctx, h1); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("replaced link = %v, want ErrNotFound", err)
		}
		got, err := db.Read().ChannelByConfirmToken(ctx, h2)
		if err != nil || got.ID != ch.ID || got.Sends() {
			t.Fatalf("pending channel by its link = %+v, %v; want it, not sending", got, err)
		}
		// An edit read before the confirmation does not undo it.
		if err := w.ConfirmChannel(ctx, ch.ID, h2, now); err != nil {
			t.Fatal(err)
		}
		got.Name = "renamed"
		if err := w.UpdateChannel(ctx, got); err != nil {
			t.Fatal(err)
		}
		if err := w.ConfirmChannel(ctx, ch.ID, h2, now); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a used link confirms again: %v", err)
		}
		if got, _ := db.Read().ChannelByID(ctx, ch.ID); got.Confirmation != store.ConfirmationConfirmed || !got.Sends() || got.Name != "renamed" {
			t.Fatalf("confirmed channel = %+v", got)
		}
		// Unsubscribed: disabled, the first time kept, a pending link voided.
		if err := w.SetChannelPending(ctx, ch.ID, h1, now); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if err := w.UnsubscribeChannel(ctx, ch.ID, now.Add(time.Duration(i)*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		got, _ = db.Read().ChannelByID(ctx, ch.ID)
		if got.Enabled || got.UnsubscribedAt == nil || !got.UnsubscribedAt.Equal(now) || got.Sends() {
			t.Fatalf("unsubscribed channel = %+v; want disabled since the first unsubscription", got)
		}
		if _, err := db.Read().ChannelByConfirmToken(ctx, h1); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the link of an unsubscribed channel still confirms: %v", err)
		}
		got.Enabled = true // an edit read before the unsubscription
		if err := w.UpdateChannel(ctx, got); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.Read().ChannelByID(ctx, ch.ID); got.Sends() {
			t.Fatalf("a stale edit made an unsubscribed channel send: %+v", got)
		}
		if err := w.SetChannelConfirmed(ctx, ch.ID, now); err != nil {
			t.Fatal(err)
		}
		if got, _ := db.Read().ChannelByID(ctx, ch.ID); !got.Sends() {
			t.Fatalf("channel confirmed again = %+v, want sending", got)
		}
	})
}
