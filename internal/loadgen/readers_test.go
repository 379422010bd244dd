package loadgen

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestReaders runs two readers alongside the senders against a real HTTP
// server on loopback: each reads the project's group list and INFO
// summaries every ReadEvery with the reader token until the run ends,
// reports its own latency (one read made slow shows in the max of one
// reader), and counts refused reads as failed.
func TestReaders(t *testing.T) {
	t.Parallel()
	tg, srv := newTarget(t, "k", func(int) int { return 0 })
	var mu sync.Mutex
	paths := map[string]int{}
	slow := true
	tg.api = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer reader" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		paths[r.URL.Path+"?"+r.URL.RawQuery]++
		wait := slow && strings.HasSuffix(r.URL.Path, "/groups")
		slow = false
		mu.Unlock()
		if wait {
			time.Sleep(150 * time.Millisecond)
		}
		_, _ = w.Write([]byte(`{"data":[],"next_cursor":null}`))
	})
	c := Config{URL: srv.URL, Key: "k", Concurrency: 2, Duration: 600 * time.Millisecond, Rate: 20,
		Project: "prj_1", Readers: 2, ReaderToken: "reader", ReadEvery: 50 * time.Millisecond}
	rep, err := Run(context.Background(), c, smallGenerator(t, 5))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(rep.Readers) != 2 {
		t.Fatalf("readers %+v, want 2", rep.Readers)
	}
	var slowest float64
	for i, r := range rep.Readers {
		if r.Reads < 4 || r.Failed != 0 || r.Latency.Samples != int(r.Reads) {
			t.Errorf("reader %d: %+v; want several reads, none failed", i+1, r)
		}
		slowest = max(slowest, r.Latency.Max)
	}
	if slowest < 150 {
		t.Errorf("slowest read %.1fms, want the 150ms one", slowest)
	}
	mu.Lock()
	if paths["/v1/projects/prj_1/groups?limit=50"] == 0 || paths["/v1/projects/prj_1/info-summaries?limit=50"] == 0 || len(paths) != 2 {
		t.Errorf("read %v; want the first pages of groups and info-summaries", paths)
	}
	mu.Unlock()
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"reader_1 ", "reader_2 ", "latency_p99_9 ", "p99.9 "} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}

	c.ReaderToken = "not a member's"
	rep, err = Run(context.Background(), c, smallGenerator(t, 5))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	text.Reset()
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if rep.Readers[0].Failed == 0 || rep.Readers[0].Reads != 0 || !strings.Contains(text.String(), "reads were not answered 200") {
		t.Errorf("with a bad token: %+v\n%s", rep.Readers, text.String())
	}
}

// TestReadersConfig checks what --readers needs.
func TestReadersConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		c    Config
		want string // part of the error; "" for none
	}{
		{"reader token", Config{Key: "k", Concurrency: 1, Batches: 1, Readers: 1, Project: "p", ReaderToken: "t"}, ""},
		{"count token", Config{Key: "k", Concurrency: 1, Batches: 1, Readers: 1, Project: "p", Token: "t"}, ""},
		{"no project", Config{Key: "k", Concurrency: 1, Batches: 1, Readers: 1, ReaderToken: "t"}, "--readers"},
		{"no token", Config{Key: "k", Concurrency: 1, Batches: 1, Readers: 1, Project: "p"}, "--readers"},
		{"negative", Config{Key: "k", Concurrency: 1, Batches: 1, Readers: -1}, "--readers"},
		{"project alone", Config{Key: "k", Concurrency: 1, Batches: 1, Project: "p"}, "--token"},
		{"jsonl", Config{Target: TargetJSONL, URL: "http://127.0.0.1:1/x", Concurrency: 1, Batches: 1, Readers: 1, Project: "p", ReaderToken: "t"}, "--readers"},
	} {
		err := tc.c.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.want)
		}
	}
	c := Config{Key: "k", Concurrency: 1, Batches: 1, Readers: 1, Project: "p", ReaderToken: "t"}
	if err := c.Validate(); err != nil || c.ReadEvery != time.Second || c.WaitDrain {
		t.Errorf("defaults: %v, every %s, drain %v; want 1s and no drain (no count check)", err, c.ReadEvery, c.WaitDrain)
	}
}
