package web_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	mrand "math/rand/v2"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify/schedule"
	"github.com/errata-dev/errata/internal/store"
)

// benchSize is how much one seeded project holds.
type benchSize struct {
	Groups, Tickets, Channels int
	// Days of history: group hour counts, INFO summaries (one a window of
	// the server's InfoWindow) and daily digests.
	Days int
	// Samples are the sample events kept per group.
	Samples int
	// Templates are the message templates of each INFO window.
	Templates int
	// Deliveries per channel.
	Deliveries int
	// Members, Invitations and Keys besides the owner and the project.
	Members, Invitations, Keys int
}

// benchFull is the project of the performance figure: 10,000
// tickets, 1,000 groups and 100 channels.
var benchFull = benchSize{Groups: 1000, Tickets: 10000, Channels: 100, Days: 14, Samples: 3, Templates: 100,
	Deliveries: 20, Members: 25, Invitations: 10, Keys: 8}

// benchTiny keeps the seeder compiling and correct in plain `go test`; it
// still has the members, keys and more than a page of tickets and groups
// that benchPages expect.
var benchTiny = benchSize{Groups: 60, Tickets: 80, Channels: 4, Days: 2, Samples: 2, Templates: 5,
	Deliveries: 6, Members: 25, Invitations: 2, Keys: 8}

// benchProject is what benchSeed made: ids for the pages to visit.
type benchProject struct {
	Owner            apitest.Actor
	OrgID, ProjectID string
	Tickets          []string // newest first
	Groups           []string // newest first
	// BusyGroup has the most events; BusyTicket is its latest ticket.
	BusyGroup, BusyTicket string
	Channels              []string // newest first
	// FailingChannel is a failing webhook channel with retried deliveries.
	FailingChannel string
	Summaries      []string // newest window first
	OpenTickets    int
}

// benchSeed fills one project of a fresh server with sz worth of realistic,
// consistent data. The owner, organization and project go through the API;
// everything else is written with the store's own methods in a few large
// transactions, because 10,000 tickets through ingestion would take minutes.
func benchSeed(tb testing.TB, s *apitest.Server, sz benchSize) benchProject {
	tb.Helper()
	ctx := context.Background()
	var p benchProject
	p.Owner = s.SignUp(tb, "owner@example.com")
	p.OrgID = s.CreateOrg(tb, p.Owner.Token, "Acme")
	p.Owner.MemberID = s.MemberID(tb, p.Owner.Token, p.OrgID, p.Owner.UserID)
	p.ProjectID = s.CreateProject(tb, p.Owner.Token, p.OrgID, "web")
	db := s.App.DB
	now := time.Now().UTC()
	r := mrand.New(mrand.NewPCG(1, 2))
	tx := func(what string, fn func(c *store.Conn) error) {
		tb.Helper()
		if err := db.Tx(ctx, fn); err != nil {
			tb.Fatalf("seed %s: %v", what, err)
		}
	}
	tx("people", func(c *store.Conn) error { return benchPeople(ctx, c, &p, sz, now, r) })
	benchGroups(tb, ctx, db, &p, sz, now, r)
	tx("summaries", func(c *store.Conn) error { return benchSummaries(tb, ctx, c, &p, sz, s.Config.InfoWindow, now, r) })
	if _, err := s.App.Digests.PutNotificationSettings(ctx, p.ProjectID, schedule.Digest{Enabled: true, Frequency: "daily", Hour: 9,
		Weekday: "monday", Timezone: "Europe/Paris"}); err != nil {
		tb.Fatalf("seed notification settings: %v", err)
	}
	tx("channels", func(c *store.Conn) error { return benchChannels(ctx, c, &p, sz, now, r) })
	benchAnalyze(tb, s)
	return p
}

// benchAnalyze gathers PostgreSQL's planner statistics, as autovacuum
// would within a minute of such a load in production: without them the
// planner takes 10,000 tickets for 45 and picks plans no real server would
// run. SQLite is left as Errata leaves it: it never runs ANALYZE.
func benchAnalyze(tb testing.TB, s *apitest.Server) {
	tb.Helper()
	if s.App.DB.Dialect() != store.Postgres {
		return
	}
	db, err := sql.Open("pgx", s.DatabaseURL)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`ANALYZE`); err != nil {
		tb.Fatalf("analyze: %v", err)
	}
}

// benchPeople adds members of every role, invitations and API keys.
func benchPeople(ctx context.Context, c *store.Conn, p *benchProject, sz benchSize, now time.Time, r *mrand.Rand) error {
	roles := []string{"admin", "member", "member", "member", "viewer", "viewer"}
	for i := range sz.Members {
		at := now.Add(-time.Duration(sz.Members-i) * 36 * time.Hour)
		u := store.User{ID: id.NewAt(id.User, at), Email: fmt.Sprintf("person%02d@example.com", i), Name: fmt.Sprintf("Person %02d", i),
			PasswordHash: "$argon2id$v=19$m=65536,t=1,p=1$c2VlZHNlZWRzZWVk$c2VlZHNlZWRzZWVkc2VlZHNlZWRzZWVk", CreatedAt: at, UpdatedAt: at, EmailVerifiedAt: &at}
		if err := c.CreateUser(ctx, u); err != nil {
			return err
		}
		if err := c.CreateMember(ctx, store.Member{ID: id.NewAt(id.Member, at), OrgID: p.OrgID, UserID: u.ID, Role: roles[i%len(roles)], CreatedAt: at}); err != nil {
			return err
		}
	}
	for i := range sz.Invitations {
		at := now.Add(-time.Duration(sz.Invitations-i) * 20 * time.Hour)
		status := store.InvitationPending
		if i%4 == 3 {
			status = store.InvitationRevoked
		}
		if err := c.CreateInvitation(ctx, store.Invitation{ID: id.NewAt(id.Invitation, at), OrgID: p.OrgID, Email: fmt.Sprintf("invitee%02d@example.com", i),
			Role: roles[i%len(roles)], TokenHash: benchRandom(32), Status: status, InvitedBy: p.Owner.MemberID,
			ExpiresAt: at.Add(7 * 24 * time.Hour), CreatedAt: at, UpdatedAt: at}); err != nil {
			return err
		}
	}
	for i := range sz.Keys {
		at := now.Add(-time.Duration(sz.Keys-i) * 72 * time.Hour)
		k := store.APIKey{ID: id.NewAt(id.Key, at), ProjectID: p.ProjectID, Name: fmt.Sprintf("deploy-%d", i), SecretHash: benchRandom(32), CreatedAt: at}
		used := now.Add(-time.Duration(r.IntN(3600)) * time.Second)
		k.LastUsedAt = &used
		if i%4 == 1 {
			k.RevokedAt = &used
		}
		if err := c.CreateAPIKey(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

func benchRandom(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
