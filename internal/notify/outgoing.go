package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify/chat"
	"github.com/errata-dev/errata/internal/notify/notice"
	"github.com/errata-dev/errata/internal/store"
)

// outgoing is one notification on its way to a project's channels. What a
// delivery stores depends on its channel: the errata body (the interface's
// signed JSON, which names its delivery), or the notification itself,
// rendered for a chat tool or as an email when attempted (render), so that
// no rendering runs in the transaction that queues it.
type outgoing struct {
	event, subjectID string
	// errata builds the errata body of the delivery deliveryID.
	errata func(deliveryID string) any
	// notification builds the notification; it is called at most once.
	notification func() (notice.Notification, error)
	encoded      json.RawMessage
}

// encode returns the notification as stored, building it the first time.
func (o *outgoing) encode() (json.RawMessage, error) {
	if o.encoded == nil {
		n, err := o.notification()
		if err != nil {
			return nil, err
		}
		if o.encoded, err = marshal(o.event, n); err != nil {
			return nil, err
		}
	}
	return o.encoded, nil
}

// delivery is o's delivery to ch, due now, with its frozen body and format
// (the channel's at this moment: changing the channel later does not
// change it).
func (s *Service) delivery(ch store.Channel, o *outgoing, idPrefix string) (store.Delivery, error) {
	d := store.Delivery{ID: id.New(idPrefix), ChannelID: ch.ID, ProjectID: ch.ProjectID, Event: o.event, SubjectID: o.subjectID}
	var err error
	switch {
	case ch.Type == store.ChannelEmail:
		var n json.RawMessage
		if n, err = o.encode(); err == nil {
			d.Format = store.FormatEmail
			d.Body, err = marshal(o.event, emailBody{To: ch.Email, Notification: n})
		}
	case ch.Format == "" || ch.Format == chat.Errata:
		d.Format = chat.Errata
		d.Body, err = marshal(o.event, o.errata(d.ID))
	default:
		d.Format = ch.Format
		d.Body, err = o.encode()
	}
	return d, err
}

// queueTo stores o's delivery to ch, made now and due at due, in c's
// transaction.
func (s *Service) queueTo(ctx context.Context, c *store.Conn, ch store.Channel, o *outgoing, now, due time.Time) error {
	d, err := s.delivery(ch, o, id.Delivery)
	if err != nil {
		return err
	}
	d.Status, d.Series, d.NextAttemptAt, d.CreatedAt, d.UpdatedAt = store.DeliveryPending, 1, &due, now, now
	if err := c.InsertDelivery(ctx, d); err != nil {
		return err
	}
	s.queued.Store(true)
	return nil
}

// rendered is what an attempt at a webhook delivery sends: the stored body
// for the errata format, else the stored notification rendered in the
// delivery's format.
func rendered(d store.Delivery) (chat.Rendered, error) {
	if d.Format == "" || d.Format == chat.Errata {
		return chat.Rendered{Body: d.Body, ContentType: "application/json"}, nil
	}
	var n notice.Notification
	if err := json.Unmarshal(d.Body, &n); err != nil {
		return chat.Rendered{}, fmt.Errorf("the stored notification is unreadable: %w", err)
	}
	return chat.Render(d.Format, n)
}

func marshal(event string, body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("notify: encode %s body: %w", event, err)
	}
	return b, nil
}
