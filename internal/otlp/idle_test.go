package otlp_test

import (
	"bufio"
	"bytes"
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/store"
)

// metric reads one unlabelled sample from /metrics.
func metric(t *testing.T, s *apitest.Server, name string) float64 {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(s.Do(apitest.Request{Method: "GET", Path: "/metrics"}).Body))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return f
		}
	}
	t.Fatalf("/metrics has no %s", name)
	return 0
}

// otherOrg is another organization of w's owner, with a project and a key.
func (w world) otherOrg(t *testing.T, s *apitest.Server, name string) world {
	t.Helper()
	org := s.CreateOrg(t, w.owner.Token, name)
	prj := s.CreateProject(t, w.owner.Token, org, "web")
	_, key := s.CreateKey(t, w.owner.Token, prj)
	return world{owner: w.owner, projectID: prj, key: key}
}

// idleCalls opens n Export calls with key that send their headers and
// never their message.
func idleCalls(t *testing.T, s *apitest.Server, key string, n int) {
	t.Helper()
	cc, err := grpc.NewClient(s.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+key))
	t.Cleanup(func() { cancel(); _ = cc.Close() })
	for range n {
		if _, err := cc.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true, ServerStreams: true},
			exportPath, grpc.ForceCodecV2(rawCodec{})); err != nil {
			t.Fatal(err)
		}
	}
}

// waitMetric polls name in /metrics until it is at least want.
func waitMetric(t *testing.T, s *apitest.Server, name string, want float64) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); metric(t, s, name) < want; {
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v, want %v", name, metric(t, s, name), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestIdleCallsHoldNoMemory: Export calls that are admitted and never send
// their message hold nothing of the memory budget (they once held 40 MiB
// each until the read timeout, so that a few kept every other export
// waiting past its 1 s, CONTRACT 8); other organizations' exports and
// their own are served beside them.
func TestIdleCallsHoldNoMemory(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		a := newWorld(t, s)
		b, c := a.otherOrg(t, s, "B"), a.otherOrg(t, s, "C")
		idleCalls(t, s, a.key, 8)
		idleCalls(t, s, b.key, 8)
		waitMetric(t, s, "errata_ingest_grpc_calls_awaiting_message", 16)
		if got := metric(t, s, "errata_ingest_memory_awaiting_messages"); got != 0 {
			t.Errorf("errata_ingest_memory_awaiting_messages = %v with only idle calls, want 0", got)
		}
		if _, err := rawExport(t, s, c.key); err != nil {
			t.Fatalf("export of another organization beside idle calls: %v", err)
		}
		if _, err := rawExport(t, s, a.key); err != nil {
			t.Fatalf("export of the idle calls' organization: %v", err)
		}
		if got := metric(t, s, "errata_ingest_memory_preempted_total"); got != 0 {
			t.Errorf("errata_ingest_memory_preempted_total = %v, want 0: idle calls hold nothing to take back", got)
		}
	}, apitest.WithGRPC, func(c *config.Serve) { c.IngestMemory = 161 << 20 })
}

// TestStalledPrefixIsTakenBack: calls that send a compressed message's
// prefix and stall hold room for the largest message (40 MiB); they
// cannot keep it from a request that waits for it. Another organization's
// export is served while they fill the whole budget, and their own
// organization's while they fill its half; a stalled call whose room is
// taken back is refused UNAVAILABLE, which OTLP clients retry.
func TestStalledPrefixIsTakenBack(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		a := newWorld(t, s)
		b, c := a.otherOrg(t, s, "B"), a.otherOrg(t, s, "C")
		// Two stalled calls fill an organization's half of the 161 MiB
		// budget, four the whole of it (less what the connections hold).
		var stalled []*rawCall
		for _, key := range []string{a.key, a.key, b.key, b.key} {
			call := openRaw(t, s.GRPCAddr, key, true)
			call.prefix(true, 1000)
			stalled = append(stalled, call)
		}
		waitMetric(t, s, "errata_ingest_memory_awaiting_messages", 4)
		// An uncompressed message needs only twice its length: it fits in
		// what the stalled calls left, and takes nothing back.
		if _, err := rawExport(t, s, c.key); err != nil {
			t.Fatalf("uncompressed export beside stalled calls: %v", err)
		}
		if got := metric(t, s, "errata_ingest_memory_preempted_total"); got != 0 {
			t.Errorf("errata_ingest_memory_preempted_total = %v after an uncompressed export of %d bytes, want 0", got, len(probeMessage(t)))
		}
		// Compressed, each needs room for the largest message.
		gzip := grpc.UseCompressor("gzip")
		if _, err := rawExport(t, s, c.key, gzip); err != nil {
			t.Fatalf("export of another organization with the budget held by stalled calls: %v", err)
		}
		if _, err := rawExport(t, s, a.key, gzip); err != nil {
			t.Fatalf("export of the stalled calls' organization with its half held by them: %v", err)
		}
		if got := metric(t, s, "errata_ingest_memory_preempted_total"); got < 1 {
			t.Errorf("errata_ingest_memory_preempted_total = %v, want at least 1", got)
		}
		type answer struct{ code, message string }
		ended := make(chan answer, len(stalled))
		for _, call := range stalled {
			go func() {
				code, msg, ok := call.statusWithin(20 * time.Second)
				if ok {
					ended <- answer{code, msg}
				}
			}()
		}
		select {
		case got := <-ended:
			if got.code != "14" || !strings.Contains(got.message, "had not arrived") {
				t.Fatalf("a stalled call ended with grpc-status %q %q, want 14 (UNAVAILABLE) naming the message that had not arrived", got.code, got.message)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no stalled call was ended")
		}
	}, apitest.WithGRPC, func(c *config.Serve) { c.IngestMemory = 161 << 20 })
}

// TestSlowMessageKeepsItsRoomWithoutWaiters: room is taken back only for
// a request that waits for it; a message whose prefix came and whose rest
// comes well after the 500 ms grace, with nobody waiting, is served.
func TestSlowMessageKeepsItsRoomWithoutWaiters(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		msg := probeMessage(t)
		call := openRaw(t, s.GRPCAddr, w.key, false)
		call.prefix(false, len(msg))
		waitMetric(t, s, "errata_ingest_memory_awaiting_messages", 1)
		time.Sleep(1500 * time.Millisecond) // three graces
		call.send(msg, true)
		code, message, ok := call.statusWithin(30 * time.Second)
		if !ok || code != "0" {
			t.Fatalf("a message completed after the grace with nobody waiting: grpc-status %q %q (answered: %v), want 0", code, message, ok)
		}
		if got := metric(t, s, "errata_ingest_memory_preempted_total"); got != 0 {
			t.Errorf("errata_ingest_memory_preempted_total = %v, want 0", got)
		}
	}, apitest.WithGRPC)
}

// TestGateLinksEachStreamOfAConnection: on one connection, idle calls and
// exports of different sizes interleave; each export waits for its own
// message (a call linked to another stream would wait for that one's, and
// an idle one's never comes) and is served.
func TestGateLinksEachStreamOfAConnection(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		cc, err := grpc.NewClient(s.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+w.key), 20*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		errs := make(chan error, 24)
		for i := range 24 {
			if i%3 == 0 { // an idle call between exports
				if _, err := cc.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true, ServerStreams: true}, exportPath, grpc.ForceCodecV2(rawCodec{})); err != nil {
					t.Fatal(err)
				}
				continue
			}
			logs := plog.NewLogs()
			logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr(strings.Repeat("m", 1+i*997))
			body, err := plogotlp.NewExportRequestFromLogs(logs).MarshalProto()
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				var resp []byte
				errs <- cc.Invoke(ctx, exportPath, &body, &resp, grpc.ForceCodecV2(rawCodec{}))
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("export beside idle calls on one connection: %v", err)
			}
		}
	}, apitest.WithGRPC, func(c *config.Serve) { c.IngestRateLimit, c.IngestRateBurst = 1000, 1000 })
}

// TestRefusedCallsAreForgotten: the gate stops following a stream when its
// call is over, even one refused before it read anything whose client
// never ends or resets the stream: a connection's refused calls leave
// nothing behind.
func TestRefusedCallsAreForgotten(t *testing.T) {
	s := apitest.Run(t, store.SQLite, apitest.WithGRPC)
	c := openRaw(t, s.GRPCAddr, "svc_live_bogus", false)
	for i := uint32(0); i < 50; i++ {
		if i > 0 {
			c.stream(2*i+1, "svc_live_bogus", false)
		}
		if code, msg, ok := c.statusWithin(20 * time.Second); !ok || code != "16" {
			t.Fatalf("call %d with a bogus key: grpc-status %q %q (answered: %v), want 16 (UNAUTHENTICATED)", i, code, msg, ok)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); s.App.GRPC.FollowedStreams() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the gate still follows %d streams of refused calls", s.App.GRPC.FollowedStreams())
		}
	}
}
