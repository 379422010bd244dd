package lifecycle_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/errata-dev/errata/internal/lifecycle"
)

// worker is a service whose goroutine runs until Stop.
type worker struct {
	lifecycle.Base
	name   string
	starts atomic.Int32
	log    *[]string
	fail   error
}

func (w *worker) Start(ctx context.Context) error {
	if w.fail != nil {
		return w.fail
	}
	ctx, ok, stopped := w.StartInit(ctx)
	if !ok {
		return nil
	}
	w.starts.Add(1)
	*w.log = append(*w.log, "start "+w.name)
	go func() {
		defer stopped()
		<-ctx.Done()
		*w.log = append(*w.log, "stop "+w.name)
	}()
	return nil
}

// TestStartAndStopAreIdempotent: a second Start of a running service starts
// nothing; Stop waits for the goroutine, and a second Stop (or a Stop of a
// service never started) does nothing; a stopped service starts again.
func TestStartAndStopAreIdempotent(t *testing.T) {
	var log []string
	w := &worker{name: "w", log: &log}
	w.Stop() // never started
	select {
	case <-w.Stopped():
	default:
		t.Fatal("Stopped of a service never started is open, want closed")
	}
	for range 2 {
		if err := w.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.starts.Load(); got != 1 {
		t.Fatalf("starts = %d after two Starts, want 1", got)
	}
	select {
	case <-w.Stopped():
		t.Fatal("Stopped is closed while the service runs")
	default:
	}
	w.Stop()
	w.Stop()
	if want := []string{"start w", "stop w"}; !slices.Equal(log, want) {
		t.Fatalf("log = %q, want %q (Stop returns once the goroutine ended)", log, want)
	}
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.Stop()
	if got := w.starts.Load(); got != 2 {
		t.Fatalf("starts = %d after a restart, want 2", got)
	}
}

// TestStartContextDoesNotStopTheService: a service runs until Stop, not
// until the context it was started with ends.
func TestStartContextDoesNotStopTheService(t *testing.T) {
	var log []string
	w := &worker{name: "w", log: &log}
	ctx, cancel := context.WithCancel(context.Background())
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-w.Stopped():
		t.Fatal("the service stopped when Start's ctx ended")
	default:
	}
	w.Stop()
	<-w.Stopped()
}

// TestGroupStopsInReverse: a group starts in order and stops last first;
// when a service fails to start, those started are stopped and the error
// names it.
func TestGroupStopsInReverse(t *testing.T) {
	var log []string
	a, b := &worker{name: "a", log: &log}, &worker{name: "b", log: &log}
	var g lifecycle.Group
	if err := g.Start(context.Background(), lifecycle.Named{Name: "a", Service: a}, lifecycle.Named{Name: "b", Service: b}); err != nil {
		t.Fatal(err)
	}
	g.Stop()
	if want := []string{"start a", "start b", "stop b", "stop a"}; !slices.Equal(log, want) {
		t.Fatalf("log = %q, want %q", log, want)
	}

	log = nil
	boom := errors.New("boom")
	c := &worker{name: "c", log: &log, fail: boom}
	err := g.Start(context.Background(), lifecycle.Named{Name: "a", Service: a}, lifecycle.Named{Name: "c", Service: c})
	if !errors.Is(err, boom) || err.Error() != "start c: boom" {
		t.Fatalf("Start = %v, want start c: boom", err)
	}
	if want := []string{"start a", "stop a"}; !slices.Equal(log, want) {
		t.Fatalf("log = %q, want %q", log, want)
	}
}
