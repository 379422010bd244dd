package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// take takes one use of quota "q" by subject at at, in a transaction of
// its own.
func take(t *testing.T, db *store.DB, subject string, at time.Time, windows ...store.Window) (bool, time.Duration) {
	t.Helper()
	var ok bool
	var wait time.Duration
	err := db.Tx(context.Background(), func(c *store.Conn) error {
		var err error
		ok, wait, err = c.TakeQuota(context.Background(), "q", subject, at, windows...)
		return err
	})
	if err != nil {
		t.Fatalf("TakeQuota: %v", err)
	}
	return ok, wait
}

// TestTakeQuota: uses count within each window, a full window says how long
// until its oldest counted use leaves it, subjects are apart, and a use
// whose transaction rolls back was never taken.
func TestTakeQuota(t *testing.T) {
	hour, day := store.Window{Span: time.Hour, Max: 3}, store.Window{Span: 24 * time.Hour, Max: 5}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for i := range 3 {
			if ok, _ := take(t, db, "org_a", now.Add(time.Duration(i)*time.Minute), hour, day); !ok {
				t.Fatalf("use %d refused, want 3 an hour", i+1)
			}
		}
		ok, wait := take(t, db, "org_a", now.Add(10*time.Minute), hour, day)
		if ok || wait != 50*time.Minute {
			t.Fatalf("4th use within the hour = %v, wait %v; want refused until the first leaves the hour (50m)", ok, wait)
		}
		if ok, _ := take(t, db, "org_b", now.Add(10*time.Minute), hour, day); !ok {
			t.Fatal("another subject's use refused")
		}
		// A rolled-back use is not counted.
		boom := errors.New("boom")
		err := db.Tx(context.Background(), func(c *store.Conn) error {
			if ok, _, err := c.TakeQuota(context.Background(), "q", "org_c", now, hour); err != nil || !ok {
				t.Fatalf("TakeQuota = %v, %v", ok, err)
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Tx = %v", err)
		}
		for i := range 3 {
			if ok, _ := take(t, db, "org_c", now, hour); !ok {
				t.Fatalf("org_c use %d refused after a rolled-back one", i+1)
			}
		}
		// Later, the hour has room again; the day has room for 2 more.
		later := now.Add(time.Hour)
		for i := range 2 {
			if ok, _ := take(t, db, "org_a", later.Add(time.Duration(2+i)*time.Minute), hour, day); !ok {
				t.Fatalf("use %d of the second hour refused", i+1)
			}
		}
		ok, wait = take(t, db, "org_a", later.Add(10*time.Minute), hour, day)
		if want := 22*time.Hour + 50*time.Minute; ok || wait != want {
			t.Fatalf("6th use of the day = %v, wait %v; want refused until the day's first use leaves it (%v)", ok, wait, want)
		}
		// A taker that read its clock before waiting for the lock can find
		// a use a moment newer than its now: the wait is never over the span.
		ten := store.Window{Span: 10 * time.Minute, Max: 1}
		take(t, db, "org_d", now.Add(800*time.Millisecond), ten)
		if ok, wait := take(t, db, "org_d", now, ten); ok || wait != ten.Span {
			t.Fatalf("a use newer than now: %v, wait %v; want refused for the span (%v)", ok, wait, ten.Span)
		}
	})
}

// TestTakeQuotaConcurrent: takers fired together from two handles on one
// database (two processes) never overshoot the limit.
func TestTakeQuotaConcurrent(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			u := storetest.URL(t, d)
			dbs := []*store.DB{openURL(t, u), openURL(t, u)}
			limit := store.Window{Span: time.Hour, Max: 7}
			var mu sync.Mutex
			var wg sync.WaitGroup
			taken := 0
			for i := range 40 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := dbs[i%2].Tx(context.Background(), func(c *store.Conn) error {
						ok, _, err := c.TakeQuota(context.Background(), "invitations", "org_x", now, limit)
						if ok {
							mu.Lock()
							taken++
							mu.Unlock()
						}
						return err
					})
					if err != nil {
						t.Errorf("TakeQuota: %v", err)
					}
				}()
			}
			wg.Wait()
			if taken != limit.Max {
				t.Fatalf("%d concurrent uses taken, want exactly %d", taken, limit.Max)
			}
		})
	}
}

// openURL opens (and on SQLite migrates) the database at u, as another
// process would.
func openURL(t *testing.T, u string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.Options{URL: u})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db
}

// TestCapSessions: a user keeps the newest sessions, others' are untouched,
// and concurrent sessions from two processes leave no more than the cap.
func TestCapSessions(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			u := storetest.URL(t, d)
			dbs := []*store.DB{openURL(t, u), openURL(t, u)}
			ctx := context.Background()
			ada, bob := seedUser(t, dbs[0].Write(), "ada@example.com"), seedUser(t, dbs[0].Write(), "bob@example.com")
			for i := range 3 {
				newSession(t, dbs[0], bob, now.Add(time.Duration(i)*time.Second), 100)
			}
			const keep = 5
			var wg sync.WaitGroup
			for i := range 30 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					newSession(t, dbs[i%2], ada, now.Add(time.Duration(i)*time.Second), keep)
				}()
			}
			wg.Wait()
			for _, c := range []struct {
				u    store.User
				want int
			}{{ada, keep}, {bob, 3}} {
				var n int
				if err := dbs[1].Read().QueryRowForTest(ctx, `SELECT COUNT(*) FROM sessions WHERE user_id = ?`, c.u.ID).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != c.want {
					t.Errorf("%s has %d sessions, want %d", c.u.Email, n, c.want)
				}
			}
			// The newest are kept: a new one ends the oldest.
			last := newSession(t, dbs[0], ada, now.Add(time.Hour), keep)
			if _, err := dbs[0].Read().SessionByTokenHash(ctx, last.TokenHash); err != nil {
				t.Fatalf("the newest session was ended: %v", err)
			}
		})
	}
}

// newSession creates a session of u at at and caps u's sessions at keep,
// in one transaction.
func newSession(t *testing.T, db *store.DB, u store.User, at time.Time, keep int) store.Session {
	t.Helper()
	s := store.Session{ID: id.New(id.Session), UserID: u.ID, TokenHash: []byte(id.New(id.Session)), CreatedAt: at, ExpiresAt: at.Add(time.Hour), LastUsedAt: at}
	err := db.Tx(context.Background(), func(c *store.Conn) error {
		if err := c.CreateSession(context.Background(), s); err != nil {
			return err
		}
		_, err := c.CapSessions(context.Background(), u.ID, keep)
		return err
	})
	if err != nil {
		t.Errorf("new session: %v", err)
	}
	return s
}

// TestTurnOutwaitsLockTimeout: a transaction waits for its turn under a
// quota's lock and under a project's row lock longer than the session's
// lock_timeout (on PostgreSQL; set here to 200 ms in the URL), and the rest
// of it runs with the session's lock_timeout again.
func TestTurnOutwaitsLockTimeout(t *testing.T) {
	limit := store.Window{Span: time.Hour, Max: 5}
	locks := map[string]func(ctx context.Context, c *store.Conn, p store.Project) error{
		"quota": func(ctx context.Context, c *store.Conn, _ store.Project) error {
			ok, _, err := c.TakeQuota(ctx, "q", "org_slow", now, limit)
			if err == nil && !ok {
				err = errors.New("the quota refused a use")
			}
			return err
		},
		"project row": func(ctx context.Context, c *store.Conn, p store.Project) error { return c.LockProject(ctx, p.ID) },
	}
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			u := storetest.URL(t, d)
			if d == store.Postgres {
				sep := "?"
				if strings.Contains(u, "?") {
					sep = "&"
				}
				u += sep + "lock_timeout=200ms"
			}
			db := openURL(t, u)
			p := seedProject(t, db.Write())
			for name, lock := range locks {
				waitTurn(t, db, d, name, func(ctx context.Context, c *store.Conn) error { return lock(ctx, c, p) })
			}
		})
	}
}

// waitTurn holds lock in one transaction for a second while another takes
// it, and checks the second's lock_timeout after its turn.
func waitTurn(t *testing.T, db *store.DB, d store.Dialect, name string, lock func(context.Context, *store.Conn) error) {
	t.Helper()
	ctx := context.Background()
	holding := make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- db.Tx(ctx, func(c *store.Conn) error {
			if err := lock(ctx, c); err != nil {
				close(holding)
				return err
			}
			close(holding)
			time.Sleep(time.Second)
			return nil
		})
	}()
	<-holding
	err := db.Tx(ctx, func(c *store.Conn) error {
		if err := lock(ctx, c); err != nil {
			return err
		}
		if d != store.Postgres {
			return nil
		}
		var lt string
		if err := c.QueryRowForTest(ctx, `SHOW lock_timeout`).Scan(&lt); err != nil {
			return err
		}
		if lt != "200ms" {
			return fmt.Errorf("lock_timeout after the turn = %s, want the session's 200ms", lt)
		}
		return nil
	})
	if err != nil {
		t.Errorf("%s: waiting a second for the turn: %v", name, err)
	}
	if err := <-held; err != nil {
		t.Errorf("%s: the holder: %v", name, err)
	}
}
