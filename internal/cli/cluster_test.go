package cli_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// clusterProc is one process of the cluster test and how to start it again.
type clusterProc struct {
	name, role string
	*server
}

// TestCluster runs Errata as CONTRACT 7 supports scaling it: 2 api, 2
// worker and 2 scheduler processes, separate OS processes on one fresh
// PostgreSQL database, all started at once (issue 15). It sends load
// through both api processes and proves, with no fault, that every ticket
// is delivered exactly once; then, while a worker and a scheduler are
// SIGKILLed and restarted and the other worker is SIGSTOPped for a while,
// that every accepted event is counted exactly once, every ticket delivered
// (a duplicate only under its delivery id), a stopped worker delays only its
// own work, and digests, scheduled and on demand, go out once per period.
func TestCluster(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := emptyPostgres(t)
	rcv := newHookReceiver(t)
	rcv.answerAll200 = true
	env := []string{"ERRATA_DATABASE_URL=" + dbURL, "SSL_CERT_FILE=" + rcv.caFile, "ERRATA_WEBHOOK_ALLOW_PRIVATE=true",
		"ERRATA_WEBHOOK_RETRY_WAITS=1s,1s,1s,1s,1s,1s,1s", "ERRATA_WORKER_LEASE=5s", "ERRATA_DELIVERY_LEASE=20s",
		"ERRATA_API_RATE_LIMIT=10000", "ERRATA_API_RATE_BURST=10000", "ERRATA_INGEST_RATE_LIMIT=10000", "ERRATA_INGEST_RATE_BURST=10000",
		"ERRATA_GRPC_ADDR=off", "ERRATA_ADDR=127.0.0.1:0"}
	start := func(name, role string) *clusterProc {
		s := startServeProcess(t, t.TempDir(), append([]string{"ERRATA_ROLES=" + role}, env...)...)
		return &clusterProc{name: name, role: role, server: s}
	}
	ready := func(p *clusterProc) {
		r := p.log.waitFor(t, p.exited, "errata serving")
		p.Addr, _ = r["addr"].(string)
		p.URL = "http://" + p.Addr
	}
	// All six at once on a database that has no schema yet: migrations
	// take a lock, so every process comes up.
	procs := map[string]*clusterProc{}
	for _, p := range []struct{ name, role string }{{"api1", "api"}, {"api2", "api"}, {"w1", "worker"}, {"w2", "worker"}, {"s1", "scheduler"}, {"s2", "scheduler"}} {
		procs[p.name] = start(p.name, p.role)
	}
	for _, p := range procs {
		ready(p)
	}
	for name, p := range procs {
		for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
			if st, _ := p.call("GET", path, "", nil); st != http.StatusOK {
				t.Fatalf("%s (%s): GET %s = %d, want 200", name, p.role, path, st)
			}
		}
		if st, _ := p.call("GET", "/v1/openapi.json", "", nil); (st == http.StatusOK) != (p.role == "api") {
			t.Fatalf("%s (%s): GET /v1/openapi.json = %d: only api processes serve the API", name, p.role, st)
		}
	}
	api1, api2 := procs["api1"], procs["api2"]

	token := api1.must(http.StatusOK, "POST", "/v1/auth/sign-up/email", "", map[string]any{"email": "o@example.com", "password": "long enough", "name": "O"})["token"].(string)
	org := api1.must(http.StatusCreated, "POST", "/v1/orgs", token, map[string]any{"name": "Acme"})["id"].(string)
	member := api1.must(http.StatusOK, "GET", "/v1/orgs/"+org+"/members", token, nil)["data"].([]any)[0].(map[string]any)["id"].(string)
	var projects, keys []string
	for i := 0; i < 3; i++ {
		prj := api1.must(http.StatusCreated, "POST", "/v1/orgs/"+org+"/projects", token, map[string]any{"name": fmt.Sprintf("p%d", i)})["id"].(string)
		projects = append(projects, prj)
		keys = append(keys, api2.must(http.StatusCreated, "POST", "/v1/projects/"+prj+"/keys", token, map[string]any{"name": "k"})["key"].(string))
	}
	ch := api1.must(http.StatusCreated, "POST", "/v1/projects/"+projects[0]+"/channels", token,
		map[string]any{"member_id": member, "name": "hooks", "type": "webhook", "url": rcv.URL})
	rcv.setSecret(ch["signing_secret"].(string))

	load := &clusterLoad{t: t, apis: []*clusterProc{api1, api2}, keys: keys}

	// Phase 1, no fault: 120 new errors in the notified project, half
	// through each api process; each ticket is delivered exactly once.
	load.send(0, 120, 0)
	tickets := waitTickets(t, api1, token, projects[0], 120)
	waitDelivered(t, rcv, tickets, 2*time.Minute)
	reqs, _ := rcv.snapshot()
	perID := map[string]int{}
	for _, r := range reqs {
		perID[r.id]++
	}
	for id, n := range perID {
		if n != 1 {
			t.Errorf("delivery %s sent %d times in a run without faults", id, n)
		}
	}
	if len(perID) != len(tickets) {
		t.Errorf("%d delivery ids for %d tickets, want one each", len(perID), len(tickets))
	}

	// Phase 2, faults: load through both api processes while w1 and s1 are
	// SIGKILLed and restarted, and w2 is SIGSTOPped for a while.
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		load.send(120, 600, 40)
	}()
	time.Sleep(2 * time.Second)
	kill := func(name string) {
		p := procs[name]
		if err := p.cmd.Process.Kill(); err != nil {
			t.Fatalf("SIGKILL %s: %v", name, err)
		}
		<-p.exited
		procs[name] = start(name, p.role)
		ready(procs[name])
	}
	kill("w1")
	kill("s1")
	// A stopped worker delays only its own leased work: the other one
	// keeps processing.
	w2 := procs["w2"].cmd.Process
	if err := w2.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP w2: %v", err)
	}
	before := metric(t, procs["w1"], "errata_process_events_total")
	// More batches while w2 is stopped: on a loaded machine the load above
	// can be over, and all processed by w2, before the restarts are done.
	extraDone := make(chan struct{})
	go func() {
		defer close(extraDone)
		load.send(600, 620, 0)
	}()
	progressed := false
	for deadline := time.Now().Add(45 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if metric(t, procs["w1"], "errata_process_events_total") > before {
			progressed = true
			break
		}
	}
	if err := w2.Signal(syscall.SIGCONT); err != nil {
		t.Fatalf("SIGCONT w2: %v", err)
	}
	if !progressed {
		t.Fatalf("nothing was processed while w2 was stopped; w1's log:\n%s", procs["w1"].log)
	}
	<-loadDone
	<-extraDone

	// Every accepted event counted exactly once, per project.
	for i, prj := range projects {
		waitCounted(t, api2, token, prj, load.accepted(i))
	}
	tickets = waitTickets(t, api1, token, projects[0], 120+load.newErrors(0))
	waitDelivered(t, rcv, tickets, 3*time.Minute)
	reqs, _ = rcv.snapshot()
	bodies := map[string]string{}
	for _, r := range reqs {
		if prev, ok := bodies[r.id]; ok && prev != string(r.body) {
			t.Errorf("delivery %s sent with two different bodies", r.id)
		}
		bodies[r.id] = string(r.body)
	}
	if p := rcv.problemList(); len(p) > 0 {
		t.Fatalf("receiver got bad requests: %s", strings.Join(p, "\n"))
	}

	// Digests: two on demand at once, one through each api process: the
	// limit of one per project per 10 minutes holds across processes
	// (CONTRACT 8), one is sent and the other is 429; a scheduled one due
	// now goes out once, though two schedulers run.
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[int]int{}
	for _, p := range []*clusterProc{api1, api2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _ := p.call("POST", "/v1/projects/"+projects[1]+"/digests", token, nil)
			mu.Lock()
			answers[st]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if answers[http.StatusCreated] != 1 || answers[http.StatusTooManyRequests] != 1 {
		t.Errorf("on-demand digests through both api processes at once: answers %v, want one 201 and one 429", answers)
	}
	// A schedule made due within seconds, as a test may: settings saved
	// through the API, then the next send moved straight in the database,
	// where the schedulers read it.
	api2.must(http.StatusOK, "PUT", "/v1/projects/"+projects[2]+"/notification-settings", token,
		map[string]any{"digest": map[string]any{"enabled": true, "frequency": "hourly", "timezone": "UTC"}})
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	due := time.Now().Add(2 * time.Second).UTC()
	if _, err := db.ExecContext(ctx, `UPDATE notification_settings SET next_digest_at = $1, digest_enabled = true WHERE project_id = $2`,
		due.UnixMilli(), projects[2]); err != nil {
		t.Fatal(err)
	}
	waitDigests(t, api1, token, projects[2], 1, time.Minute)
	time.Sleep(3 * time.Second) // a second scheduler would send its copy now
	checkDigests(t, api1, token, projects[1], 1)
	checkDigests(t, api1, token, projects[2], 1)

	for name, p := range procs {
		if code := p.stop(); code != 0 {
			t.Errorf("%s exited with %d; log:\n%s", name, code, p.log)
		}
	}
}

// clusterLoad sends batches through the api processes in turn and keeps
// count of what was accepted per project.
type clusterLoad struct {
	t    *testing.T
	apis []*clusterProc
	keys []string

	mu     sync.Mutex
	counts map[int]int // accepted events per project index
	errs   map[int]int // new error groups per project index
}

// send sends batches [from, to): batch i goes to project i%len(keys)
// (errors of batch i make a group of their own in project 0, so that
// project 0 gets tickets), through api i%2, with a pause of pause ms.
func (l *clusterLoad) send(from, to, pause int) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i := from; i < to; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			p := i % len(l.keys)
			events := []any{
				map[string]any{"message": "payment step " + word(i) + " exploded", "level": "error"},
				map[string]any{"message": fmt.Sprintf("user %d signed in", i), "level": "info"},
				map[string]any{"message": fmt.Sprintf("cache hit %d", i), "level": "debug"},
				map[string]any{"message": "disk nearly full", "level": "warn"},
			}
			if i < 120 { // phase 1: errors only, in the notified project
				p, events = 0, events[:1]
			}
			body, _ := json.Marshal(map[string]any{"service": "checkout", "events": events})
			api := l.apis[i%len(l.apis)]
			for attempt := 0; ; attempt++ {
				req, _ := http.NewRequest(http.MethodPost, api.URL+"/v1/ingest", strings.NewReader(string(body)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+l.keys[p])
				res, err := http.DefaultClient.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				if err == nil && res.StatusCode == http.StatusAccepted {
					l.mu.Lock()
					if l.counts == nil {
						l.counts, l.errs = map[int]int{}, map[int]int{}
					}
					l.counts[p] += len(events)
					l.errs[p]++
					l.mu.Unlock()
					break
				}
				if attempt == 20 {
					l.t.Errorf("batch %d never accepted: %v", i, err)
					return
				}
				time.Sleep(200 * time.Millisecond) // 503 or a network error: resend, as clients do
			}
			time.Sleep(time.Duration(pause) * time.Millisecond)
		}(i)
	}
	wg.Wait()
}

func (l *clusterLoad) accepted(p int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[p]
}

// newErrors is how many error groups phase 2 made in project p (one per
// batch of p beyond phase 1).
func (l *clusterLoad) newErrors(p int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.errs[p] - 120
}

// word names batch i with letters grouping does not parameterise away.
func word(i int) string {
	const letters = "ghijklmnopqrstuvwxyz"
	return string([]byte{'q', letters[i/400%20], letters[i/20%20], letters[i%20], 'x'})
}

// waitTickets waits until the project has at least n tickets and returns
// their ids.
func waitTickets(t *testing.T, s *clusterProc, token, prj string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var ids []string
		for _, tk := range listAll(t, s.server, token, "/v1/projects/"+prj+"/tickets") {
			ids = append(ids, tk["id"].(string))
		}
		if len(ids) >= n {
			return ids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d tickets in project %s, want %d", len(ids), prj, n)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// waitDelivered waits until every ticket had a delivery answered 200.
func waitDelivered(t *testing.T, rcv *hookReceiver, tickets []string, budget time.Duration) {
	t.Helper()
	deadline := time.Now().Add(budget)
	for {
		delivered := deliveredTickets(rcv)
		missing := 0
		for _, tk := range tickets {
			if !delivered[tk] {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d tickets not delivered within %s", missing, len(tickets), budget)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitCounted waits until the project's groups' event_count plus its INFO
// summaries' event_count and debug_count is want, then checks it stays so
// (nothing counted twice).
func waitCounted(t *testing.T, s *clusterProc, token, prj string, want int) {
	t.Helper()
	count := func() int {
		n := 0
		for _, g := range listAll(t, s.server, token, "/v1/projects/"+prj+"/groups") {
			n += int(g["event_count"].(float64))
		}
		for _, sum := range listAll(t, s.server, token, "/v1/projects/"+prj+"/info-summaries") {
			n += int(sum["event_count"].(float64) + sum["debug_count"].(float64))
		}
		return n
	}
	deadline := time.Now().Add(3 * time.Minute)
	for got := count(); got != want; got = count() {
		if got > want || time.Now().After(deadline) {
			t.Fatalf("project %s counts %d events, want the %d accepted", prj, got, want)
		}
		time.Sleep(500 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	if got := count(); got != want {
		t.Fatalf("project %s counts %d events after settling, want %d", prj, got, want)
	}
}

func waitDigests(t *testing.T, s *clusterProc, token, prj string, n int, budget time.Duration) {
	t.Helper()
	deadline := time.Now().Add(budget)
	for len(listAll(t, s.server, token, "/v1/projects/"+prj+"/digests")) < n {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d digests of %s within %s", n, prj, budget)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkDigests checks a project has n digests whose periods follow each
// other, no period sent twice.
func checkDigests(t *testing.T, s *clusterProc, token, prj string, n int) {
	t.Helper()
	list := listAll(t, s.server, token, "/v1/projects/"+prj+"/digests")
	if len(list) != n {
		t.Fatalf("project %s has %d digests, want %d: %v", prj, len(list), n, list)
	}
	for i := 0; i+1 < len(list); i++ {
		newer, older := list[i]["period"].(map[string]any), list[i+1]["period"].(map[string]any)
		if newer["start"] != older["end"] {
			t.Errorf("digest periods %v and %v of %s overlap or leave a gap", older, newer, prj)
		}
	}
}

// metric reads a counter or gauge from a process's /metrics.
func metric(t *testing.T, p *clusterProc, name string) float64 {
	t.Helper()
	res, err := http.Get(p.URL + "/metrics")
	if err != nil {
		return -1
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, name+" ") {
			v, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, name)), 64)
			return v
		}
	}
	return -1
}
