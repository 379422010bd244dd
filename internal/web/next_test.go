package web

import "testing"

func TestSafeNext(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", "/"},
		{"/", "/"},
		{"/tickets/tkt_1", "/tickets/tkt_1"},
		{"/projects/prj_1/tickets?status=open&severity=high", "/projects/prj_1/tickets?status=open&severity=high"},
		{"https://evil.example/", "/"},
		{"//evil.example/", "/"},
		{`/\evil.example`, "/"},
		{"/\r\nLocation: x", "/"},
		{"javascript:alert(1)", "/"},
		{"tickets", "/"},
	} {
		if got := safeNext(tc.in); got != tc.want {
			t.Errorf("safeNext(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
