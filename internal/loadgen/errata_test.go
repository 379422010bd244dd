package loadgen_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/store"
)

// loadgenProject signs up an owner on s and makes a project and a key for
// the load generator; it returns the owner's token, the project and the key.
func loadgenProject(t *testing.T, s *apitest.Server) (token, project, key string) {
	t.Helper()
	owner := s.SignUp(t, "owner@example.com")
	project = s.CreateProject(t, owner.Token, s.CreateOrg(t, owner.Token, "Acme"), "loadgen")
	_, key = s.CreateKey(t, owner.Token, project)
	return owner.Token, project, key
}

// TestCountCheck runs the load generator against a real server that
// processes what it accepts, with the count check on, on both databases:
// after the drain, the groups' event_count + the INFO summaries'
// event_count + debug_count that the run added are the events accepted,
// the open INFO window included. A second run into the same project
// counts only what it added.
func TestCountCheck(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		token, project, key := loadgenProject(t, s)
		o := loadgen.DefaultOptions()
		o.BatchSize = 50
		g, err := loadgen.NewGenerator(o)
		if err != nil {
			t.Fatal(err)
		}
		var before int64
		for run, distinct := range []int{0, 4} {
			rep, err := loadgen.Run(context.Background(), loadgen.Config{URL: s.URL, Key: key, Token: token, Project: project,
				Concurrency: 4, Batches: 20, Distinct: distinct}, g)
			if err != nil {
				t.Fatalf("run %d: %v", run, err)
			}
			n := rep.Counts
			if n == nil || rep.Drain == nil || !rep.Drain.Drained {
				t.Fatalf("run %d: counts %+v, drain %+v; want both (the token turns the drain on)", run, n, rep.Drain)
			}
			if !n.Match || n.Counted != 1000 || rep.EventsAccepted != 1000 || n.Accepted != 1000 || n.Before != before {
				t.Errorf("run %d: counted %+v of %d accepted; want 1000 of 1000, %d before", run, n, rep.EventsAccepted, before)
			}
			if n.GroupEvents == 0 || n.InfoEvents == 0 || n.DebugEvents == 0 || n.GroupEvents+n.InfoEvents+n.DebugEvents != n.Counted {
				t.Errorf("run %d: groups %d, info %d, debug %d: want each counted, summing to %d", run, n.GroupEvents, n.InfoEvents, n.DebugEvents, n.Counted)
			}
			// The second run resends the first run's first batches: no
			// group is new to it.
			if wantNew := run == 0; (n.Groups > 0) != wantNew {
				t.Errorf("run %d: %d groups added, want some %v", run, n.Groups, wantNew)
			}
			var text bytes.Buffer
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "counted_events           1000 of 1000 accepted: match\n") ||
				!strings.Contains(text.String(), fmt.Sprintf("counted_groups           %d\n", n.Groups)) {
				t.Errorf("run %d: the summary does not say the counts match:\n%s", run, text.String())
			}
			before += n.Counted
		}
	}, func(c *config.Serve) { c.Roles = []string{config.RoleAPI, config.RoleWorker} })
}

// TestPacingAgainstErrata: against a real server whose ingest limit is
// 50 requests/s with bursts of 10, 70 batches from 4 senders are all
// accepted without a single 429, the run holding requests back instead;
// the rate it proves is not above the server's. With --ignore-rate-limit
// the same load is refused (a burst of 5 at 5/s cannot take 30 batches
// in less than 5 s; without resends, the refused batches are abandoned).
func TestPacingAgainstErrata(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, store.SQLite, func(c *config.Serve) { c.IngestRateLimit, c.IngestRateBurst = 50, 10 })
	_, _, key := loadgenProject(t, s)
	g, err := loadgen.NewGenerator(loadgen.Options{Seed: 3, BatchSize: 5, Services: 2, Templates: 10, ErrorRatio: 0.1, StackRatio: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := loadgen.Run(context.Background(), loadgen.Config{URL: s.URL, Key: key, Concurrency: 4, Batches: 70}, g)
	if err != nil {
		t.Fatal(err)
	}
	rl := rep.RateLimit
	if rep.BatchesAccepted != 70 || rep.Refusals.Status429 != 0 || rep.Retries != 0 {
		t.Errorf("%d batches accepted, %d refused with 429, %d resent; want 70, none, none", rep.BatchesAccepted, rep.Refusals.Status429, rep.Retries)
	}
	if !rl.Paced || rl.Limit != 10 || rl.Waits == 0 || rl.RatePerSecond <= 0 || rl.RatePerSecond > 50 {
		t.Errorf("rate limit %+v: want paced, bursts of 10, requests held back, a rate proven in (0, 50]", rl)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "note: ") || !strings.Contains(text.String(), "ERRATA_INGEST_RATE_LIMIT") {
		t.Errorf("the summary does not say the rate limit held the run back:\n%s", text.String())
	}
	// One line a sender; together they are the run.
	var batches int64
	for i, snd := range rep.Senders {
		batches += snd.BatchesAccepted
		if int64(snd.Latency.Samples) != snd.BatchesAccepted || snd.Latency.P50 > snd.Latency.Max {
			t.Errorf("sender %d: %+v", i+1, snd)
		}
		if !strings.Contains(text.String(), "sender_"+string(rune('1'+i))+" ") {
			t.Errorf("the summary has no line for sender %d", i+1)
		}
	}
	if len(rep.Senders) != 4 || batches != 70 {
		t.Errorf("%d senders with %d batches, want 4 with 70", len(rep.Senders), batches)
	}

	slow := apitest.Start(t, store.SQLite, func(c *config.Serve) { c.IngestRateLimit, c.IngestRateBurst = 5, 5 })
	_, _, key = loadgenProject(t, slow)
	rep, err = loadgen.Run(context.Background(), loadgen.Config{URL: slow.URL, Key: key, Concurrency: 4, Batches: 30, IgnoreRateLimit: true}, g)
	if err != nil {
		t.Fatal(err)
	}
	if rep.RateLimit.Paced || rep.RateLimit.Waits != 0 || rep.Refusals.Status429 == 0 {
		t.Errorf("ignoring the limit: %+v, %d refused; want no pacing and 429s", rep.RateLimit, rep.Refusals.Status429)
	}
}
