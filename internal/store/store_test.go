package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

var now = time.Date(2026, 11, 22, 8, 0, 0, 123_000_000, time.UTC)

func seedUser(t *testing.T, c *store.Conn, email string) store.User {
	t.Helper()
	u := store.User{ID: id.New(id.User), Email: email, Name: "N", PasswordHash: "h", CreatedAt: now, UpdatedAt: now}
	if err := c.CreateUser(context.Background(), u); err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	return u
}

func seedOrg(t *testing.T, c *store.Conn) store.Org {
	t.Helper()
	o := store.Org{ID: id.New(id.Org), Name: "Acme", Plan: "team", CreatedAt: now, UpdatedAt: now}
	if err := c.CreateOrg(context.Background(), o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	return o
}

func TestMigrateIsIdempotent(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		n, err := db.Migrate(context.Background())
		if err != nil || n != 0 {
			t.Fatalf("second Migrate = %d, %v; want 0, nil", n, err)
		}
	})
}

func TestUsers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u := seedUser(t, db.Write(), "a@example.com")
		got, err := db.Read().UserByEmail(ctx, "a@example.com")
		if err != nil {
			t.Fatalf("UserByEmail: %v", err)
		}
		if got != u {
			t.Fatalf("UserByEmail = %+v, want %+v", got, u)
		}
		dup := u
		dup.ID = id.New(id.User)
		if err := db.Write().CreateUser(ctx, dup); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("duplicate email: err = %v, want ErrConflict", err)
		}
		if _, err := db.Read().UserByID(ctx, id.New(id.User)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("unknown user: err = %v, want ErrNotFound", err)
		}
		if n, err := db.Read().CountUsers(ctx); err != nil || n != 1 {
			t.Fatalf("CountUsers = %d, %v; want 1", n, err)
		}
	})
}

func TestSessions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u := seedUser(t, db.Write(), "s@example.com")
		s := store.Session{ID: id.New(id.Session), UserID: u.ID, TokenHash: []byte{1, 2, 3}, CreatedAt: now, ExpiresAt: now.Add(time.Hour), LastUsedAt: now}
		if err := db.Write().CreateSession(ctx, s); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
		later := now.Add(time.Minute)
		if err := db.Write().TouchSession(ctx, s.ID, later, later.Add(time.Hour)); err != nil {
			t.Fatalf("TouchSession: %v", err)
		}
		got, err := db.Read().SessionByTokenHash(ctx, []byte{1, 2, 3})
		if err != nil {
			t.Fatalf("SessionByTokenHash: %v", err)
		}
		if !got.ExpiresAt.Equal(later.Add(time.Hour)) || !got.LastUsedAt.Equal(later) {
			t.Fatalf("touched session = %+v, want last used %v", got, later)
		}
		if n, err := db.Write().DeleteExpiredSessions(ctx, later.Add(2*time.Hour)); err != nil || n != 1 {
			t.Fatalf("DeleteExpiredSessions = %d, %v; want 1", n, err)
		}
		if err := db.Write().DeleteSession(ctx, s.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("DeleteSession of a deleted session: %v, want ErrNotFound", err)
		}
	})
}

func TestMembersAndOwners(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		o := seedOrg(t, db.Write())
		u := seedUser(t, db.Write(), "m@example.com")
		m := store.Member{ID: id.New(id.Member), OrgID: o.ID, UserID: u.ID, Role: "owner", CreatedAt: now}
		if err := db.Write().CreateMember(ctx, m); err != nil {
			t.Fatalf("CreateMember: %v", err)
		}
		again := m
		again.ID = id.New(id.Member)
		if err := db.Write().CreateMember(ctx, again); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second membership: %v, want ErrConflict", err)
		}
		orphan := store.Member{ID: id.New(id.Member), OrgID: id.New(id.Org), UserID: u.ID, Role: "viewer", CreatedAt: now}
		if err := db.Write().CreateMember(ctx, orphan); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("member of a missing org: %v, want ErrNotFound", err)
		}
		got, err := db.Read().MemberOf(ctx, o.ID, u.ID)
		if err != nil || got.Email != "m@example.com" || got.Role != "owner" {
			t.Fatalf("MemberOf = %+v, %v", got, err)
		}
		if n, _ := db.Read().CountOwners(ctx, o.ID); n != 1 {
			t.Fatalf("CountOwners = %d, want 1", n)
		}
		orgs, err := db.Read().OrgsOfUser(ctx, u.ID, "", 10)
		if err != nil || len(orgs) != 1 || orgs[0].ID != o.ID {
			t.Fatalf("OrgsOfUser = %+v, %v", orgs, err)
		}
		// The home page's queries: memberships with roles, and the projects
		// of them all (not those of an organization the user is not in).
		other := seedOrg(t, db.Write())
		var projects []string
		for _, org := range []store.Org{o, o, other} {
			p := store.Project{ID: id.New(id.Project), OrgID: org.ID, Name: "p", CreatedAt: now, UpdatedAt: now}
			if err := db.Write().CreateProject(ctx, p); err != nil {
				t.Fatalf("CreateProject: %v", err)
			}
			projects = append(projects, p.ID)
		}
		ms, err := db.Read().MembershipsOfUser(ctx, u.ID, 10)
		if err != nil || len(ms) != 1 || ms[0].Org.ID != o.ID || ms[0].Role != "owner" || ms[0].Org.Name != "Acme" || !ms[0].Org.CreatedAt.Equal(now) {
			t.Fatalf("MembershipsOfUser = %+v, %v", ms, err)
		}
		ps, err := db.Read().ProjectsOfUser(ctx, u.ID, 10)
		if err != nil || len(ps) != 2 || ps[0].ID != projects[1] || ps[1].ID != projects[0] {
			t.Fatalf("ProjectsOfUser = %+v, %v; want %v newest first", ps, err, projects[:2])
		}
		if err := db.Write().DeleteOrg(ctx, o.ID); err != nil {
			t.Fatalf("DeleteOrg: %v", err)
		}
		if _, err := db.Read().MemberByID(ctx, m.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("member after org deletion: %v, want ErrNotFound (cascade)", err)
		}
	})
}

func TestInvitationAcceptedOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		o := seedOrg(t, db.Write())
		inv := store.Invitation{ID: id.New(id.Invitation), OrgID: o.ID, Email: "x@example.com", Role: "member", TokenHash: []byte("h"),
			Status: store.InvitationPending, InvitedBy: id.New(id.User), ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
		if err := db.Write().CreateInvitation(ctx, inv); err != nil {
			t.Fatalf("CreateInvitation: %v", err)
		}
		if err := db.Write().SetInvitationStatus(ctx, inv.ID, store.InvitationAccepted, now); err != nil {
			t.Fatalf("accept: %v", err)
		}
		if err := db.Write().SetInvitationStatus(ctx, inv.ID, store.InvitationAccepted, now); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second accept: %v, want ErrConflict", err)
		}
		got, err := db.Read().InvitationByTokenHash(ctx, []byte("h"))
		if err != nil || got.Status != store.InvitationAccepted {
			t.Fatalf("InvitationByTokenHash = %+v, %v", got, err)
		}
		pending := store.Invitation{Status: store.InvitationPending, ExpiresAt: now}
		if s := pending.StatusAt(now); s != store.InvitationExpired {
			t.Fatalf("StatusAt(expiry) = %q, want expired", s)
		}
	})
}

func TestProjectsKeysAndPaging(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		o := seedOrg(t, db.Write())
		var ids []string
		for i := 0; i < 5; i++ {
			p := store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "p", CreatedAt: now, UpdatedAt: now}
			if err := db.Write().CreateProject(ctx, p); err != nil {
				t.Fatalf("CreateProject: %v", err)
			}
			ids = append(ids, p.ID)
		}
		first, err := db.Read().ListProjects(ctx, o.ID, "", 3)
		if err != nil || len(first) != 3 || first[0].ID != ids[4] {
			t.Fatalf("first page = %v, %v; want newest first", first, err)
		}
		second, err := db.Read().ListProjects(ctx, o.ID, first[2].ID, 3)
		if err != nil || len(second) != 2 || second[1].ID != ids[0] {
			t.Fatalf("second page = %v, %v", second, err)
		}
		k := store.APIKey{ID: id.New(id.Key), ProjectID: ids[0], Name: "k", SecretHash: []byte("s"), CreatedAt: now}
		if err := db.Write().CreateAPIKey(ctx, k); err != nil {
			t.Fatalf("CreateAPIKey: %v", err)
		}
		if err := db.Write().TouchAPIKey(ctx, k.ID, now.Add(time.Second)); err != nil {
			t.Fatalf("TouchAPIKey: %v", err)
		}
		if ok, err := db.Write().RevokeAPIKeyOnce(ctx, k.ID, now.Add(time.Minute)); err != nil || !ok {
			t.Fatalf("RevokeAPIKeyOnce: %v, %v", ok, err)
		}
		if ok, err := db.Write().RevokeAPIKeyOnce(ctx, k.ID, now.Add(time.Hour)); err != nil || ok {
			t.Fatalf("RevokeAPIKeyOnce again: %v, %v; want false, nothing changed", ok, err)
		}
		got, err := db.Read().APIKeyByID(ctx, k.ID)
		if err != nil || got.RevokedAt == nil || !got.RevokedAt.Equal(now.Add(time.Minute)) || got.LastUsedAt == nil {
			t.Fatalf("revoked key = %+v, %v; want first revocation time kept", got, err)
		}
		wk, wp, err := db.Read().APIKeyWithProject(ctx, k.ID)
		if err != nil || wk.ID != k.ID || wk.RevokedAt == nil || !wk.CreatedAt.Equal(now) || wp.ID != ids[0] || wp.OrgID != o.ID || wp.Number < 1 || !wp.CreatedAt.Equal(now) {
			t.Fatalf("APIKeyWithProject = %+v, %+v, %v; want the key with its project", wk, wp, err)
		}
		if err := db.Write().DeleteProject(ctx, ids[0]); err != nil {
			t.Fatalf("DeleteProject: %v", err)
		}
		if _, err := db.Read().APIKeyByID(ctx, k.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("key after project deletion: %v, want ErrNotFound", err)
		}
		if _, _, err := db.Read().APIKeyWithProject(ctx, k.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("APIKeyWithProject after project deletion: %v, want ErrNotFound", err)
		}
	})
}

func TestTxRollsBack(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		boom := errors.New("boom")
		err := db.Tx(ctx, func(c *store.Conn) error {
			seedUser(t, c, "tx@example.com")
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Tx = %v, want boom", err)
		}
		if _, err := db.Read().UserByEmail(ctx, "tx@example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("user after rollback: %v, want ErrNotFound", err)
		}
	})
}

func TestSettingIsCreatedOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, err := db.Setting(ctx, "k", func() ([]byte, error) { return []byte("first"), nil })
		if err != nil {
			t.Fatalf("Setting: %v", err)
		}
		b, _ := db.Setting(ctx, "k", func() ([]byte, error) { return []byte("second"), nil })
		if !bytes.Equal(a, b) || string(a) != "first" {
			t.Fatalf("Setting = %q then %q, want first both times", a, b)
		}
	})
}

func TestSQLitePathWithURIDelimiters(t *testing.T) {
	dir := t.TempDir() + "/odd#name?x=1"
	db, err := store.Open(context.Background(), store.Options{DataDir: dir})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	if _, err := os.Stat(dir + "/errata.db"); err != nil {
		t.Fatalf("database not at %s/errata.db: %v", dir, err)
	}
}

func TestPruneKeepsWhatRetentionKeeps(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		o := seedOrg(t, db.Write())
		p := store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "p", CreatedAt: now, UpdatedAt: now}
		if err := db.Write().CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		g := store.Group{ID: id.New(id.Group), ProjectID: p.ID, Service: "s", Fingerprint: "f", Status: store.GroupResolved, FirstSeen: now, LastSeen: now, UpdatedAt: now}
		if err := db.Write().InsertGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		old := now.Add(-100 * 24 * time.Hour)
		for _, at := range []time.Time{old, now} {
			if err := db.Write().AddGroupCount(ctx, g.ID, at, 1); err != nil {
				t.Fatal(err)
			}
		}
		resolved, open := old, old
		for i, tk := range []store.Ticket{
			{ID: id.New(id.Ticket), Status: store.TicketResolved, ResolvedAt: &resolved},
			{ID: id.New(id.Ticket), Status: store.TicketOpen},
		} {
			tk.ProjectID, tk.GroupID, tk.Severity, tk.Reason, tk.FirstSeen, tk.CreatedAt, tk.UpdatedAt = p.ID, g.ID, "high", "new", open, open, open
			if i == 1 {
				// the open ticket of another group: one open ticket per group
				g2 := g
				g2.ID, g2.Fingerprint = id.New(id.Group), "f2"
				if err := db.Write().InsertGroup(ctx, g2); err != nil {
					t.Fatal(err)
				}
				tk.GroupID = g2.ID
			}
			if err := db.Write().InsertTicket(ctx, tk); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Write().AddInfo(ctx, store.InfoDelta{ProjectID: p.ID, WindowStart: old, WindowEnd: old.Add(time.Hour), Events: 1}, id.New(id.InfoSummary), old); err != nil {
			t.Fatal(err)
		}
		got, err := db.Write().Prune(ctx, store.DefaultRetention, now)
		if err != nil {
			t.Fatal(err)
		}
		if got != (store.Pruned{Minutes: 1, Hours: 0, Tickets: 1, Summaries: 1}) {
			t.Fatalf("Prune = %+v, want 1 minute row, 0 hour rows, 1 resolved ticket, 1 summary", got)
		}
		if n, _ := db.Read().GroupCountBetween(ctx, g.ID, now.Add(-time.Hour), now.Add(time.Hour)); n != 1 {
			t.Fatalf("recent minute count = %d, want kept", n)
		}
	})
}

func TestSQLiteWALIsCheckpointedInTheBackground(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(context.Background(), store.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	o := seedOrg(t, db.Write())
	p := store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "p", CreatedAt: now, UpdatedAt: now}
	if err := db.Write().CreateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	payload := bytes.Repeat([]byte("x"), 256<<10)
	for i := 0; i < 40; i++ { // 10 MiB through the WAL
		err := db.Tx(context.Background(), func(c *store.Conn) error {
			return c.InsertBatches(context.Background(), []store.Batch{{ProjectID: p.ID, ReceivedAt: now, EventCount: 1, Payload: payload}})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The background checkpointer copies the WAL into the database file.
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := os.Stat(dir + "/errata.db")
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 10<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("database file is %d bytes after 10 s: the WAL was not checkpointed", st.Size())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(dir + "/errata.db-wal"); err == nil && st.Size() != 0 {
		t.Fatalf("WAL is %d bytes after Close, want truncated", st.Size())
	}
}

// TestProjectNumbers checks CONTRACT 7's project number: existing projects
// are numbered by migration 00013 in the order they were made, new ones
// take the next number, and a deleted project's number is never given again.
func TestProjectNumbers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		o := seedOrg(t, db.Write()) // before going down: the code writes today's columns
		if err := db.MigrateDownTo(ctx, 11); err != nil {
			t.Fatal(err)
		}
		var old []string
		for i := 0; i < 3; i++ {
			pid := id.New(id.Project)
			if err := db.ExecForTest(ctx, `INSERT INTO projects (id, organization_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
				pid, o.ID, "old", now.UnixMilli(), now.UnixMilli()); err != nil {
				t.Fatal(err)
			}
			old = append(old, pid)
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		for i, pid := range old {
			p, err := db.Read().ProjectByID(ctx, pid)
			if err != nil || p.Number != int64(i+1) {
				t.Fatalf("old project %d: number %d, %v; want %d", i, p.Number, err, i+1)
			}
		}
		add := func() store.Project {
			t.Helper()
			p, err := db.Write().InsertProject(ctx, store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "new", CreatedAt: now, UpdatedAt: now})
			if err != nil {
				t.Fatalf("InsertProject: %v", err)
			}
			return p
		}
		p4 := add()
		if p4.Number != 4 {
			t.Fatalf("first new project: number %d, want 4", p4.Number)
		}
		if err := db.Write().DeleteProject(ctx, p4.ID); err != nil {
			t.Fatal(err)
		}
		var p5 store.Project
		if err := db.Tx(ctx, func(c *store.Conn) error { // inside a transaction too
			var err error
			p5, err = c.InsertProject(ctx, store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "tx", CreatedAt: now, UpdatedAt: now})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if p5.Number != 5 {
			t.Fatalf("project after deleting number 4: number %d, want 5 (numbers are never reused)", p5.Number)
		}
		got, err := db.Read().ProjectByNumber(ctx, 5)
		if err != nil || got.ID != p5.ID || got.Name != "tx" {
			t.Fatalf("ProjectByNumber(5) = %+v, %v; want %s", got, err, p5.ID)
		}
		if _, err := db.Read().ProjectByNumber(ctx, 4); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("ProjectByNumber of a deleted project: %v, want ErrNotFound", err)
		}
		list, err := db.Read().ListProjects(ctx, o.ID, "", 10)
		if err != nil || len(list) != 4 || list[0].Number != 5 {
			t.Fatalf("ListProjects = %+v, %v; want 4 projects with their numbers", list, err)
		}
	})
}

// TestInsertBatchesGroup writes a group of batches larger than one
// multi-row statement, after a gap in the ids (processed batches are
// deleted): every batch gets the id of its own row, and its payload. The
// first batches are claimed without their payloads, which are read after.
func TestInsertBatchesGroup(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		insert := func(n int, tag string) []store.Batch {
			t.Helper()
			bs := make([]store.Batch, n)
			for i := range bs {
				bs[i] = store.Batch{ProjectID: p.ID, ReceivedAt: now, EventCount: i + 1, Payload: []byte(fmt.Sprintf("%s-%d", tag, i))}
			}
			if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertBatches(ctx, bs) }); err != nil {
				t.Fatal(err)
			}
			return bs
		}
		first := insert(3, "first")
		rows, err := db.Write().ClaimBatchRows(ctx, now, now.Add(time.Minute), 3)
		if err != nil || len(rows) != 3 || rows[0].Payload != nil {
			t.Fatalf("ClaimBatchRows: %d, %v; want 3 rows without their payloads", len(rows), err)
		}
		// The payloads are read after the claim, leaving out a batch that
		// another worker finished meanwhile (its lease having ended).
		if err := db.Write().FinishBatch(ctx, rows[1]); err != nil {
			t.Fatal(err)
		}
		claimed, err := db.Read().LoadPayloads(ctx, rows)
		if err != nil || len(claimed) != 2 || claimed[0].ID != first[0].ID || string(claimed[0].Payload) != "first-0" ||
			claimed[1].ID != first[2].ID || string(claimed[1].Payload) != "first-2" {
			t.Fatalf("LoadPayloads = %+v, %v; want the first and the third with their payloads", claimed, err)
		}
		for _, b := range claimed {
			if err := db.Write().FinishBatch(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
		group := insert(75, "group") // three statements on SQLite
		got, err := db.Read().ListBatches(ctx, p.ID)
		if err != nil || len(got) != len(group) {
			t.Fatalf("ListBatches: %d batches, %v; want %d", len(got), err, len(group))
		}
		for i, b := range got {
			if b.ID != group[i].ID || b.ID <= first[2].ID || string(b.Payload) != string(group[i].Payload) || b.EventCount != i+1 {
				t.Fatalf("batch %d: id %d, %d events, payload %q; InsertBatches said id %d, payload %q (ids after %d)",
					i, b.ID, b.EventCount, b.Payload, group[i].ID, group[i].Payload, first[2].ID)
			}
		}
	})
}
