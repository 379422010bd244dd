package web_test

import (
	"context"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/notify/digest"
)

var chanDeliveryRe = regexp.MustCompile(`action="/deliveries/(dlv_[0-9a-z]+)/redeliver"`)

// chanDeliverDue runs every due delivery: test servers run no engine.
func chanDeliverDue(t *testing.T, s *apitest.Server) {
	t.Helper()
	if _, err := s.App.Notify.DeliverDue(context.Background()); err != nil {
		t.Fatalf("deliver due: %v", err)
	}
}

// chanDeliveries lists a channel's deliveries through the API.
func chanDeliveries(t *testing.T, s *apitest.Server, token, channelID string) []map[string]any {
	t.Helper()
	r := s.Do(apitest.Request{Method: "GET", Path: "/v1/channels/" + channelID + "/deliveries", Token: token}).Expect(t, http.StatusOK, "").JSON(t)
	var out []map[string]any
	for _, d := range r["data"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

func TestChannelTestButton(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		live := chanReceiver(t, http.StatusOK)
		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		liveID, _ := chanNewHook(t, admin, w.ProjectID, "Live hook", live.URL)
		deadID, _ := chanNewHook(t, admin, w.ProjectID, "Dead hook", chanClosedURL(t))

		member := newBrowser(t, s)
		member.signIn(w.Member.Email)
		// Post/Redirect/Get: the outcome is read back from the delivery log,
		// so reloading the page sends no second test.
		tested := member.post("/channels/"+liveID+"/test", nil).expect(t, http.StatusSeeOther)
		loc := tested.Header.Get("Location")
		if !strings.HasPrefix(loc, "/channels/"+liveID+"?tested=tst_") {
			t.Fatalf("a test redirects to %q, want the channel page naming the test delivery", loc)
		}
		ok := member.get(loc).expect(t, http.StatusOK, "Test delivered",
			`<dt>HTTP status</dt><dd>200</dd>`, " ms</dd>", `<span class="badge status-delivered">delivered</span> test`)
		testID := loc[strings.Index(loc, "tst_"):]
		if other := member.get("/channels/" + deadID + "?tested=" + testID); strings.Contains(other.Body, "test-outcome") {
			t.Errorf("another channel's page shows this channel's test outcome")
		}
		if live.hits.Load() != 1 {
			t.Errorf("the receiver got %d requests, want 1", live.hits.Load())
		}
		if !strings.Contains(ok.Body, "tst_") {
			t.Errorf("the outcome does not name the test delivery")
		}
		member.post("/channels/"+liveID+"/test", nil).expect(t, http.StatusTooManyRequests, `role="alert">This channel was tested less than a minute ago`, "Try again in ")
		if live.hits.Load() != 1 {
			t.Errorf("a rate-limited test reached the receiver")
		}

		failedAt := member.post("/channels/"+deadID+"/test", nil).expect(t, http.StatusSeeOther).Header.Get("Location")
		failed := member.get(failedAt).expect(t, http.StatusOK, "Test failed", `<dt>HTTP status</dt><dd>none (no answer)</dd>`, "<dt>Error</dt>")
		if !strings.Contains(failed.Body, "refused") && !strings.Contains(failed.Body, "network") {
			t.Errorf("a failed test does not say why: %s", failed.Body)
		}
		if api := chanAPI(t, s, w.Admin.Token, deadID); api["consecutive_failures"] != float64(1) {
			t.Errorf("after a failed test the API shows %v consecutive failures, want 1", api["consecutive_failures"])
		}
		// An email's outcome has no HTTP status to show.
		mailID := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/channels", Token: w.Admin.Token,
			Body: map[string]any{"member_id": w.Admin.MemberID, "name": "Mail", "type": "email"}}).Expect(t, http.StatusCreated, "").Str(t, "id")
		mailAt := admin.post("/channels/"+mailID+"/test", nil).expect(t, http.StatusSeeOther).Header.Get("Location")
		if p := admin.get(mailAt).expect(t, http.StatusOK, "Test "); strings.Contains(p.Body, "HTTP status</dt>") {
			t.Errorf("an email channel's test outcome shows an HTTP status")
		}
	}, chanAllowPrivate)
}

func TestChannelRotateEnableDeleteAndRedeliver(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc := chanReceiver(t, http.StatusOK)
		b := newBrowser(t, s)
		b.signIn(w.Admin.Email)
		chID, first := chanNewHook(t, b, w.ProjectID, "Hook", rc.URL)
		page := "/channels/" + chID

		rotated := b.post(page+"/rotate-secret", nil).expect(t, http.StatusOK, "New signing secret", `data-copy="#signing-secret"`,
			"you will not see it again", "For the next 24 hours both")
		second := chanShownSecret(rotated.Body)
		if !chanSecretFormat.MatchString(second) || second == first {
			t.Fatalf("rotation shows no new secret (first %s): %s", first, rotated.Body)
		}
		if api := chanAPI(t, s, w.Admin.Token, chID); api["previous_secret_until"] == nil {
			t.Errorf("API shows no previous secret after the rotation: %v", api)
		}
		if again := b.get(page).expect(t, http.StatusOK, "previous secret signs until"); strings.Contains(html.UnescapeString(again.Body), second) || strings.Contains(again.Body, "whsec_") {
			t.Errorf("the rotated secret is shown again")
		}

		b.post(page+"/disable", nil).expect(t, http.StatusSeeOther)
		if api := chanAPI(t, s, w.Admin.Token, chID); api["enabled"] != false {
			t.Fatalf("after Disable the API shows enabled = %v", api["enabled"])
		}
		b.get(page+"?updated=1").expect(t, http.StatusOK, "Channel updated.", `action="`+page+`/enable"`, `<span class="badge state-off">disabled</span>`)
		b.post(page+"/enable", nil).expect(t, http.StatusSeeOther)
		if api := chanAPI(t, s, w.Admin.Token, chID); api["enabled"] != true {
			t.Fatalf("after Enable the API shows enabled = %v", api["enabled"])
		}

		// A digest queues a delivery; redelivering it while pending is a 409
		// message, after its attempt it starts a second series.
		b.post("/projects/"+w.ProjectID+"/digests", nil).expect(t, http.StatusSeeOther)
		pending := b.get(page).expect(t, http.StatusOK, `<span class="badge status-pending">pending</span> digest`, "No attempt yet.")
		if chanDeliveryRe.MatchString(pending.Body) {
			t.Errorf("a pending delivery is offered Redeliver")
		}
		ds := chanDeliveries(t, s, w.Admin.Token, chID)
		if len(ds) != 1 || ds[0]["event"] != "digest" {
			t.Fatalf("API deliveries = %v, want one digest", ds)
		}
		dlv := ds[0]["id"].(string)
		b.post("/deliveries/"+dlv+"/redeliver", nil).expect(t, http.StatusConflict, `role="alert">delivery `+dlv+` is still being attempted`)

		chanDeliverDue(t, s)
		done := b.get(page).expect(t, http.StatusOK, `<span class="badge status-delivered">delivered</span> digest`, "<td>delivered</td>")
		if got := chanDeliveryRe.FindStringSubmatch(done.Body); got == nil || got[1] != dlv {
			t.Fatalf("the delivered digest has no Redeliver button: %s", done.Body)
		}
		member := newBrowser(t, s)
		member.signIn(w.Member.Email)
		member.post("/deliveries/"+dlv+"/redeliver", nil).expect(t, http.StatusForbidden, "forbidden")
		if strings.Contains(member.get(page).Body, "/redeliver") {
			t.Errorf("a member is offered Redeliver")
		}

		res := b.post("/deliveries/"+dlv+"/redeliver", nil).expect(t, http.StatusSeeOther)
		if loc := res.Header.Get("Location"); loc != page+"?redelivered="+dlv {
			t.Errorf("redeliver goes to %q", loc)
		}
		b.get(page+"?redelivered="+dlv).expect(t, http.StatusOK, "Delivery "+dlv+" is queued again", `<span class="badge status-pending">pending</span> digest`)
		chanDeliverDue(t, s)
		if ds := chanDeliveries(t, s, w.Admin.Token, chID); ds[0]["status"] != "delivered" || len(ds[0]["attempts"].([]any)) != 2 {
			t.Errorf("after the redelivery the API shows %v", ds[0])
		}
		b.get(page).expect(t, http.StatusOK, "(series 2)")
		if rc.hits.Load() != 2 {
			t.Errorf("the receiver got %d digests, want 2", rc.hits.Load())
		}

		del := b.post(page+"/delete", nil).expect(t, http.StatusSeeOther)
		if loc := del.Header.Get("Location"); loc != "/projects/"+w.ProjectID+"/channels?deleted=1" {
			t.Errorf("delete goes to %q", loc)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/channels/" + chID, Token: w.Admin.Token}).Expect(t, http.StatusNotFound, "not-found")
		b.get("/projects/"+w.ProjectID+"/channels?deleted=1").expect(t, http.StatusOK, "Channel deleted.", "No channels yet")
	}, chanAllowPrivate)
}

func TestChannelDeliveryLogPages(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		created := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/channels", Token: w.Admin.Token,
			Body: map[string]any{"member_id": w.Admin.MemberID, "name": "Mail", "type": "email"}}).Expect(t, http.StatusCreated, "")
		chID := created.Str(t, "id")
		for range 21 { // each digest queues one delivery to the channel; one each 10 minutes
			s.Clock.Advance(digest.DigestNowLimit.Span)
			s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/digests", Token: w.Admin.Token}).Expect(t, http.StatusCreated, "")
		}
		first := b.get("/channels/"+chID).expect(t, http.StatusOK, `rel="next"`, "Older deliveries")
		if n := strings.Count(first.Body, `class="delivery"`); n != 20 {
			t.Fatalf("first page has %d deliveries, want 20", n)
		}
		newest := chanDeliveries(t, s, w.Admin.Token, chID)[0]["id"].(string)
		if i, j := strings.Index(first.Body, newest), strings.Index(first.Body, `class="delivery"`); i < j {
			t.Errorf("the newest delivery %s is not listed first", newest)
		}
		m := regexp.MustCompile(`rel="next" href="([^"]+)"`).FindStringSubmatch(first.Body)
		second := b.get(html.UnescapeString(m[1])).expect(t, http.StatusOK)
		if n := strings.Count(second.Body, `class="delivery"`); n != 1 || strings.Contains(second.Body, `rel="next"`) {
			t.Errorf("second page has %d deliveries (want 1) or a next link", n)
		}
		b.get("/channels/"+chID+"?before=bogus").expect(t, http.StatusUnprocessableEntity, "validation-failed")
	})
}
