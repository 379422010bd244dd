package httpapi_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
)

// TestSessionTouchDoesNotWaitForTheWriter: a read of the API whose session
// is due to be extended does not wait for a database writer held by
// another transaction (issue 30: group lists took 4.4 s behind the
// writer); the session is extended by a request once the writer is free.
func TestSessionTouchDoesNotWaitForTheWriter(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		ctx := context.Background()
		owner := s.SignUp(t, "touch@example.com")
		sess, err := s.App.DB.Read().SessionByTokenHash(ctx, secret.Hash(owner.Token))
		if err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-2 * time.Minute).UTC().Truncate(time.Millisecond)
		if err := s.App.DB.Write().TouchSession(ctx, sess.ID, old, old.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		lastUsed := func() time.Time {
			t.Helper()
			got, err := s.App.DB.Read().SessionByTokenHash(ctx, secret.Hash(owner.Token))
			if err != nil {
				t.Fatal(err)
			}
			return got.LastUsedAt
		}

		// On PostgreSQL the transaction holds the session's row lock; on
		// SQLite, the one writer. It holds it until the request has
		// answered, or for holdCap: a request that waited for the writer
		// answers only after the writer lets go, which the test sees as
		// released == true when the answer arrives. No bound on how fast
		// the request is: a slow machine does not fail the test.
		const holdCap = 30 * time.Second
		began, answered := make(chan struct{}), make(chan struct{})
		var released atomic.Bool
		var wg sync.WaitGroup
		wg.Go(func() {
			err := s.App.DB.Tx(ctx, func(c *store.Conn) error {
				if err := c.TouchSession(ctx, sess.ID, old, old.Add(time.Hour)); err != nil {
					return err
				}
				close(began)
				select {
				case <-answered:
				case <-time.After(holdCap):
				}
				released.Store(true)
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
		<-began
		res := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Token: owner.Token})
		heldThroughout := !released.Load()
		close(answered)
		if res.Status != 200 || !heldThroughout {
			t.Errorf("GET /v1/orgs with the writer held: %d, answered while the writer was held: %v; want 200 without waiting for the writer", res.Status, heldThroughout)
		}
		wg.Wait()
		if got := lastUsed(); !got.Equal(old) {
			t.Errorf("last_used_at %s, want it left at %s while the writer was busy", got, old)
		}
		if res := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Token: owner.Token}); res.Status != 200 {
			t.Fatalf("GET /v1/orgs: %d", res.Status)
		}
		if got := lastUsed(); time.Since(got) > time.Minute {
			t.Errorf("last_used_at %s after a request with the writer free, want now", got)
		}
	})
}
