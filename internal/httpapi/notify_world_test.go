package httpapi_test

// Helpers of the channel, delivery, notification settings and digest tests.

import (
	"context"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/notify/digest"
)

// secretRe is a signing secret: whsec_ and 32 bytes in base64 (CONTRACT 5).
var secretRe = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`)

func channelsPath(projectID string) string { return "/v1/projects/" + projectID + "/channels" }

func emailChannel(memberID, name string) map[string]any {
	return map[string]any{"member_id": memberID, "name": name, "type": "email"}
}

func webhookChannel(memberID, name, url string) map[string]any {
	return map[string]any{"member_id": memberID, "name": name, "type": "webhook", "url": url}
}

// createChannel creates a channel and returns the creation answer.
func createChannel(t *testing.T, s *apitest.Server, token, projectID string, body map[string]any) map[string]any {
	t.Helper()
	return s.Do(apitest.Request{Method: "POST", Path: channelsPath(projectID), Token: token, Body: body}).Expect(t, http.StatusCreated, "").JSON(t)
}

// newHook creates a webhook channel to url and returns its id and secret.
func newHook(t *testing.T, s *apitest.Server, w apitest.World, projectID, name, url string) (string, string) {
	t.Helper()
	ch := createChannel(t, s, w.Admin.Token, projectID, webhookChannel(w.Admin.MemberID, name, url))
	return ch["id"].(string), ch["signing_secret"].(string)
}

// newMail creates an email channel of the admin and returns its id.
func newMail(t *testing.T, s *apitest.Server, w apitest.World, projectID, name string) string {
	t.Helper()
	return createChannel(t, s, w.Admin.Token, projectID, emailChannel(w.Admin.MemberID, name))["id"].(string)
}

func getChannel(t *testing.T, s *apitest.Server, token, channelID string) map[string]any {
	t.Helper()
	return getJSON(t, s, token, "/v1/channels/"+channelID)
}

// setPlan moves an organization to plan, as `errata org set-plan` does.
func setPlan(t *testing.T, s *apitest.Server, orgID, plan string) {
	t.Helper()
	if _, err := s.App.Orgs.SetPlan(context.Background(), orgID, plan); err != nil {
		t.Fatalf("set plan %s of %s: %v", plan, orgID, err)
	}
}

// deliverDue attempts every delivery due: API test servers run no engine.
func deliverDue(t *testing.T, s *apitest.Server) int {
	t.Helper()
	n, err := s.App.Notify.DeliverDue(context.Background())
	if err != nil {
		t.Fatalf("deliver due: %v", err)
	}
	return n
}

// deliveries lists a channel's deliveries (first page of 100), newest first.
func deliveries(t *testing.T, s *apitest.Server, token, channelID string) []map[string]any {
	t.Helper()
	return items(t, s, token, "/v1/channels/"+channelID+"/deliveries?limit=100")
}

// sendDigest sends a project's digest now as token and returns it.
func sendDigest(t *testing.T, s *apitest.Server, token, projectID string) map[string]any {
	t.Helper()
	return s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + projectID + "/digests", Token: token}).Expect(t, http.StatusCreated, "").JSON(t)
}

// sendDigestAgain sends the digest now again, as if the 10 minutes since
// the last one sent on demand had passed (CONTRACT 8): the server's clock
// cannot move on instead, webhook receivers check signatures' times
// against theirs.
func sendDigestAgain(t *testing.T, s *apitest.Server, token, projectID string) map[string]any {
	t.Helper()
	if err := s.App.DB.Write().ForgetQuota(context.Background(), digest.QuotaDigestNow, projectID); err != nil {
		t.Fatal(err)
	}
	return sendDigest(t, s, token, projectID)
}

// attemptsOf returns a delivery's attempts.
func attemptsOf(d map[string]any) []map[string]any {
	var out []map[string]any
	for _, a := range d["attempts"].([]any) {
		out = append(out, a.(map[string]any))
	}
	return out
}

// apiTime parses a timestamp of an answer.
func apiTime(t *testing.T, v any) time.Time {
	t.Helper()
	s, _ := v.(string)
	if !apiTimeRe.MatchString(s) {
		t.Fatalf("timestamp = %v, want YYYY-MM-DDTHH:MM:SS.mmmZ", v)
	}
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("timestamp %q: %v", s, err)
	}
	return tm
}

// near reports whether got is within tolerance of want.
func near(got, want time.Time, tolerance time.Duration) bool {
	d := got.Sub(want)
	return d <= tolerance && d >= -tolerance
}
