package loadgen

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// countsAPI stands in for the project's groups and summaries lists: three
// groups over two pages and one summary, whose counts are base plus what
// added(read) says for the read-th reading of the groups (counting from
// 1). The first request of every list is answered 429 once.
type countsAPI struct {
	t     *testing.T
	base  int64
	added func(read int) int64

	mu       sync.Mutex
	reads    int
	refused  map[string]bool
	bearers  []string
	notFound int
}

func (a *countsAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.bearers = append(a.bearers, r.Header.Get("Authorization"))
	if a.refused == nil {
		a.refused = map[string]bool{}
	}
	if !a.refused[r.URL.Path] {
		a.refused[r.URL.Path] = true
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	if r.URL.Query().Get("limit") != "100" {
		a.t.Errorf("list read with limit %q, want 100", r.URL.Query().Get("limit"))
	}
	switch r.URL.Path {
	case "/v1/projects/prj_x/groups":
		if r.URL.Query().Get("cursor") == "" {
			a.reads++
			fmt.Fprintf(w, `{"data":[{"id":"grp_1","event_count":%d},{"id":"grp_2","event_count":5}],"next_cursor":"c2"}`, a.base+a.added(a.reads))
			return
		}
		fmt.Fprint(w, `{"data":[{"id":"grp_3","event_count":7}],"next_cursor":null}`)
	case "/v1/projects/prj_x/info-summaries":
		fmt.Fprint(w, `{"data":[{"id":"ism_1","event_count":100,"debug_count":30}],"next_cursor":null}`)
	default:
		a.notFound++
		http.NotFound(w, r)
	}
}

// TestCountCheckReads: the count check pages through both lists with the
// token (never the key), waits out 429s, subtracts what the project held
// before the run, reads again while the sum is short (the backlog gauge
// may read empty a moment before the last counts are committed), and
// reports a mismatch, with the three numbers, once the sum stops moving.
func TestCountCheckReads(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		added func(read int) int64
		match bool
		want  string // in the summary
	}{
		// Read 1 is before the run; 2 is right after the drain, short;
		// from 3 on the run's 40 events are there.
		{"late", func(read int) int64 { return map[bool]int64{true: 40}[read >= 3] }, true, "counted_events           40 of 40 accepted: match\n"},
		{"short", func(read int) int64 { return map[bool]int64{true: 30}[read >= 2] }, false, "counted_events           30 of 40 accepted: MISMATCH\n"},
		{"over", func(read int) int64 { return map[bool]int64{true: 41}[read >= 2] }, false, "counted_group_events     41\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg, srv := newTarget(t, "svc_live_k", func(int) int { return 0 })
			tg.backlog = func(int) float64 { return 0 }
			api := &countsAPI{t: t, base: 12, added: tc.added}
			tg.api = api
			var w waits
			c := Config{URL: srv.URL, Key: "svc_live_k", Token: "sess_tok", Project: "prj_x", Concurrency: 2, Batches: 4, sleep: w.sleep}
			rep, err := Run(context.Background(), c, smallGenerator(t, 10))
			if (err == nil) != tc.match {
				t.Fatalf("Run: %v, want an error %v", err, !tc.match)
			}
			n := rep.Counts
			if n == nil || n.Match != tc.match || n.Accepted != 40 || n.Before != 12+5+7+100+30 || n.InfoEvents != 0 || n.DebugEvents != 0 || n.Groups != 0 {
				t.Fatalf("counts %+v", n)
			}
			var text bytes.Buffer
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), tc.want) {
				t.Errorf("summary lacks %q:\n%s", tc.want, text.String())
			}
			api.mu.Lock()
			defer api.mu.Unlock()
			for _, b := range api.bearers {
				if b != "Bearer sess_tok" {
					t.Fatalf("the lists were read with %q, want the token", b)
				}
			}
			if tc.name == "short" && api.reads != 2+settleReads {
				t.Errorf("gave up after %d reads, want %d (one before, then until %d alike)", api.reads, 2+settleReads, settleReads+1)
			}
			if api.notFound > 0 {
				t.Errorf("%d reads of unknown paths", api.notFound)
			}
		})
	}
}

func TestCountCheckConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Key: "k", Token: "t", Concurrency: 1, Batches: 1}, "--project"},
		{Config{Key: "k", Project: "prj_x", Concurrency: 1, Batches: 1}, "--token"},
		{Config{Target: TargetJSONL, URL: "http://127.0.0.1:1/x", Token: "t", Project: "p", Concurrency: 1, Batches: 1}, "--target"},
	} {
		if err := tc.c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %s", tc.c, err, tc.want)
		}
	}
	c := Config{Key: "k", Token: "t", Project: "p", Concurrency: 1, Batches: 1}
	if err := c.Validate(); err != nil || !c.WaitDrain {
		t.Errorf("with a token: %v, wait-drain %v; want the drain turned on", err, c.WaitDrain)
	}
}
