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

// TestShare: n processes enforcing a 1/n share each enforce the limit
// together.
func TestShare(t *testing.T) {
	now := time.Unix(1000, 0)
	l := New(10, 20).WithClock(func() time.Time { return now })
	l.Allow("k") // a bucket that exists before the share changes
	l.Share(2)
	taken := 0
	for l.Allow("k").Allowed {
		taken++
	}
	if taken != 10 { // the existing bucket: 19 tokens left, capped at the new burst of 10
		t.Fatalf("took %d from an existing bucket after Share(2), want 10", taken)
	}
	if r := l.Allow("new"); r.Limit != 10 {
		t.Fatalf("a new bucket's limit = %d, want the burst's share 10", r.Limit)
	}
	now = now.Add(time.Second)
	if r := l.Allow("k"); !r.Allowed || r.Remaining != 4 {
		t.Fatalf("after a second at half the rate: %+v, want 5 tokens refilled, one taken", r)
	}
	l.Share(1)
	if r := l.Allow("fresh"); r.Limit != 20 {
		t.Fatalf("limit after Share(1) = %d, want 20", r.Limit)
	}
}

// TestAllowNOverTheBurst: a request of more tokens than the burst passes
// on a full bucket only, and leaves the bucket in debt for the rest, so
// that the whole cost is paid before the next request passes.
func TestAllowNOverTheBurst(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := New(1, 3).WithClock(func() time.Time { return now })
	if r := l.AllowN("k", 6); !r.Allowed || r.Remaining != 0 || r.RetryAfter != 0 || r.Reset != 6*time.Second {
		t.Fatalf("6 tokens on a full bucket of 3: %+v, want allowed, 0 left, full again in 6 s", r)
	}
	now = now.Add(2 * time.Second) // 3 owed, 2 repaid
	if r := l.Allow("k"); r.Allowed || r.RetryAfter != 2*time.Second {
		t.Fatalf("1 token 2 s later: %+v, want refused until the debt and a token are paid (2 s)", r)
	}
	if r := l.AllowN("k", 5); r.Allowed || r.RetryAfter != 4*time.Second {
		t.Fatalf("5 tokens 2 s later: %+v, want refused until the bucket is full (4 s)", r)
	}
	now = now.Add(4 * time.Second)
	if r := l.AllowN("k", 4); !r.Allowed {
		t.Fatalf("4 tokens on a full bucket again: %+v, want allowed", r)
	}
	if r := l.AllowN("k", 3); r.Allowed {
		t.Fatalf("3 tokens right after 4 of a bucket of 3: %+v, want refused", r)
	}
}
