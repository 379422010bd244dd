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
