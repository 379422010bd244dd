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
