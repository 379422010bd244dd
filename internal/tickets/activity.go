package tickets

import (
	"context"
	"encoding/json"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
)

// Actor is the person a change is made for: a member of the group's
// organization. The zero Actor is Errata itself (processing).
type Actor struct {
	MemberID string
	Name     string
}

// ActorOf is the actor of a member.
func ActorOf(m store.Member) Actor {
	name := m.Name
	if name == "" {
		name = m.Email
	}
	return Actor{MemberID: m.ID, Name: name}
}

// Record writes an entry of a group's activity in c's transaction: the
// change it records and its entry are committed together or not at all.
func Record(ctx context.Context, c *store.Conn, groupID, kind string, a Actor, data map[string]any, now time.Time) error {
	return c.InsertActivity(ctx, activity(groupID, kind, a, data, now))
}

func activity(groupID, kind string, a Actor, data map[string]any, now time.Time) store.Activity {
	if data == nil {
		data = map[string]any{}
	}
	return store.Activity{ID: id.New(id.Activity), GroupID: groupID, Kind: kind, ActorID: a.MemberID, ActorName: a.Name, Data: string(mustData(data)), CreatedAt: now}
}

// mustData is an entry's data as JSON (maps of strings and numbers always
// encode).
func mustData(data map[string]any) []byte {
	b, _ := json.Marshal(data)
	return b
}

// RecordOpened records what processing did when it opened a ticket: the
// group's first sighting, regression or end of its ignore, then the
// ticket.
func RecordOpened(ctx context.Context, c *store.Conn, g store.Group, t store.Ticket, now time.Time) error {
	var kind string
	data := map[string]any{"ticket_id": t.ID}
	switch t.Reason {
	case store.ReasonNew:
		kind = store.ActivityFirstSeen
	case store.ReasonRegression:
		kind = store.ActivityRegression
		if g.LastRelease != "" {
			data["release"] = g.LastRelease
		}
	case ReasonUnignored:
		kind = store.ActivityUnignored
	}
	if kind != "" {
		if err := Record(ctx, c, g.ID, kind, Actor{}, data, now); err != nil {
			return err
		}
	}
	return Record(ctx, c, g.ID, store.ActivityTicketOpened, Actor{}, map[string]any{"ticket_id": t.ID, "reason": t.Reason, "severity": t.Severity}, now)
}
