package notify_test

import (
	"context"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/notify/digest"
	"github.com/errata-dev/errata/internal/notify/webhook"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
	"github.com/errata-dev/errata/internal/tickets"
)

func TestMain(m *testing.M) { storetest.Main(m) }

var t0 = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

// clock is the injected clock of a test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// rig is an organization with a project, an admin member and the service.
type rig struct {
	db      *store.DB
	svc     *notify.Service
	digests *digest.Service
	clock   *clock
	org     store.Org
	proj    store.Project
	mem     store.Member
	roots   *x509.CertPool
}

func newRig(t *testing.T, db *store.DB, opts notify.Options) *rig {
	t.Helper()
	ctx := context.Background()
	r := &rig{db: db, clock: &clock{t: t0}, roots: x509.NewCertPool()}
	w := db.Write()
	r.org = store.Org{ID: id.New(id.Org), Name: "Acme", Plan: "team", CreatedAt: t0, UpdatedAt: t0}
	u := store.User{ID: id.New(id.User), Email: "ada@example.com", Name: "Ada", PasswordHash: "x", CreatedAt: t0, UpdatedAt: t0, EmailVerifiedAt: &t0}
	r.proj = store.Project{ID: id.New(id.Project), OrgID: r.org.ID, Name: "shop", CreatedAt: t0, UpdatedAt: t0}
	r.mem = store.Member{ID: id.New(id.Member), OrgID: r.org.ID, UserID: u.ID, Role: "admin", CreatedAt: t0, Email: u.Email, Name: u.Name}
	if existing, err := db.Read().UserByEmail(ctx, u.Email); err == nil {
		u = existing // a second rig on one database shares the user
	} else if err := w.CreateUser(ctx, u); err != nil {
		t.Fatalf("seeding: %v", err)
	}
	r.mem.UserID = u.ID
	for _, err := range []error{w.CreateOrg(ctx, r.org), w.CreateProject(ctx, r.proj), w.CreateMember(ctx, r.mem)} {
		if err != nil {
			t.Fatalf("seeding: %v", err)
		}
	}
	opts.AppURL = "https://errata.example"
	opts.Now = r.clock.Now
	opts.Webhook.AllowPrivate = true
	opts.Webhook.RootCAs = r.roots
	if opts.Delivery.Jitter == 0 {
		opts.Delivery.Jitter = 0.1
	}
	r.svc = notify.New(db, opts)
	r.digests = digest.New(db, r.svc, digest.Options{AppURL: opts.AppURL, Now: opts.Now})
	t.Cleanup(r.svc.Close)
	return r
}

// receiver is a TLS webhook receiver on loopback that records requests.
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []received
}

type received struct {
	header http.Header
	body   []byte
}

func (r *rig) receiver(t *testing.T, answer func(w http.ResponseWriter, req *http.Request)) *receiver {
	t.Helper()
	rc := &receiver{}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, received{req.Header.Clone(), b})
		rc.mu.Unlock()
		answer(w, req)
	}))
	t.Cleanup(rc.srv.Close)
	r.roots.AddCert(rc.srv.Certificate())
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.reqs...)
}

func status(code int) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

func (r *rig) webhookChannel(t *testing.T, url string) store.Channel {
	t.Helper()
	ch, err := r.svc.CreateChannel(context.Background(), r.proj.ID, notify.ChannelInput{MemberID: r.mem.ID, Name: "hook", Type: "webhook", URL: url})
	if err != nil {
		t.Fatalf("CreateChannel: %v", err)
	}
	return ch
}

// openTicket stores a ticket of the given severity and runs the processing
// hook in the same transaction, as the processor does.
func (r *rig) openTicket(t *testing.T, severity string) store.Ticket {
	t.Helper()
	ctx := context.Background()
	now := r.clock.Now()
	g := store.Group{ID: id.New(id.Group), ProjectID: r.proj.ID, Service: "api", Fingerprint: id.New("fp_"), Title: "TypeError: x is undefined",
		Status: store.GroupUnresolved, FirstSeen: now, LastSeen: now, EventCount: 3, UpdatedAt: now}
	tk := store.Ticket{ID: id.New(id.Ticket), ProjectID: r.proj.ID, GroupID: g.ID, Severity: severity, Status: store.TicketOpen,
		Reason: store.ReasonNew, Title: g.Title, FirstSeen: now, CreatedAt: now, UpdatedAt: now}
	err := r.db.Tx(ctx, func(c *store.Conn) error {
		if err := c.InsertGroup(ctx, g); err != nil {
			return err
		}
		if err := c.InsertTicket(ctx, tk); err != nil {
			return err
		}
		return r.svc.OnTickets(ctx, c, []tickets.Event{{Ticket: tk, Group: g, Kind: store.ReasonNew}})
	})
	if err != nil {
		t.Fatalf("opening a ticket: %v", err)
	}
	return tk
}

func (r *rig) deliverDue(t *testing.T) int {
	t.Helper()
	n, err := r.svc.DeliverDue(context.Background())
	if err != nil {
		t.Fatalf("DeliverDue: %v", err)
	}
	return n
}

func (r *rig) deliveries(t *testing.T, ch store.Channel) []store.Delivery {
	t.Helper()
	ds, err := r.db.Read().ListDeliveries(context.Background(), ch.ID, "", 100)
	if err != nil {
		t.Fatalf("ListDeliveries: %v", err)
	}
	return ds
}

var _ = webhook.Options{}
