package httpapi

import (
	"context"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/view"
)

// The stored event whole (CONTRACT 8), as the API and the dashboard show it
// (view.NewEventDetail).
type (
	EventDetail       = view.EventDetail
	FrameView         = view.FrameView
	FrameContext      = view.FrameContext
	BreadcrumbView    = view.BreadcrumbView
	EventUser         = view.EventUser
	EventRequest      = view.EventRequest
	RawFrameView      = view.RawFrameView
	SymbolicationView = view.SymbolicationView
	SymbolicatedFrame = view.SymbolicatedFrame
)

// EventPath names a stored event.
type EventPath struct {
	EventID string `path:"event_id" doc:"A stored event's id, evt_ and a number (the id of GET /v1/groups/{group_id}/events)"`
}

// EventOutput is one stored event.
type EventOutput struct{ Body EventDetail }

func (s *Server) getEvent(ctx context.Context, in *EventPath) (*EventOutput, error) {
	n, _ := id.ParseEvent(in.EventID) // the access check proved it an event id
	d, _, err := view.EventDetailOf(ctx, s.db.Read(), n)
	if err != nil {
		return nil, err
	}
	return &EventOutput{d}, nil
}
