package notify

import (
	"encoding/json"
	"time"

	"github.com/errata-dev/errata/internal/notify/email"

	"github.com/errata-dev/errata/internal/view"
)

// The webhook bodies of spec 6.1–6.3. One typed model feeds the bytes sent
// and the OpenAPI document's `webhooks`.

// ProjectRef names a project in a body.
type ProjectRef struct {
	ID   string `json:"id" doc:"prj_ identifier"`
	Name string `json:"name"`
}

// ChannelRef names a channel in a test body.
type ChannelRef struct {
	ID   string `json:"id" doc:"chn_ identifier"`
	Name string `json:"name"`
}

// TicketBody is the body of a `ticket` delivery (spec 6.1).
type TicketBody struct {
	Type           string      `json:"type" enum:"ticket"`
	DeliveryID     string      `json:"delivery_id" doc:"dlv_ identifier, the same as the Service-Delivery-Id header"`
	OrganizationID string      `json:"organization_id"`
	Project        ProjectRef  `json:"project"`
	Ticket         view.Ticket `json:"ticket" doc:"The ticket object, as GET /v1/tickets/{ticket_id} returns it"`
	TicketURL      string      `json:"ticket_url" doc:"{app_url}/tickets/{ticket_id}"`
}

// TestBody is the body of a `test` delivery (spec 6.3).
type TestBody struct {
	Type           string     `json:"type" enum:"test"`
	DeliveryID     string     `json:"delivery_id" doc:"tst_ identifier"`
	OrganizationID string     `json:"organization_id"`
	Project        ProjectRef `json:"project"`
	Channel        ChannelRef `json:"channel"`
}

// emailBody is what an email delivery stores: the recipient, and either
// the notification (notice.Notification as JSON), rendered when attempted
// with the links of its channel and recipient, or a message rendered when
// it was queued (a system email). (Bodies of older releases also have an
// "unsubscribe" member, no longer read: the links are made at each attempt.)
type emailBody struct {
	To           string          `json:"to"`
	Notification json.RawMessage `json:"notification,omitempty"`
	// ConfirmHash is a confirmation email's token hash: the email is
	// cancelled once the channel no longer waits for that token.
	ConfirmHash []byte `json:"confirm_hash,omitempty"`
	// Assignment is a bulk's assignment email without its groups, and
	// Parts the groups each of the bulk's transactions added, with when:
	// it is rendered when it is sent, from the groups still its
	// recipient's and not assigned again since they were added
	// (attemptAssignment).
	Assignment *email.Assignment `json:"assignment,omitempty"`
	Parts      []assignedPart    `json:"parts,omitempty"`

	Subject string            `json:"subject,omitempty"`
	Text    string            `json:"text,omitempty"`
	HTML    string            `json:"html,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// assignedPart is the groups one of a bulk's transactions assigned, at At.
type assignedPart struct {
	At     time.Time `json:"at"`
	Groups []string  `json:"groups"`
}
