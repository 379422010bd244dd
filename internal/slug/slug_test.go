package slug

import "testing"

func TestMake(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"Acme", "acme"},
		{"  Acme Corp.  ", "acme-corp"},
		{"Café Crème 2", "cafe-creme-2"},
		{"web--frontend", "web-frontend"},
		{"日本", "project"},
		{"!!!", "project"},
		{"a_b", "a-b"},
		{"abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghij-xyz", "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdef"},
	} {
		got := Make(c.name, "project")
		if got != c.want || !Valid(got) {
			t.Errorf("Make(%q) = %q, want %q (valid)", c.name, got, c.want)
		}
	}
}

func TestValid(t *testing.T) {
	for s, want := range map[string]bool{"acme": true, "a-1": true, "": false, "Acme": false, "a_b": false, "a b": false, "é": false,
		"abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghij": false} {
		if Valid(s) != want {
			t.Errorf("Valid(%q) = %v, want %v", s, !want, want)
		}
	}
	if s := OfID("org_01abc"); s != "org-01abc" || !Valid(s) {
		t.Errorf("OfID = %q", s)
	}
}

func TestFree(t *testing.T) {
	if got := Free("web", []string{"web", "web-2", "webx"}); got != "web-3" {
		t.Errorf("Free = %q, want web-3", got)
	}
	if got := Free("api", []string{"web"}); got != "api" {
		t.Errorf("Free = %q, want api", got)
	}
	long := "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdef"
	if got := Free(long, []string{long}); len(got) > MaxLen || got != "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcd-2" {
		t.Errorf("Free = %q, want a shortened base with -2", got)
	}
}
