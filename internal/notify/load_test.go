package notify_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
	"github.com/errata-dev/errata/internal/view"
)

// benchRig is newRig for benchmarks: the same seeded organization, project
// and member, but on the wall clock, with logs discarded, and taking a
// testing.TB.
type benchRig struct {
	db    *store.DB
	svc   *notify.Service
	proj  store.Project
	org   store.Org
	mem   store.Member
	roots *x509.CertPool
}

func newBenchRig(tb testing.TB, d store.Dialect, opts notify.Options) *benchRig {
	tb.Helper()
	ctx := context.Background()
	db := storetest.Open(tb, d)
	now := time.Now().UTC()
	r := &benchRig{db: db, roots: x509.NewCertPool()}
	r.org = store.Org{ID: id.New(id.Org), Name: "Acme", Plan: "team", CreatedAt: now, UpdatedAt: now}
	u := store.User{ID: id.New(id.User), Email: "ada@example.com", Name: "Ada", PasswordHash: "x", CreatedAt: now, UpdatedAt: now, EmailVerifiedAt: &now}
	r.proj = store.Project{ID: id.New(id.Project), OrgID: r.org.ID, Name: "shop", CreatedAt: now, UpdatedAt: now}
	r.mem = store.Member{ID: id.New(id.Member), OrgID: r.org.ID, UserID: u.ID, Role: "admin", CreatedAt: now, Email: u.Email, Name: u.Name}
	w := db.Write()
	for _, err := range []error{w.CreateUser(ctx, u), w.CreateOrg(ctx, r.org), w.CreateProject(ctx, r.proj), w.CreateMember(ctx, r.mem)} {
		if err != nil {
			tb.Fatalf("seeding: %v", err)
		}
	}
	opts.AppURL = "https://errata.example"
	opts.Webhook.AllowPrivate = true
	opts.Webhook.RootCAs = r.roots
	opts.Logger = slog.New(slog.DiscardHandler)
	r.svc = notify.New(db, opts)
	tb.Cleanup(r.svc.Close)
	return r
}

// server starts a TLS receiver on loopback, trusted by the rig's client.
// Its error log is discarded: a handshake cut short by Close would print
// into the middle of a benchmark's result line.
func (r *benchRig) server(tb testing.TB, h http.HandlerFunc) *httptest.Server {
	tb.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	tb.Cleanup(srv.Close)
	r.roots.AddCert(srv.Certificate())
	return srv
}

// fastReceiver answers 204 at once and counts the requests.
func (r *benchRig) fastReceiver(tb testing.TB, got *atomic.Int64) *httptest.Server {
	return r.server(tb, func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
}

func (r *benchRig) channel(tb testing.TB, url string) store.Channel {
	tb.Helper()
	ch, err := r.svc.CreateChannel(context.Background(), r.proj.ID, notify.ChannelInput{MemberID: r.mem.ID, Name: "hook", Type: "webhook", URL: url})
	if err != nil {
		tb.Fatalf("CreateChannel: %v", err)
	}
	return ch
}

// queue stores n ticket deliveries spread round-robin over the channels,
// each with a realistic frozen body (about 1.2 KB), due at next(i) after
// attempts earlier attempts. It writes directly with the store, in
// transactions of 500, which is much faster than opening tickets.
func (r *benchRig) queue(tb testing.TB, chs []store.Channel, n int, attempts int64, next func(i int) time.Time) {
	tb.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	g := store.Group{ID: id.New(id.Group), ProjectID: r.proj.ID, Service: "api", Fingerprint: id.New("fp_"),
		Title: "TypeError: Cannot read properties of undefined (reading 'id')", Status: store.GroupUnresolved, Level: int(ingest.Error),
		SampleMessage: "TypeError: Cannot read properties of undefined (reading 'id') at Cart.total (cart.js:42)",
		Environments:  []string{"production"}, LastEnvironment: "production", Releases: []string{"2026.11.3"}, FirstRelease: "2026.11.3", LastRelease: "2026.11.3",
		FirstSeen: now, LastSeen: now, EventCount: 3, UpdatedAt: now}
	for start := 0; start < n; start += 500 {
		err := r.db.Tx(ctx, func(c *store.Conn) error {
			for i := start; i < min(start+500, n); i++ {
				tk := store.Ticket{ID: id.New(id.Ticket), ProjectID: r.proj.ID, GroupID: g.ID, Severity: "critical", Status: store.TicketOpen,
					Reason: store.ReasonNew, Title: g.Title, FirstSeen: now, CreatedAt: now, UpdatedAt: now}
				d := store.Delivery{ID: id.New(id.Delivery), ChannelID: chs[i%len(chs)].ID, ProjectID: r.proj.ID, Event: store.EventTicket,
					SubjectID: tk.ID, Status: store.DeliveryPending, Series: 1, Attempts: attempts, CreatedAt: now, UpdatedAt: now}
				tv := view.NewTicket("https://errata.example", store.TicketWithGroup{Ticket: tk, Group: g})
				body, err := json.Marshal(notify.TicketBody{Type: store.EventTicket, DeliveryID: d.ID, OrganizationID: r.org.ID,
					Project: notify.ProjectRef{ID: r.proj.ID, Name: r.proj.Name}, Ticket: tv, TicketURL: tv.URL})
				if err != nil {
					return err
				}
				at := next(i).UTC().Truncate(time.Millisecond)
				d.Body, d.NextAttemptAt = body, &at
				if err := c.InsertDelivery(ctx, d); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatalf("queueing deliveries: %v", err)
		}
	}
}

// waitDelivered returns once the receivers got want requests and the store
// has recorded them: only left deliveries are still pending (those of a
// dead receiver, which never end within a benchmark).
func (r *benchRig) waitDelivered(tb testing.TB, got *atomic.Int64, want, left int64) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for got.Load() < want {
		if time.Now().After(deadline) {
			tb.Fatalf("receivers got %d of %d deliveries within 5 minutes", got.Load(), want)
		}
		time.Sleep(time.Millisecond)
	}
	for {
		n, err := r.db.Read().CountPendingDeliveries(context.Background())
		if err != nil {
			tb.Fatalf("CountPendingDeliveries: %v", err)
		}
		if n <= left {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%d deliveries still pending after 5 minutes, want %d", n, left)
		}
		time.Sleep(time.Millisecond)
	}
}

// A claim takes a few deliveries of every channel that has due ones, however
// long another channel's backlog: the engine relies on it to keep a dead
// receiver from delaying the others (ClaimDeliveries walks the channels).
func TestClaimReachesEveryChannelPastALongBacklog(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			r := newBenchRig(t, d, notify.Options{})
			var got atomic.Int64
			srv := r.fastReceiver(t, &got)
			long, short, later := r.channel(t, srv.URL), r.channel(t, srv.URL), r.channel(t, srv.URL)
			start := time.Now()
			r.queue(t, []store.Channel{long}, 1000, 0, func(i int) time.Time { return start.Add(-time.Hour + time.Duration(i)*time.Millisecond) })
			r.queue(t, []store.Channel{short}, 3, 0, func(int) time.Time { return start.Add(-time.Minute) })
			r.queue(t, []store.Channel{later}, 1, 0, func(int) time.Time { return start.Add(time.Hour) })
			ctx, now := context.Background(), time.Now()
			claim := func(perChannel, limit int, exclude ...string) map[string][]store.Delivery {
				t.Helper()
				ds, err := r.db.Write().ClaimDeliveries(ctx, now, now.Add(time.Minute), perChannel, limit, exclude)
				if err != nil {
					t.Fatalf("ClaimDeliveries: %v", err)
				}
				per := map[string][]store.Delivery{}
				for _, d := range ds {
					per[d.ChannelID] = append(per[d.ChannelID], d)
				}
				return per
			}
			// The rows come back in no particular order.
			span := func(ds []store.Delivery) (first, last time.Time) {
				first, last = *ds[0].NextAttemptAt, *ds[0].NextAttemptAt
				for _, d := range ds {
					first, last = minTime(first, *d.NextAttemptAt), maxTime(last, *d.NextAttemptAt)
				}
				return first, last
			}
			first := claim(8, 64)
			if len(first[long.ID]) != 8 || len(first[short.ID]) != 3 || len(first) != 2 {
				t.Fatalf("first claim: %d of the long backlog, %d of the short, %d channels; want 8, 3, 2",
					len(first[long.ID]), len(first[short.ID]), len(first))
			}
			if again := claim(8, 64, long.ID); len(again) != 0 {
				t.Fatalf("claim excluding the long backlog took %d channels' deliveries, want none (the rest are leased or not due)", len(again))
			}
			if _, last := span(first[long.ID]); !last.Equal(start.Add(-time.Hour + 7*time.Millisecond).Truncate(time.Millisecond)) {
				t.Fatalf("first claim of the long backlog ends at %v, want the 8 oldest", last)
			}
			// The first 8 are delivered: a channel has at most 8 leased at
			// once, cluster-wide on PostgreSQL.
			err := r.db.Tx(ctx, func(c *store.Conn) error {
				for _, d := range first[long.ID] {
					if err := c.RecordAttempt(ctx, d, store.Attempt{DeliveryID: d.ID, Series: d.Series, At: now, Outcome: store.OutcomeDelivered, HTTPStatus: 200}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			next := claim(8, 64)[long.ID]
			if len(next) != 8 {
				t.Fatalf("second claim of the long backlog: %d deliveries, want 8", len(next))
			}
			if from, _ := span(next); !from.Equal(start.Add(-time.Hour + 8*time.Millisecond).Truncate(time.Millisecond)) {
				t.Fatalf("second claim of the long backlog starts at %v, want the next 8 oldest", from)
			}
			if capped := claim(8, 64); len(capped[long.ID]) != 0 && d == store.Postgres {
				t.Fatalf("a claim while the channel has 8 leased took %d more, want none (the cap holds across processes)", len(capped[long.ID]))
			}
			if few := claim(16, 5); len(few[long.ID]) != 5 {
				t.Fatalf("claim limited to 5 took %d", len(few[long.ID]))
			}
		})
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
