package view

import "github.com/errata-dev/errata/internal/store"

// Window is a span of time.
type Window struct {
	Start Timestamp `json:"start"`
	End   Timestamp `json:"end"`
}

// Summary is an INFO summary (CONTRACT 4), also the `latest_summary` of a
// digest.
type Summary struct {
	ID          string           `json:"id" doc:"ism_ identifier"`
	ProjectID   string           `json:"project_id"`
	Window      Window           `json:"window"`
	EventCount  int64            `json:"event_count" doc:"info events; debug events are in debug_count, never here"`
	DebugCount  int64            `json:"debug_count" doc:"debug events; event_count + debug_count is every event the window summarised"`
	Services    map[string]int64 `json:"services" doc:"Info and debug events per service (they sum to event_count + debug_count)"`
	TopMessages []TopMessage     `json:"top_messages" nullable:"false" doc:"At most 20 message templates of info and debug events, most frequent first"`
}

// TopMessage is one message template of a window.
type TopMessage struct {
	Template string `json:"template"`
	Count    int64  `json:"count"`
	Sample   string `json:"sample"`
}

// NewSummary builds the summary object.
func NewSummary(v store.InfoSummary) Summary {
	out := Summary{ID: v.ID, ProjectID: v.ProjectID, EventCount: v.EventCount, DebugCount: v.DebugCount,
		Services: v.Services, TopMessages: make([]TopMessage, 0, len(v.Top))}
	if out.Services == nil {
		out.Services = map[string]int64{}
	}
	out.Window = Window{Start: TS(v.WindowStart), End: TS(v.WindowEnd)}
	for _, t := range v.Top {
		out.TopMessages = append(out.TopMessages, TopMessage{Template: t.Template, Count: t.Count, Sample: t.Sample})
	}
	return out
}
