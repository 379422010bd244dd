package store_test

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// BenchmarkListTicketsBy reads the first page (51 rows, as the dashboard
// asks) of a project's tickets in every order: 1,000 groups with varied
// counts and last-seen times, 10 tickets each (10,000, the last of each
// group open), the shape of the dashboard's BenchmarkPages project.
//
//	go test -run '^$' -bench ListTicketsBy -benchtime 100x ./internal/store/
func BenchmarkListTicketsBy(b *testing.B) {
	for _, d := range storetest.Dialects {
		b.Run(string(d), func(b *testing.B) {
			if d == store.Postgres {
				storetest.PostgresBase(b)
			}
			u := storetest.URL(b, d)
			ctx := context.Background()
			db, err := store.Open(ctx, store.Options{URL: u})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = db.Close() })
			if _, err := db.Migrate(ctx); err != nil {
				b.Fatal(err)
			}
			p := seedProjectB(b, db.Write())
			err = seedTicketsB(ctx, db, p)
			if err != nil {
				b.Fatal(err)
			}
			if d == store.Postgres { // as autovacuum would after such a load
				raw, err := sql.Open("pgx", u)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := raw.Exec(`ANALYZE`); err != nil {
					b.Fatal(err)
				}
				raw.Close()
			}
			for _, o := range store.Orders {
				b.Run("order="+string(o), func(b *testing.B) {
					for b.Loop() {
						ts, err := db.Read().ListTicketsBy(ctx, p.ID, store.TicketFilter{}, o, store.Keyset{}, 51)
						if err != nil || len(ts) != 51 {
							b.Fatalf("ListTicketsBy: %d, %v", len(ts), err)
						}
					}
				})
			}
		})
	}
}

// seedTicketsB writes 1,000 groups of p with varied counts and last-seen
// times, 10 tickets each (the last of each open).
func seedTicketsB(ctx context.Context, db *store.DB, p store.Project) error {
	return db.Tx(ctx, func(c *store.Conn) error {
		for i := range 1000 {
			// As wide as real groups: a long title and sample, a culprit, a few environments and releases.
			g := store.Group{ID: id.New(id.Group), ProjectID: p.ID, Service: "s" + strconv.Itoa(i%8), Fingerprint: strings.Repeat("ab", 32) + strconv.Itoa(i),
				Title: strings.Repeat("connection refused while calling the payment service ", 3) + strconv.Itoa(i), Culprit: "app/payments/client.go in (*Client).Charge",
				SampleMessage: strings.Repeat("connection refused while calling https://payments.internal:8443/v2/charges ", 5), Status: store.GroupUnresolved,
				FirstSeen: now, LastSeen: now.Add(-time.Duration(i*7919%1000) * time.Minute), EventCount: int64(i * 104729 % 50000),
				Environments: []string{"prod", "staging", "canary"}, Releases: []string{"v1.2.3", "v1.2.4", "v1.3.0"}, UpdatedAt: now}
			if err := c.InsertGroup(ctx, g); err != nil {
				return err
			}
			for k := range 10 {
				t := store.Ticket{ID: id.New(id.Ticket), ProjectID: p.ID, GroupID: g.ID, Severity: "high", Status: store.TicketResolved, Reason: "new",
					Title: g.Title, FirstSeen: now, CreatedAt: now, UpdatedAt: now}
				if k == 9 {
					t.Status = store.TicketOpen
				}
				if err := c.InsertTicket(ctx, t); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
