package ratelimit

import (
	"net/http"
	"testing"
	"time"
)

func TestBucketEmptiesAndRefills(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := New(1, 3).WithClock(func() time.Time { return now })
	for i, want := range []int{2, 1, 0} {
		r := l.Allow("k")
		if !r.Allowed || r.Remaining != want {
			t.Fatalf("call %d: got allowed=%v remaining=%d, want true %d", i, r.Allowed, r.Remaining, want)
		}
	}
	r := l.Allow("k")
	if r.Allowed || r.RetryAfter != time.Second || r.Reset != 3*time.Second {
		t.Fatalf("fourth call: got %+v, want refused, retry after 1s, reset 3s", r)
	}
	h := http.Header{}
	r.SetHeaders(h)
	if h.Get("RateLimit-Limit") != "3" || h.Get("RateLimit-Remaining") != "0" || h.Get("RateLimit-Reset") != "3" || h.Get("Retry-After") != "1" {
		t.Fatalf("headers = %v", h)
	}
	if other := l.Allow("other"); !other.Allowed {
		t.Fatal("another key shares the bucket")
	}
	now = now.Add(time.Second)
	if r := l.Allow("k"); !r.Allowed {
		t.Fatalf("after 1s refill: %+v, want allowed", r)
	}
}

func TestPeekTakesNothing(t *testing.T) {
	l := New(1, 1)
	for i := 0; i < 3; i++ {
		if r := l.Peek("k"); !r.Allowed || r.Remaining != 1 {
			t.Fatalf("Peek %d = %+v, want allowed with 1 left", i, r)
		}
	}
}
