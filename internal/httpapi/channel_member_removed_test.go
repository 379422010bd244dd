package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestChannelToARemovedMemberWaits: an email channel to a member's address
// is confirmed at once because the address is a member's; once that member
// is removed it no longer is, and the channel waits for a confirmation like
// one to any outside address (CONTRACT 8): pending, no delivery. The
// removed member's own channels stop; a channel to another member's
// address stays confirmed.
func TestChannelToARemovedMemberWaits(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		email := func(to, name string) string {
			ch := createChannel(t, s, w.Admin.Token, w.ProjectID, map[string]any{"member_id": w.Admin.MemberID, "name": name, "type": "email", "email": to})
			if ch["confirmation"] != "confirmed" {
				t.Fatalf("channel to the member address %s = %v, want confirmed", to, ch)
			}
			return ch["id"].(string)
		}
		toMember, toViewer := email(w.Member.Email, "to the member"), email(w.Viewer.Email, "to the viewer")

		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/members/" + w.Member.MemberID, Token: w.Owner.Token}).Expect(t, http.StatusNoContent, "")
		if got := getChannel(t, s, w.Admin.Token, toMember); got["confirmation"] != "pending" {
			t.Errorf("channel to the removed member's address = %v, want pending", got)
		}
		if got := getChannel(t, s, w.Admin.Token, toViewer); got["confirmation"] != "confirmed" {
			t.Errorf("channel to a member still there = %v, want confirmed", got)
		}
		feed(t, s, w.Key, batchOf("api", ev("after the removal", "fatal")))
		if d := deliveries(t, s, w.Admin.Token, toMember); len(d) != 0 {
			t.Errorf("deliveries to the removed member's address = %v, want none", ids(d))
		}
		if d := deliveries(t, s, w.Admin.Token, toViewer); len(d) != 1 {
			t.Errorf("deliveries to the viewer's address = %d, want 1", len(d))
		}
	})
}
