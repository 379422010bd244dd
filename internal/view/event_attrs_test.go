package view

import "testing"

// TestFlatKeyWins: an event with both "user.id" and {"user": {"id"}} reads
// as the flat key's value, every time (map order is random).
func TestFlatKeyWins(t *testing.T) {
	for range 50 {
		got := attributeStrings(`{"user":{"id":"nested","name":"N"},"user.id":"flat","n":7}`)
		if got["user.id"] != "flat" || got["user.name"] != "N" || got["n"] != "7" {
			t.Fatalf("attributeStrings = %v", got)
		}
	}
}

// TestEventUserReadsATag: a Sentry tag user.id names the event's user, as
// it counts in the group's users and facets; the attribute wins over it.
func TestEventUserReadsATag(t *testing.T) {
	for raw, want := range map[string]string{
		`{"tags.user.id":"55","region":"ap"}`:         "55",
		`{"tags":{"user":{"id":56}}}`:                 "56",
		`{"user":{"id":"7"},"tags.user.id":"55"}`:     "7",
		`{"user.id":"8","tags":{"user":{"id":"55"}}}`: "8",
	} {
		if u := eventUser(attributeStrings(raw)); u == nil || u.ID != want {
			t.Errorf("eventUser(%s) = %v, want %s", raw, u, want)
		}
	}
	if u := eventUser(attributeStrings(`{"region":"ap"}`)); u != nil {
		t.Errorf("eventUser without a user = %v, want nil", u)
	}
}
