package auth

import (
	"testing"
	"time"
)

// TestThrottledNotesCloseWaitsAndStartsNoMore: closing waits for the notes
// started and starts no more, so that a sign-in still answered after the
// HTTP server's shutdown timed out neither writes to the closed store nor
// adds to a WaitGroup being waited for.
func TestThrottledNotesCloseWaitsAndStartsNoMore(t *testing.T) {
	var n throttledNotes
	now := time.Now()
	if !n.start("a@example.com", now) {
		t.Fatal("the first refusal started no note")
	}
	closed := make(chan struct{})
	go func() { n.close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("close returned while a note was being written")
	case <-time.After(50 * time.Millisecond):
	}
	n.done("a@example.com", now, true)
	<-closed
	if n.start("b@example.com", now) {
		t.Fatal("a note started after close")
	}
}
