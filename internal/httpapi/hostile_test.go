package httpapi_test

// Hostile input and races (CONTRACT 7, "Hostile input and failing parts"):
// NUL characters, parallel sign-in guesses, concurrent changes that would
// break an invariant, and who sees a webhook's URL.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/notify/digest"
)

func TestNULIsStoredAsReplacementCharacter(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		// Every string of an event carries U+0000; the batch's other events
		// must be processed too (a NUL once made PostgreSQL refuse the
		// whole batch forever).
		feed(t, s, w.Key, map[string]any{"service": "a\x00pi", "environment": "pro\x00d", "release": "1.\x00", "events": []any{
			ev("boom a\x00b", "error", "stack_trace", "Trace\x00line", "trace_id", "t\x00", "span_id", "s\x00",
				"attributes", map[string]any{"k\x00": "v\x00", "nested": map[string]any{"deep": []any{"x\x00y"}}}),
			ev("payment \x00 declined", "info"),
			ev("plain error", "error"),
		}})
		g := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "boom")
		if g["service"] != "a\uFFFDpi" {
			t.Errorf("group service = %q, want a\\uFFFDpi", g["service"])
		}
		e := items(t, s, w.Owner.Token, "/v1/groups/"+g["id"].(string)+"/events")[0]
		for field, want := range map[string]string{"message": "boom a\uFFFDb", "stack_trace": "Trace\uFFFDline", "environment": "pro\uFFFDd",
			"release": "1.\uFFFD", "trace_id": "t\uFFFD", "span_id": "s\uFFFD"} {
			if e[field] != want {
				t.Errorf("event %s = %q, want %q", field, e[field], want)
			}
		}
		attrs, _ := json.Marshal(e["attributes"])
		if want := `{"k` + "\uFFFD" + `":"v` + "\uFFFD" + `","nested":{"deep":["x` + "\uFFFD" + `y"]}}`; string(attrs) != want {
			t.Errorf("event attributes = %s, want %s", attrs, want)
		}
		groupByTitle(t, s, w.Owner.Token, w.ProjectID, "plain error")
		sums := items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/info-summaries")
		if len(sums) != 1 {
			t.Fatalf("summaries = %d, want 1", len(sums))
		}
		top, _ := json.Marshal(sums[0]["top_messages"])
		if !strings.Contains(string(top), "payment \uFFFD declined") || strings.Contains(string(top), `\u0000`) {
			t.Errorf("top messages = %s, want the sample with U+FFFD", top)
		}
	})
}

// rawPost sends body as JSON from many goroutines (apitest's Do fails the
// test from the calling goroutine only).
func rawPost(t *testing.T, url, token string, body any) (int, http.Header) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (int, http.Header) {
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", req.Method, req.URL.Path, err)
		return 0, nil
	}
	defer res.Body.Close()
	_, _ = bytes.NewBuffer(nil).ReadFrom(res.Body)
	return res.StatusCode, res.Header
}

// together runs f(i) for i < n at once and collects the statuses.
func together(n int, f func(i int) int) []int {
	out := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			out[i] = f(i)
		}(i)
	}
	close(start)
	wg.Wait()
	return out
}

func count(statuses []int) map[int]int {
	m := map[int]int{}
	for _, st := range statuses {
		m[st]++
	}
	return m
}

func TestSignInFailuresAreReservedBeforeTheCheck(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		s.SignUp(t, "ada@example.com")
		const n = 60
		statuses := together(n, func(int) int {
			st, h := rawPost(t, s.URL+"/v1/auth/sign-in/email", "", map[string]any{"email": "ada@example.com", "password": "wrong password!"})
			if st == http.StatusTooManyRequests && h.Get("Retry-After") == "" {
				t.Errorf("429 without Retry-After")
			}
			return st
		})
		c := count(statuses)
		// Ten failures per address, then one a minute: however many arrive
		// at once, at most 11 are evaluated.
		if c[http.StatusUnauthorized] > 11 || c[http.StatusUnauthorized] < 10 || c[http.StatusUnauthorized]+c[http.StatusTooManyRequests] != n {
			t.Fatalf("answers to %d concurrent wrong passwords = %v, want 10 or 11 × 401 and the rest 429", n, c)
		}
		// The bucket is empty: even the right password waits.
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "ada@example.com", "password": apitest.Password}}).
			Expect(t, http.StatusTooManyRequests, "rate-limited")
		// A right password gives its reservation back: another address
		// signs in more often than the failure limit without being limited.
		if _, err := s.App.Auth.CreateUser(context.Background(), "grace@example.com", apitest.Password, "Grace"); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 15; i++ {
			s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "grace@example.com", "password": apitest.Password}}).
				Expect(t, http.StatusOK, "")
		}
	})
}

func TestOwnersCannotAllLeaveTogether(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		a := s.SignUp(t, "a@example.com")
		for round := 0; round < 4; round++ {
			orgID := s.CreateOrg(t, a.Token, "Acme")
			a.MemberID = s.MemberID(t, a.Token, orgID, a.UserID)
			b := s.AddMember(t, a.Token, orgID, newEmail("b"), "owner")
			pair := []apitest.Actor{a, b}
			// Two owners demote each other at once.
			demote := together(2, func(i int) int {
				req, _ := http.NewRequest(http.MethodPatch, s.URL+"/v1/members/"+pair[1-i].MemberID, strings.NewReader(`{"role":"admin"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+pair[i].Token)
				st, _ := do(t, req)
				return st
			})
			if owners := countOwners(t, s, a.Token, orgID); owners != 1 || count(demote)[http.StatusOK] != 1 {
				t.Fatalf("round %d: two owners demoting each other: answers %v, owners left %d; want one 200 and one owner", round, demote, owners)
			}
			// Make both owners again, then both leave at once.
			s.Do(apitest.Request{Method: "PATCH", Path: "/v1/members/" + a.MemberID, Token: b.Token, Body: map[string]any{"role": "owner"}})
			s.Do(apitest.Request{Method: "PATCH", Path: "/v1/members/" + b.MemberID, Token: a.Token, Body: map[string]any{"role": "owner"}})
			if owners := countOwners(t, s, a.Token, orgID); owners != 2 {
				t.Fatalf("round %d: owners = %d, want 2 before leaving", round, owners)
			}
			leave := together(2, func(i int) int {
				req, _ := http.NewRequest(http.MethodDelete, s.URL+"/v1/members/"+pair[i].MemberID, nil)
				req.Header.Set("Authorization", "Bearer "+pair[i].Token)
				st, _ := do(t, req)
				return st
			})
			if c := count(leave); c[http.StatusNoContent] != 1 || c[http.StatusConflict] != 1 {
				t.Fatalf("round %d: both owners leaving at once: answers %v, want one 204 and one 409 last-owner", round, leave)
			}
		}
	})
}

// countOwners counts the owners of orgID as whoever of a and the others is
// still a member sees them.
func countOwners(t *testing.T, s *apitest.Server, token, orgID string) int {
	t.Helper()
	r := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID + "/members?limit=100", Token: token})
	if r.Status == http.StatusNotFound {
		return -1
	}
	n := 0
	for _, m := range r.Expect(t, http.StatusOK, "").JSON(t)["data"].([]any) {
		if m.(map[string]any)["role"] == "owner" {
			n++
		}
	}
	return n
}

func TestChannelLimitHoldsUnderConcurrentCreations(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		for round := 0; round < 2; round++ {
			prj := s.CreateProject(t, w.Owner.Token, w.OrgID, "burst")
			const n = 40 // the team plan allows 25
			statuses := together(n, func(i int) int {
				st, _ := rawPost(t, s.URL+channelsPath(prj), w.Admin.Token, emailChannel(w.Admin.MemberID, "mail"))
				return st
			})
			got := len(items(t, s, w.Owner.Token, channelsPath(prj)+"?limit=100"))
			if c := count(statuses); got != 25 || c[http.StatusCreated] != 25 || c[http.StatusForbidden] != n-25 {
				t.Fatalf("round %d: %d concurrent creations: answers %v, channels %d; want 25 created and %d plan-limit-reached", round, n, c, got, n-25)
			}
		}
	})
}

func TestWebhookURLShownWholeOnlyToAdmins(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc := newReceiver(t, http.StatusOK)
		secretURL := rc.URL + "/T0001/B0002/s3cr3tT0k3n?token=abc"
		id, _ := newHook(t, s, w, w.ProjectID, "Chat", secretURL)
		masked := secretURL[:strings.Index(secretURL, "/hook")] + "/…"
		for _, c := range []struct {
			who   apitest.Actor
			whole bool
		}{{w.Owner, true}, {w.Admin, true}, {w.Member, false}, {w.Viewer, false}} {
			want := masked
			if c.whole {
				want = secretURL
			}
			if got := getChannel(t, s, c.who.Token, id)["url"]; got != want {
				t.Errorf("%s sees url %q, want %q", c.who.Email, got, want)
			}
			list := items(t, s, c.who.Token, channelsPath(w.ProjectID))
			if len(list) != 1 || list[0]["url"] != want {
				t.Errorf("%s lists url %v, want %q", c.who.Email, list, want)
			}
		}
	}, allowPrivate)
}

// withRedactKeys adds ERRATA_REDACT_KEYS.
func withRedactKeys(keys ...string) func(*config.Serve) {
	return func(c *config.Serve) { c.RedactKeys = keys }
}

func TestRedactKeysSetting(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		feed(t, s, w.Key, batchOf("api", ev("redact me", "error", "attributes", map[string]any{
			"ssn": "078-05-1120", "user": map[string]any{"card_number": "4111"}, "client_secret": "x", "private_key": "k", "pwd": "p", "region": "eu",
		})))
		g := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "redact me")
		e := items(t, s, w.Owner.Token, "/v1/groups/"+g["id"].(string)+"/events")[0]
		got, _ := json.Marshal(e["attributes"])
		want := `{"client_secret":"[redacted]","private_key":"[redacted]","pwd":"[redacted]","region":"eu","ssn":"[redacted]","user":{"card_number":"[redacted]"}}`
		var norm map[string]any
		_ = json.Unmarshal(got, &norm)
		if b, _ := json.Marshal(norm); string(b) != want {
			t.Errorf("attributes = %s, want %s", b, want)
		}
	}, withRedactKeys("SSN", "card-number"))
}

// TestConcurrentOnDemandDigestsCoverConsecutivePeriods: POST …/digests
// fired together (through several api processes, say) send one digest
// every 10 minutes (CONTRACT 8; the others are 429), whose periods follow
// each other, never the same period twice.
func TestConcurrentOnDemandDigestsCoverConsecutivePeriods(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		path := "/v1/projects/" + w.ProjectID + "/digests"
		for round := 0; round < 3; round++ {
			statuses := together(4, func(int) int {
				st, _ := rawPost(t, s.URL+path, w.Admin.Token, map[string]any{})
				return st
			})
			if c := count(statuses); c[http.StatusCreated] != 1 || c[http.StatusTooManyRequests] != 3 {
				t.Fatalf("round %d: answers %v, want one 201 and three 429", round, statuses)
			}
			s.Clock.Advance(digest.DigestNowLimit.Span)
		}
		var periods [][2]string
		for _, d := range items(t, s, w.Admin.Token, path+"?limit=100") {
			p := d["period"].(map[string]any)
			periods = append(periods, [2]string{p["start"].(string), p["end"].(string)})
		}
		if len(periods) != 3 {
			t.Fatalf("digests = %d, want 3", len(periods))
		}
		// Newest first: each period starts where the one before it ended.
		for i := 0; i+1 < len(periods); i++ {
			if periods[i][0] != periods[i+1][1] {
				t.Errorf("digest periods %v and %v do not follow each other", periods[i+1], periods[i])
			}
		}
	})
}

// TestStalledManagementBody: a sign-in whose body stops arriving gets no
// answer once ERRATA_READ_TIMEOUT passes, only its connection closed
// (CONTRACT 7), neither a 500 nor a 400 naming the body malformed: the
// client stalled, nothing failed here. A body that keeps arriving within
// the timeout is read whole, even past huma's own default of 5 s.
func TestStalledManagementBody(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		send := func(t *testing.T, trickle bool) (int, map[string]any) {
			c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(30 * time.Second))
			body := `{"email":"nobody@example.com","password":"wrong password!"}`
			if _, err := io.WriteString(c, "POST /v1/auth/sign-in/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "+
				strconv.Itoa(len(body))+"\r\n\r\n"+body[:10]); err != nil {
				t.Fatal(err)
			}
			if trickle { // the rest over 6 s, within the 8 s timeout
				for i := 10; i < len(body); i += 5 {
					time.Sleep(6 * time.Second / time.Duration((len(body)-10)/5+1))
					if _, err := io.WriteString(c, body[i:min(i+5, len(body))]); err != nil {
						t.Fatal(err)
					}
				}
			}
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				if !trickle && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
					return 0, nil // closed without an answer
				}
				t.Fatal(err)
			}
			defer res.Body.Close()
			var p map[string]any
			if err := json.NewDecoder(res.Body).Decode(&p); err != nil {
				t.Fatal(err)
			}
			return res.StatusCode, p
		}
		if status, p := send(t, false); status != 0 {
			t.Fatalf("stalled body answered %d %v, want the connection closed without an answer", status, p)
		}
		if status, p := send(t, true); status != http.StatusUnauthorized {
			t.Fatalf("a body arriving over 6 s of an 8 s timeout answered %d %v, want it read whole (401 for a wrong password)", status, p)
		}
	}, func(c *config.Serve) { c.ReadTimeout = 8 * time.Second })
}

// TestMemoryShareProtectsOtherOrganizations: one organization whose
// requests hold half the memory budget (bodies that sent 3.75 MiB each and
// stall, for two of its projects) gets no more, whatever
// project they are for (CONTRACT 8): a third project of it waits and gets
// 503, while another organization's batch is accepted at once.
func TestMemoryShareProtectsOtherOrganizations(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		second := s.CreateProject(t, w.Owner.Token, w.OrgID, "second")
		_, secondKey := s.CreateKey(t, w.Owner.Token, second)
		third := s.CreateProject(t, w.Owner.Token, w.OrgID, "third")
		_, thirdKey := s.CreateKey(t, w.Owner.Token, third)
		_, otherKey := s.CreateKey(t, w.Outsider.Token, w.OtherProjectID)
		host := strings.TrimPrefix(s.URL, "http://")
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		// Each body sends 15 chunks of 256 KiB and stalls: it holds 16 (the
		// next one reserved for bytes to come), 4 MiB; two hold the
		// organization's half of the 16 MiB budget exactly.
		prefix := `{"events":[`
		body := append([]byte(prefix), bytes.Repeat([]byte(" "), 15*256<<10-len(prefix))...)
		for i := range 2 {
			c, err := net.Dial("tcp", host)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			key := []string{w.Key, secondKey}[i%2]
			go func() {
				_, _ = io.WriteString(c, "POST /v1/ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+key+
					"\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n")
				_, _ = c.Write(body)
			}()
		}
		// The bodies hold what arrived: 500 ms was not always enough for
		// the server to read 7.5 MiB under CI's race detector on a busy
		// machine, and the third project's batch got in first.
		time.Sleep(3 * time.Second)
		r := s.Do(ingestReq(otherKey, batchOf("api", ev("another organization still ingests", "error")), nil))
		if r.Status != http.StatusAccepted {
			t.Fatalf("another organization's batch while one organization's bodies stall = %d %s, want 202", r.Status, r.Body)
		}
		r = s.Do(ingestReq(thirdKey, batchOf("api", ev("the same organization's third project", "error")), nil))
		if r.Status != http.StatusServiceUnavailable {
			t.Fatalf("a third project of the organization holding its half = %d %s, want 503", r.Status, r.Body)
		}
	}, func(c *config.Serve) { c.IngestMemory = 16 << 20 })
}

// TestBodyBytesNotUTF8: a JSON body that is not UTF-8 is 400 malformed-body
// (Go's decoder would keep a name other than sent, and take two passwords
// of different bad bytes as one), after authentication; valid UTF-8 and
// U+FFFD written out are accepted.
func TestBodyBytesNotUTF8(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		path := "/v1/orgs/" + w.OrgID + "/projects"
		s.Do(apitest.Request{Method: "POST", Path: path, Body: "{\"name\":\"x\xff\"}"}).Expect(t, http.StatusUnauthorized, "unauthorized")
		r := s.Do(apitest.Request{Method: "POST", Path: path, Token: w.Owner.Token, Body: "{\"name\":\"x\xff\"}"}).Expect(t, http.StatusBadRequest, "malformed-body")
		if d := r.Str(t, "detail"); !strings.Contains(d, "offset 10") {
			t.Errorf("detail %q does not say where", d)
		}
		s.Do(apitest.Request{Method: "POST", Path: path, Token: w.Owner.Token, Body: `{"name":"café \ufffd"}`}).Expect(t, http.StatusCreated, "")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email",
			Body: "{\"email\":\"bytes@example.com\",\"password\":\"correct horse \xff\xff\",\"name\":\"B\"}"}).Expect(t, http.StatusBadRequest, "malformed-body")
	})
}
