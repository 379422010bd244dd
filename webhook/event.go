package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Project names the project a delivery is about.
type Project struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Event is the envelope every delivery body shares (spec 6.1–6.3). Decode
// Raw into a type of your own for the rest: `ticket` and `ticket_url` of a
// ticket, `digest` of a digest, `channel` of a test. Unknown fields are
// ignored; new ones can appear at any time.
type Event struct {
	// Type is EventTicket, EventDigest, EventTest, or a kind added later.
	Type string `json:"type"`
	// DeliveryID is dlv_… (ticket, digest) or tst_… (test); it equals the
	// Service-Delivery-Id header and, unlike the header, is signed.
	DeliveryID     string  `json:"delivery_id"`
	OrganizationID string  `json:"organization_id"`
	Project        Project `json:"project"`
	// Raw is a copy of the whole body.
	Raw json.RawMessage `json:"-"`
}

// ParseEvent decodes the envelope of a body that Verify or VerifyRequest has
// accepted; decoding before verifying would trust unauthenticated input. A
// body that is not a JSON object, or has no `type`, is an error. The kind is
// not checked: switch on Type and accept kinds you do not know.
func ParseEvent(body []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(body, &e); err != nil {
		return Event{}, fmt.Errorf("webhook: parse event: %w", err)
	}
	if e.Type == "" {
		return Event{}, errors.New("webhook: parse event: no type")
	}
	e.Raw = append(json.RawMessage(nil), body...)
	return e, nil
}
