package sentryapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestResolvedInACreatedRelease: a release made with sentry-cli (releases
// new) before any event names it counts as seen when it was made, as
// Sentry orders releases: a group resolved in it regresses on an event of a
// release made after it, and not on one of a release seen before.
func TestResolvedInACreatedRelease(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		tok := token(t, s, w.Member.Token, "project:releases")
		_, key, _ := s.CreateKeyDSN(t, w.Owner.Token, w.ProjectID)
		num, _ := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: w.Owner.Token}).JSON(t)["number"].(float64)
		send := func(release string) {
			t.Helper()
			body := fmt.Sprintf(`{"message":"cart total is negative","level":"error","release":%q}`, release)
			s.Do(apitest.Request{Method: "POST", Path: "/api/" + strconv.Itoa(int(num)) + "/store/?sentry_key=" + key, Body: []byte(body)}).Expect(t, http.StatusOK, "")
			if err := s.App.Processor.Drain(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		create := func(version string) {
			t.Helper()
			time.Sleep(5 * time.Millisecond) // creation times a few milliseconds apart
			s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/releases/", Token: tok,
				Body: map[string]any{"version": version, "projects": []string{"web"}}}).Expect(t, http.StatusCreated, "")
		}
		status := func(gid string) string {
			t.Helper()
			return s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/" + gid, Token: w.Owner.Token}).Expect(t, http.StatusOK, "").Str(t, "status")
		}
		send("build-a")
		groups := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups", Token: w.Owner.Token}).JSON(t)["data"].([]any)
		if len(groups) != 1 {
			t.Fatalf("groups = %v, want one", groups)
		}
		gid := groups[0].(map[string]any)["id"].(string)
		create("build-b")
		s.Do(apitest.Request{Method: "PATCH", Path: "/v1/groups/" + gid, Token: w.Member.Token,
			Body: map[string]any{"status": "resolved", "resolved_in": "build-b"}}).Expect(t, http.StatusOK, "")
		send("build-a") // seen before build-b was made
		if got := status(gid); got != "resolved" {
			t.Fatalf("after an event of an older release: %s, want resolved", got)
		}
		create("build-c")
		send("build-c")
		if got := status(gid); got != "unresolved" {
			t.Errorf("after an event of a release made after build-b: %s, want unresolved (a regression)", got)
		}
	})
}
