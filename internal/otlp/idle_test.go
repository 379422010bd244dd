package otlp_test

import (
	"bufio"
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
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
// never their message; each call's outcome arrives on the channel once
// the server ends it.
func idleCalls(t *testing.T, s *apitest.Server, key string, n int) <-chan error {
	t.Helper()
	cc, err := grpc.NewClient(s.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+key))
	t.Cleanup(func() { cancel(); _ = cc.Close() })
	ended := make(chan error, n)
	for range n {
		st, err := cc.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true, ServerStreams: true},
			"/opentelemetry.proto.collector.logs.v1.LogsService/Export", grpc.ForceCodecV2(rawCodec{}))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			var resp []byte
			ended <- st.RecvMsg(&resp)
		}()
	}
	return ended
}

// TestIdleCallsDoNotLockTheMemoryBudget: Export calls that are admitted
// and never send their message hold room for the largest one; they cannot
// keep it from a request that waits for it (CONTRACT 8: a request waits up
// to 1 s for room). Another organization's export is served while the
// idle calls fill the whole budget, and the idle calls' own organization's
// export while they fill its half; an idle call whose room is taken back
// is refused UNAVAILABLE with a RetryInfo, which OTLP clients retry.
func TestIdleCallsDoNotLockTheMemoryBudget(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		a := newWorld(t, s)
		b, c := a.otherOrg(t, s, "B"), a.otherOrg(t, s, "C")
		// Each idle call reserves 40 MiB: two fill an organization's half
		// of the 161 MiB budget, four the whole of it (less what the
		// open connections hold).
		idle := idleCalls(t, s, a.key, 2)
		idleB := idleCalls(t, s, b.key, 2)
		for deadline := time.Now().Add(30 * time.Second); metric(t, s, "errata_ingest_memory_awaiting_messages") < 4; {
			if time.Now().After(deadline) {
				t.Fatalf("%v calls awaiting their message, want 4", metric(t, s, "errata_ingest_memory_awaiting_messages"))
			}
			time.Sleep(20 * time.Millisecond)
		}
		if _, err := rawExport(t, s, c.key); err != nil {
			t.Fatalf("export of another organization with the budget held by idle calls: %v", err)
		}
		if _, err := rawExport(t, s, a.key); err != nil {
			t.Fatalf("export of the idle calls' organization with its half held by them: %v", err)
		}
		if got := metric(t, s, "errata_ingest_memory_preempted_total"); got < 1 {
			t.Errorf("errata_ingest_memory_preempted_total = %v, want at least 1", got)
		}
		select {
		case err := <-idle:
			checkPreempted(t, err)
		case err := <-idleB:
			checkPreempted(t, err)
		case <-time.After(30 * time.Second):
			t.Fatal("no idle call was ended")
		}
	}, apitest.WithGRPC, func(c *config.Serve) { c.IngestMemory = 161 << 20 })
}

// TestSlowMessageKeepsItsRoomWithoutWaiters: room is taken back only for
// a request that waits for it; a message that arrives well after the
// 500 ms grace, with nobody waiting, is served.
func TestSlowMessageKeepsItsRoomWithoutWaiters(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		cc, err := grpc.NewClient(s.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+w.key), 30*time.Second)
		defer cancel()
		st, err := cc.NewStream(ctx, &grpc.StreamDesc{ClientStreams: true, ServerStreams: true},
			"/opentelemetry.proto.collector.logs.v1.LogsService/Export", grpc.ForceCodecV2(rawCodec{}))
		if err != nil {
			t.Fatal(err)
		}
		for metric(t, s, "errata_ingest_memory_awaiting_messages") < 1 {
			if ctx.Err() != nil {
				t.Fatal("the call was never admitted")
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(1500 * time.Millisecond) // three graces
		msg := probeMessage(t)
		if err := st.SendMsg(&msg); err != nil {
			t.Fatalf("send after the grace: %v", err)
		}
		if err := st.CloseSend(); err != nil {
			t.Fatal(err)
		}
		var resp []byte
		if err := st.RecvMsg(&resp); err != nil {
			t.Fatalf("a message sent after the grace with nobody waiting: %v, want it served", err)
		}
		if got := metric(t, s, "errata_ingest_memory_preempted_total"); got != 0 {
			t.Errorf("errata_ingest_memory_preempted_total = %v, want 0", got)
		}
	}, apitest.WithGRPC)
}

func checkPreempted(t *testing.T, err error) {
	t.Helper()
	if status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "had not arrived") {
		t.Fatalf("idle call ended with %v, want UNAVAILABLE naming the message that had not arrived", err)
	}
	checkRetryInfo(t, err)
}
