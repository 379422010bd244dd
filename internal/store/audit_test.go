package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestAuditEntriesCommitWithTheirChange: an entry recorded in a
// transaction that rolls back is gone with the change; the hourly prune
// deletes entries older than a year and keeps the rest.
func TestAuditEntriesCommitWithTheirChange(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := audit.WithRequest(context.Background(), &audit.Request{IP: "192.0.2.1", UserAgent: "test", UserID: "usr_x", Email: "x@example.com"})
		o := seedOrg(t, db.Write())
		boom := errors.New("boom")
		err := db.Tx(ctx, func(c *store.Conn) error {
			if err := audit.Record(ctx, c, audit.Entry{OrgID: o.ID, Action: "org.renamed", Target: o.ID, At: now}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Tx = %v", err)
		}
		list := func() []store.AuditEntry {
			es, err := db.Read().ListAudit(ctx, o.ID, store.AuditFilter{}, "", 10)
			if err != nil {
				t.Fatal(err)
			}
			return es
		}
		if n := len(list()); n != 0 {
			t.Fatalf("%d entries after a rollback, want 0", n)
		}
		old := now.Add(-store.AuditKept - time.Hour)
		for _, at := range []time.Time{old, now} {
			if err := db.Tx(ctx, func(c *store.Conn) error {
				return audit.Record(ctx, c, audit.Entry{OrgID: o.ID, Action: "org.renamed", Target: o.ID, Data: map[string]any{"to": "x"}, At: at})
			}); err != nil {
				t.Fatal(err)
			}
		}
		es := list()
		if len(es) != 2 || es[0].IP != "192.0.2.1" || es[0].ActorEmail != "x@example.com" || string(es[0].Data) != `{"to":"x"}` {
			t.Fatalf("entries = %+v", es)
		}
		p, err := db.Write().Prune(ctx, store.DefaultRetention, now)
		if err != nil {
			t.Fatal(err)
		}
		if es := list(); p.Audit != 1 || len(es) != 1 || !es[0].CreatedAt.Equal(now) {
			t.Fatalf("after prune: %d deleted, entries %+v; want the year-old one gone", p.Audit, es)
		}
	})
}
