package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/store"
)

// signInWaves signs email in n times, all fired together (more than the
// failure limiter's 10 tokens, each sign-in in flight reserving one until
// its password proves right), and returns the statuses, the tokens of the
// sessions opened and the headers of the refusals.
func signInWaves(t *testing.T, servers []*apitest.Server, email string, n int) ([]int, []string, *refusals) {
	t.Helper()
	var mu sync.Mutex
	var statuses []int
	var tokens []string
	r := &refusals{}
	for done := 0; done < n; done += n {
		together(n, func(i int) int {
			s := servers[(done+i)%len(servers)]
			body, _ := json.Marshal(map[string]any{"email": email, "password": apitest.Password})
			res, err := http.Post(s.URL+"/v1/auth/sign-in/email", "application/json", bytes.NewReader(body))
			if err != nil {
				t.Errorf("sign-in: %v", err)
				return 0
			}
			defer res.Body.Close()
			var answer struct{ Token, Type string }
			_ = json.NewDecoder(res.Body).Decode(&answer)
			mu.Lock()
			defer mu.Unlock()
			statuses = append(statuses, res.StatusCode)
			switch res.StatusCode {
			case http.StatusOK:
				tokens = append(tokens, answer.Token)
			case http.StatusTooManyRequests:
				r.headers = append(r.headers, res.Header)
				if !strings.HasSuffix(answer.Type, "/errors/rate-limited") {
					t.Errorf("429 of type %q, want the rate-limited problem", answer.Type)
				}
			}
			return res.StatusCode
		})
	}
	return statuses, tokens, r
}

// TestSuccessfulSignInLimit: an account signs in successfully at most 30
// times an hour (sign-up does not count), also when the sign-ins are fired
// together; the 31st is 429 with Retry-After, and an hour later it can
// again.
func TestSuccessfulSignInLimit(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		s.SignUp(t, "ada@example.com")
		statuses, _, _ := signInWaves(t, []*apitest.Server{s}, "Ada@Example.com", auth.SignInLimit.Max)
		if c := count(statuses); c[http.StatusOK] != auth.SignInLimit.Max {
			t.Fatalf("%d sign-ins after sign-up: %v, want all allowed", auth.SignInLimit.Max, c)
		}
		statuses, _, r := signInWaves(t, []*apitest.Server{s}, "ada@example.com", 6)
		if c := count(statuses); c[http.StatusTooManyRequests] != 6 {
			t.Fatalf("sign-ins past the limit: %v, want all 429", c)
		}
		r.check(t, time.Hour)
		// A wrong password is still a plain failure, not a sign-in.
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "ada@example.com", "password": "wrong password"}}).
			Expect(t, http.StatusUnauthorized, "invalid-credentials")
		s.Clock.Advance(time.Hour)
		statuses, _, _ = signInWaves(t, []*apitest.Server{s}, "ada@example.com", 1)
		if statuses[0] != http.StatusOK {
			t.Errorf("a sign-in an hour later: %d, want 200", statuses[0])
		}
	})
}

// TestSignInLimitAcrossProcesses: two api processes on one PostgreSQL
// database share the account's limit.
func TestSignInLimitAcrossProcesses(t *testing.T) {
	t.Parallel()
	a := apitest.Start(t, "postgres")
	b := apitest.StartOn(t, a.DatabaseURL)
	a.SignUp(t, "ada@example.com")
	statuses, _, _ := signInWaves(t, []*apitest.Server{a, b}, "ada@example.com", auth.SignInLimit.Max+6)
	if c := count(statuses); c[http.StatusOK] != auth.SignInLimit.Max || c[http.StatusTooManyRequests] != 6 {
		t.Fatalf("%d sign-ins through two processes: %v, want %d allowed and 6 refused", auth.SignInLimit.Max+6, c, auth.SignInLimit.Max)
	}
}

// TestSessionCap: a user holds at most 100 sessions: the 101st ends the
// oldest, and the others keep working.
func TestSessionCap(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		first := s.SignUp(t, "ada@example.com").Token
		orgID := s.CreateOrg(t, first, "Acme")
		var tokens []string
		for len(tokens) < auth.MaxSessions {
			s.Clock.Advance(time.Hour) // past the sign-in limit's window
			_, got, _ := signInWaves(t, []*apitest.Server{s}, "ada@example.com", min(auth.SignInLimit.Max, auth.MaxSessions-len(tokens)))
			tokens = append(tokens, got...)
		}
		if len(tokens) != auth.MaxSessions {
			t.Fatalf("%d sign-ins succeeded, want %d", len(tokens), auth.MaxSessions)
		}
		session := func(tok string) int {
			return s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: tok}).Status
		}
		if st := session(first); st != http.StatusUnauthorized {
			t.Errorf("the oldest session after %d newer ones: %d, want 401 (ended)", auth.MaxSessions, st)
		}
		statuses := together(len(tokens), func(i int) int {
			req, _ := http.NewRequest(http.MethodGet, s.URL+"/v1/auth/session", nil)
			req.Header.Set("Authorization", "Bearer "+tokens[i])
			st, _ := do(t, req)
			return st
		})
		// A 503 says the database could not serve the request then (the
		// shared PostgreSQL server of a loaded CI machine), not that the
		// session ended: it is asked again, as a client would after its
		// Retry-After. Only 200 and 401 say whether the session works.
		for i, st := range statuses {
			for try := 0; st == http.StatusServiceUnavailable && try < 5; try++ {
				time.Sleep(time.Second)
				st = session(tokens[i])
			}
			statuses[i] = st
		}
		answers := count(statuses)
		if alive := answers[http.StatusOK]; alive != auth.MaxSessions {
			t.Errorf("%d of the newest %d sessions work, want all: %v", alive, auth.MaxSessions, answers)
		}
		// The entry names the account whose session ended, so that the
		// log read by actor finds it.
		ended := auditLog(t, s, tokens[len(tokens)-1], orgID, "&action=session.ended&actor=ada@example.com")
		if len(ended) != 1 || ended[0]["data"].(map[string]any)["reason"] != "session-limit" ||
			ended[0]["actor"].(map[string]any)["email"] != "ada@example.com" {
			t.Errorf("session.ended entries by ada = %v, want one (session-limit)", ended)
		}
	})
}

// TestSignInsTogetherWithASlowHash: 31 right passwords fired together,
// each checked against a hash that takes real time, so that more sign-ins
// are in flight than the failure limiter has tokens: the ones that find
// its tokens all reserved wait for them to be given back, and exactly the
// account's 30 a hour succeed (the 31st is 429).
func TestSignInsTogetherWithASlowHash(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		ada := s.SignUp(t, "ada@example.com")
		ctx := context.Background()
		// 4 MiB: about 40 ms a hash under the race detector on a quiet
		// two-core machine. With 16 MiB (140 ms) 31 of them queued past the
		// limiter's 5 s wait on a busy one (CI's -race -p 4), and the late
		// ones were 429.
		hash, err := auth.NewHasher(auth.Argon2{MemoryKiB: 4 * 1024, Time: 1, Threads: 1}).Hash(ctx, apitest.Password)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.App.DB.Tx(ctx, func(c *store.Conn) error { return c.SetUserPassword(ctx, ada.UserID, hash, s.Clock.Now()) }); err != nil {
			t.Fatal(err)
		}
		statuses, _, _ := signInWaves(t, []*apitest.Server{s}, "ada@example.com", auth.SignInLimit.Max+1)
		if c := count(statuses); c[http.StatusOK] != auth.SignInLimit.Max || c[http.StatusTooManyRequests] != 1 {
			t.Fatalf("%d right passwords at once: %v, want %d × 200 and one 429", auth.SignInLimit.Max+1, c, auth.SignInLimit.Max)
		}
	})
}
