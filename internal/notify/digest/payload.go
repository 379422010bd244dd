package digest

import (
	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/view"
)

// DigestBody is the body of a `digest` delivery (spec 6.2).
type DigestBody struct {
	Type           string            `json:"type" enum:"digest"`
	DeliveryID     string            `json:"delivery_id" doc:"dlv_ identifier"`
	OrganizationID string            `json:"organization_id"`
	Project        notify.ProjectRef `json:"project"`
	Digest         Digest            `json:"digest"`
}

// Digest is the digest object: what a period brought.
type Digest struct {
	ID          string                `json:"id" doc:"dig_ identifier"`
	Period      Period                `json:"period"`
	TicketCount int                   `json:"ticket_count" doc:"Tickets created in the period and still kept when the digest was sent"`
	Tickets     []view.TicketListItem `json:"tickets" nullable:"false" maxItems:"100" doc:"At most 100, by severity then newest; each an item of the ticket list"`
	Info        *DigestInfo           `json:"info" doc:"null when the period has no INFO summaries"`
	CreatedAt   view.Timestamp        `json:"created_at"`
}

// TransformSchema lets `info` be null in the OpenAPI document: huma's
// nullable tag does not cover objects, so the property becomes
// oneOf [DigestInfo, null].
func (Digest) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	if p := s.Properties["info"]; p != nil && p.Ref != "" {
		s.Properties["info"] = &huma.Schema{Description: p.Description, OneOf: []*huma.Schema{{Ref: p.Ref}, {Type: "null"}}}
	}
	return s
}

// Period is a digest's span, [start, end), and the zone of its schedule.
type Period struct {
	Start    view.Timestamp `json:"start"`
	End      view.Timestamp `json:"end"`
	Timezone string         `json:"timezone" doc:"IANA zone name of the schedule"`
}

// DigestInfo sums a period's INFO summaries.
type DigestInfo struct {
	EventCount    int64        `json:"event_count" doc:"The windows' info events (their event_count summed; debug events are not counted here)"`
	WindowCount   int64        `json:"window_count"`
	BusiestWindow Busiest      `json:"busiest_window"`
	LatestSummary view.Summary `json:"latest_summary"`
	SummaryIDs    []string     `json:"summary_ids" nullable:"false" maxItems:"300" doc:"ism_ identifiers, at most 300, newest first"`
	URL           string       `json:"url" doc:"{app_url}/projects/{project_id}/summaries?from=<start>&to=<end>"`
}

// Busiest is the period's INFO window with the most events.
type Busiest struct {
	Start      view.Timestamp `json:"start"`
	End        view.Timestamp `json:"end"`
	TotalCount int64          `json:"total_count" doc:"The window's info and debug events: its event_count + debug_count"`
}
