package sdktest

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	gosentry "github.com/getsentry/sentry-go"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
)

// errDeclined is the root of the wrapped error chain the Go SDK reports.
var errDeclined = errors.New("card declined")

func chargeCard(amount int) error {
	return fmt.Errorf("charge %d cents: %w", amount, errDeclined)
}

func placeOrder(id int) error {
	if err := chargeCard(1999); err != nil {
		return fmt.Errorf("place order %d: %w", id, err)
	}
	return nil
}

// handleCheckout reports its error as a Go service would: to Sentry, and,
// for comparison, as the text a plain logger would write with
// runtime/debug.Stack().
func handleCheckout(hub *gosentry.Hub) (plainStack string) {
	if err := placeOrder(42); err != nil {
		hub.CaptureException(err)
		return string(debug.Stack())
	}
	return ""
}

func lookUp(items []int, i int) int { return items[i] }

func handlePanic(hub *gosentry.Hub) {
	defer func() {
		if r := recover(); r != nil {
			hub.RecoverWithContext(context.Background(), r)
		}
	}()
	lookUp([]int{1, 2, 3}, 5)
}

// reportFromGo sends through the real sentry-go SDK to dsn what a Go
// service reports: an exception with a wrapped chain, a message with an
// attached stack, a recovered panic and two log records, flushing after
// each so that they arrive in that order. It returns the exception's stack
// as runtime/debug.Stack() prints it where it was captured.
func reportFromGo(t *testing.T, dsn string) (plain string) {
	t.Helper()
	client, err := gosentry.NewClient(gosentry.ClientOptions{
		Dsn: dsn, AttachStacktrace: true, Release: "shop@1.4.2", Environment: "staging", ServerName: "web-1",
	})
	if err != nil {
		t.Fatal(err)
	}
	hub := gosentry.NewHub(client, gosentry.NewScope())
	hub.Scope().SetTag("service", "checkout")
	hub.Scope().SetTag("region", "eu-west")
	hub.Scope().SetUser(gosentry.User{ID: "u-42"})

	plain = handleCheckout(hub)
	if !client.Flush(10 * time.Second) {
		t.Fatal("the exception was not flushed")
	}
	hub.CaptureMessage("cache miss for user 7")
	client.Flush(10 * time.Second)
	handlePanic(hub)
	client.Flush(10 * time.Second)
	ctx := gosentry.SetHubOnContext(context.Background(), hub)
	logger := gosentry.NewLogger(ctx)
	logger.Info().Emitf("user %s signed in", "u-42")
	logger.Warn().String("queue", "emails").Int("depth", 1200).Emit("queue is backing up")
	if !client.Flush(10 * time.Second) {
		t.Fatal("the logs were not flushed")
	}
	return plain
}

// TestGoSDKToErrata points the real sentry-go SDK at a real Errata server
// with the DSN of a key made through the API: the exception, the panic and
// the warning log become error groups with tickets, the message and the
// info log are counted in the INFO summaries.
func TestGoSDKToErrata(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		e := startErrata(t, s)
		reportFromGo(t, e.dsn)
		e.outcome(t).check(t, []wantGroup{
			{title: "card declined", service: "checkout", level: "error", severity: "high", stack: true},
			{title: "index out of range", service: "checkout", level: "fatal", severity: "critical", stack: true},
			{title: "queue is backing up", service: "shop", level: "warn", severity: "medium"},
		}, 2, 0)
	})
}

// TestGoSDK sends an exception with a wrapped chain, a message with an
// attached stack, a recovered panic and logs through the real sentry-go SDK
// to the capture server, and checks what internal/sentry makes of them.
func TestGoSDK(t *testing.T) {
	c := startCapture(t)
	plain := reportFromGo(t, c.DSN())

	var events []*request
	for _, r := range c.find("event") {
		events = append(events, r)
		if r.Auth == "" || !strings.Contains(r.Auth, "sentry_key="+testKey) {
			t.Errorf("X-Sentry-Auth = %q, want it to carry the key", r.Auth)
		}
	}
	if len(events) != 3 {
		t.Fatalf("got %d event envelopes, want 3", len(events))
	}

	exc := one(t, "exception", events[:1])
	store(t, "go_exception", exc)
	ev := exc.Result.Events[0]
	want := ingest.Event{Service: "checkout", Environment: "staging", Release: "shop@1.4.2", Level: ingest.Error,
		Message: "*fmt.wrapError: place order 42: charge 1999 cents: card declined"}
	checkFields(t, "exception", ev, want)
	checkStack(t, "exception", ev, "go", []string{"handleCheckout", "TestGoSDK"})
	if exc.Result.EventID == "" {
		t.Error("exception: no event id to answer with")
	}
	// The same error logged as text with debug.Stack() joins the same group.
	fromSentry := grouping.Fingerprint(grouping.Input{Message: ev.Message, StackTrace: ev.StackTrace})
	fromText := grouping.Fingerprint(grouping.Input{Message: ev.Message, StackTrace: plain})
	if fromSentry.Fingerprint != fromText.Fingerprint {
		t.Errorf("exception: fingerprint of the Sentry event %v differs from the plain text's %v", fromSentry.Parts, fromText.Parts)
	}

	msg := one(t, "message", events[1:2])
	store(t, "go_message", msg)
	checkFields(t, "message", msg.Result.Events[0], ingest.Event{Service: "checkout", Environment: "staging",
		Release: "shop@1.4.2", Level: ingest.Info, Message: "cache miss for user 7"})
	checkStack(t, "message", msg.Result.Events[0], "go", []string{"TestGoSDK"})

	pan := one(t, "panic", events[2:3])
	store(t, "go_panic", pan)
	checkFields(t, "panic", pan.Result.Events[0], ingest.Event{Service: "checkout", Environment: "staging",
		Release: "shop@1.4.2", Level: ingest.Fatal, Message: "runtime.boundsError: runtime error: index out of range [5] with length 3"})
	st := checkStack(t, "panic", pan.Result.Events[0], "go", []string{"handlePanic", "TestGoSDK"})
	if len(st.Types) != 1 || st.Types[0] != "runtime.Error(index out of range)" {
		t.Errorf("panic: types %q, want the runtime error the panic line names", st.Types)
	}

	got := checkLogs(t, c, "go_logs", "shop@1.4.2", "u-42")
	checkAttr(t, "log 1", got[1], "depth", `1200`)
}
