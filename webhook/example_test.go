package webhook_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/errata-dev/errata/webhook"
)

// The test vector of docs/webhooks.md.
const (
	secret = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	body   = `{"type":"test","delivery_id":"tst_01jd8x3v7c0000000000000000","organization_id":"org_01jd8x3v7c0000000000000001",` +
		`"project":{"id":"prj_01jd8x3v7c0000000000000002","name":"checkout"},"channel":{"id":"chn_01jd8x3v7c0000000000000003","name":"ops"}}`
	header = "t=1700000000,v1=fe019b045857744473dcf2ed9134e189ee14d6746b5b1729133f9c1f433e5fa2"
)

func ExampleVerify() {
	now := time.Unix(1700000042, 0) // the receiver's clock: 42 s after t

	err := webhook.Verify([]byte(body), header, now, secret)
	fmt.Println("as received:", err)

	tampered := strings.Replace(body, `"ops"`, `"dev"`, 1)
	err = webhook.Verify([]byte(tampered), header, now, secret)
	fmt.Println("tampered:", errors.Is(err, webhook.ErrSignatureMismatch))

	err = webhook.Verify([]byte(body), header, now.Add(time.Hour), secret)
	fmt.Println("replayed an hour later:", errors.Is(err, webhook.ErrTimestampOutOfRange))

	err = webhook.Verify([]byte(body), strings.ToUpper(header), now, secret)
	fmt.Println("uppercase:", errors.Is(err, webhook.ErrMalformedHeader))
	// Output:
	// as received: <nil>
	// tampered: true
	// replayed an hour later: true
	// uppercase: true
}

// During the 24 hours after a secret is rotated, Errata signs every delivery
// with both secrets, new first, so a receiver with the old secret, the new
// one or both accepts it. A receiver given both while its configuration
// changes refuses nothing, whether a delivery was signed before, during or
// after the overlap; drop the old secret once the change is live.
func ExampleVerify_rotation() {
	oldSecret := secret
	newSecret := "whsec_c2Vjb25kIHNlY3JldCBvZiB0aGlydHktdHdvIGJ5dGVzIQ=="
	now := time.Now()

	fromNew := webhook.Sign([]byte(body), now, newSecret)
	fromOld := webhook.Sign([]byte(body), now, oldSecret)
	_, oldV1, _ := strings.Cut(fromOld, ",")
	overlap := fromNew + "," + oldV1 // t=…,v1=<new>,v1=<old>

	receivers := []struct {
		name    string
		secrets []string
	}{
		{"old secret   ", []string{oldSecret}},
		{"new secret   ", []string{newSecret}},
		{"both secrets ", []string{newSecret, oldSecret}},
	}
	for _, rc := range receivers {
		fmt.Println(rc.name,
			"before:", webhook.Verify([]byte(body), fromOld, now, rc.secrets...) == nil,
			"overlap:", webhook.Verify([]byte(body), overlap, now, rc.secrets...) == nil,
			"after:", webhook.Verify([]byte(body), fromNew, now, rc.secrets...) == nil)
	}
	// Output:
	// old secret    before: true overlap: true after: false
	// new secret    before: false overlap: true after: true
	// both secrets  before: true overlap: true after: true
}

// Sign builds genuine deliveries for a receiver's own tests.
func ExampleSign() {
	h := webhook.Sign([]byte(body), time.Unix(1700000000, 0), secret)
	fmt.Println(h == header)
	fmt.Println(webhook.Verify([]byte(body), h, time.Unix(1700000000, 0), secret))
	// Output:
	// true
	// <nil>
}

func ExampleParseEvent() {
	// Only after webhook.Verify or webhook.VerifyRequest has accepted body.
	ev, err := webhook.ParseEvent([]byte(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ev.Type, ev.DeliveryID, ev.Project.Name)

	// The rest of the body is in Raw: decode what this kind carries.
	var test struct {
		Channel struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"channel"`
	}
	if err := json.Unmarshal(ev.Raw, &test); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("channel:", test.Channel.Name)
	// Output:
	// test tst_01jd8x3v7c0000000000000000 checkout
	// channel: ops
}
