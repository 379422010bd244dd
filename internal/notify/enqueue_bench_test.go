package notify_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
	"github.com/errata-dev/errata/internal/tickets"
)

// BenchmarkOnTickets measures what queuing one ticket's deliveries costs
// the processing transaction (which on SQLite holds the only writer): the
// time spent in OnTickets, per ticket, for a project with two email
// channels and an errata webhook (+chat: and Slack, Teams and ntfy
// webhooks), with a usual title and a hostile 10,000-character one. The
// transaction's commit is not counted.
//
//	go test -run '^$' -bench OnTickets -benchtime 2000x ./internal/notify/
func BenchmarkOnTickets(b *testing.B) {
	for _, chats := range [][]string{nil, {"slack", "teams", "ntfy"}} {
		for _, title := range []string{"TypeError: cannot read properties of undefined (reading 'id')", strings.Repeat("é<@everyone>", 10000/12)} {
			name := fmt.Sprintf("channels=%d/title=%d", 3+len(chats), len([]rune(title)))
			b.Run(name, func(b *testing.B) {
				r := newBenchRig(b, storetest.Dialects[0], notify.Options{})
				ctx := context.Background()
				now := time.Now().UTC().Truncate(time.Millisecond)
				chs := []store.Channel{{Type: store.ChannelEmail, Email: "ops@example.com"}, {Type: store.ChannelEmail, Email: "dev@example.com"},
					{Type: store.ChannelWebhook, URL: "https://hooks.example.com/errata", Secret: notify.NewSecret()}}
				for _, f := range chats {
					chs = append(chs, store.Channel{Type: store.ChannelWebhook, URL: "https://hooks.example.com/" + f, Secret: notify.NewSecret(), Format: f})
				}
				for i, ch := range chs {
					ch.ID, ch.ProjectID, ch.MemberID, ch.Name, ch.Enabled, ch.Health = id.New(id.Channel), r.proj.ID, r.mem.ID, fmt.Sprint("bench ", i), true, store.HealthOK
					ch.CreatedAt, ch.UpdatedAt = now, now
					if err := r.db.Write().CreateChannel(ctx, ch); err != nil {
						b.Fatal(err)
					}
				}
				g := store.Group{ID: id.New(id.Group), ProjectID: r.proj.ID, Service: "checkout", Title: title, ExceptionType: "TypeError",
					Culprit: "cart.js in applyCoupon", Level: 4, Status: store.GroupUnresolved, FirstSeen: now, LastSeen: now, EventCount: 12,
					LastEnvironment: "production", LastRelease: "4.2.1", SampleMessage: title}
				var inTx time.Duration
				b.ResetTimer()
				for range b.N {
					tk := store.Ticket{ID: id.New(id.Ticket), ProjectID: r.proj.ID, GroupID: g.ID, Severity: "high", Status: store.TicketOpen,
						Reason: store.ReasonNew, Title: title, FirstSeen: now, CreatedAt: now, UpdatedAt: now}
					err := r.db.Tx(ctx, func(c *store.Conn) error {
						start := time.Now()
						err := r.svc.OnTickets(ctx, c, []tickets.Event{{Ticket: tk, Group: g, Kind: store.ReasonNew}})
						inTx += time.Since(start)
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(inTx.Microseconds())/float64(b.N), "µs-in-tx/ticket")
			})
		}
	}
}
