package id

import (
	"sort"
	"strings"
	"testing"
	"time"
)

func TestNewIsPrefixedAndValid(t *testing.T) {
	got := New(Org)
	if !strings.HasPrefix(got, "org_") || len(got) != 30 {
		t.Fatalf("New(Org) = %q, want org_ and 26 characters", got)
	}
	if !Valid(Org, got) {
		t.Fatalf("Valid(Org, %q) = false, want true", got)
	}
	if Valid(Project, got) {
		t.Fatalf("Valid(Project, %q) = true, want false", got)
	}
}

func TestNewIsOrdered(t *testing.T) {
	ids := make([]string, 5000)
	for i := range ids {
		ids[i] = New(Ticket)
	}
	if !sort.StringsAreSorted(ids) {
		t.Fatal("identifiers made in sequence are not in sorted order")
	}
	earlier := NewAt(Ticket, time.Now().Add(-time.Hour))
	if earlier >= ids[0] {
		t.Fatalf("an identifier an hour older (%s) sorts after a new one (%s)", earlier, ids[0])
	}
}

// TestNewAtThePastKeepsNewOrdered: identifiers made for an earlier time in
// between do not break the order of those made now.
func TestNewAtThePastKeepsNewOrdered(t *testing.T) {
	ids := make([]string, 5000)
	for i := range ids {
		ids[i] = New(Ticket)
		NewAt(InfoSummary, time.Now().Truncate(time.Hour))
	}
	if !sort.StringsAreSorted(ids) {
		t.Fatal("identifiers made in sequence are not in sorted order")
	}
}

func TestValidRejects(t *testing.T) {
	for _, s := range []string{"", "org_", "org_0123", "org_" + strings.Repeat("u", 26), "org_" + strings.Repeat("z", 26), "prj_" + strings.Repeat("0", 26)} {
		if Valid(Org, s) {
			t.Errorf("Valid(Org, %q) = true, want false", s)
		}
	}
}

// TestStoredEventIDs: a stored event's id reads like every other (evt_ and
// its number), and the bare numbers of before are still read.
func TestStoredEventIDs(t *testing.T) {
	if got := FormatEvent(117); got != "evt_117" {
		t.Errorf("FormatEvent(117) = %q", got)
	}
	for in, want := range map[string]int64{"evt_117": 117, "117": 117, "evt_0": 0, "0": 0, "evt_": 0, "evt_-3": 0, "evt_+3": 0, "+3": 0, "evt_x": 0, "grp_117": 0, "": 0, "evt_0117": 0, "0117": 0} {
		n, ok := ParseEvent(in)
		if n != want || ok != (want != 0) {
			t.Errorf("ParseEvent(%q) = %d, %v; want %d", in, n, ok, want)
		}
	}
}
