package httpapi

import (
	"context"

	"github.com/errata-dev/errata/internal/store"
)

// DeliveryView is a delivery with every attempt (CONTRACT 5).
type DeliveryView struct {
	ID            string         `json:"id" doc:"dlv_ (ticket or digest) or tst_ (test) identifier: the Service-Delivery-Id header"`
	ChannelID     string         `json:"channel_id"`
	Event         string         `json:"event" enum:"ticket,digest,test"`
	SubjectID     string         `json:"subject_id" doc:"The tkt_ ticket, dig_ digest, or for a test the chn_ channel"`
	Status        string         `json:"status" enum:"pending,delivered,failed,cancelled" doc:"pending while attempts remain; failed when given up; cancelled when the channel was disabled"`
	Format        DeliveryFormat `json:"format" doc:"What every attempt sends: the channel's format when the delivery was queued (a later change of the channel's format does not change it), or email"`
	NextAttemptAt *Timestamp     `json:"next_attempt_at" nullable:"true"`
	Attempts      []AttemptView  `json:"attempts" nullable:"false" doc:"Every attempt, oldest first, across redeliveries"`
	CreatedAt     Timestamp      `json:"created_at"`
	UpdatedAt     Timestamp      `json:"updated_at"`
}

// AttemptView is one attempt at a delivery.
type AttemptView struct {
	Number      int64      `json:"number" doc:"1 for the first attempt, counting across redeliveries"`
	Series      int64      `json:"series" doc:"1, then one more for each redelivery"`
	At          Timestamp  `json:"at"`
	Outcome     string     `json:"outcome" enum:"delivered,retry,failed" doc:"retry: another attempt follows at next_retry_at; failed: given up"`
	HTTPStatus  *int       `json:"http_status" nullable:"true"`
	ErrorClass  string     `json:"error_class" doc:"Empty when delivered; else timeout, tls, network, blocked-address, http-status, smtp or internal"`
	Error       string     `json:"error"`
	DurationMS  int64      `json:"duration_ms"`
	NextRetryAt *Timestamp `json:"next_retry_at" nullable:"true"`
}

func deliveryView(d store.Delivery, attempts []store.Attempt) DeliveryView {
	v := DeliveryView{ID: d.ID, ChannelID: d.ChannelID, Event: d.Event, SubjectID: d.SubjectID, Status: d.Status, Format: DeliveryFormat(d.Format),
		NextAttemptAt: tsPtr(d.NextAttemptAt), Attempts: make([]AttemptView, 0, len(attempts)), CreatedAt: ts(d.CreatedAt), UpdatedAt: ts(d.UpdatedAt)}
	if d.Status != store.DeliveryPending {
		v.NextAttemptAt = nil
	}
	for _, a := range attempts {
		av := AttemptView{Number: a.N, Series: a.Series, At: ts(a.At), Outcome: a.Outcome, ErrorClass: a.ErrorClass, Error: a.Error,
			DurationMS: a.Duration.Milliseconds(), NextRetryAt: tsPtr(a.NextRetryAt)}
		if a.HTTPStatus != 0 {
			st := a.HTTPStatus
			av.HTTPStatus = &st
		}
		v.Attempts = append(v.Attempts, av)
	}
	return v
}

// DeliveryPath names a delivery.
type DeliveryPath struct {
	DeliveryID string `path:"delivery_id" doc:"dlv_ or tst_ identifier"`
}

func (s *Server) listDeliveries(ctx context.Context, in *struct {
	ChannelPath
	ListParams
}) (*struct{ Body *Page[DeliveryView] }, error) {
	r := s.db.Read()
	var attempts map[string][]store.Attempt
	page, err := list(s, "deliveries:"+in.ChannelID, in.ListParams, func(before string, limit int) ([]store.Delivery, error) {
		ds, err := r.ListDeliveries(ctx, in.ChannelID, before, limit)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(ds))
		for i, d := range ds {
			ids[i] = d.ID
		}
		attempts, err = r.AttemptsOf(ctx, ids)
		return ds, err
	}, func(d store.Delivery) string { return d.ID }, func(d store.Delivery) DeliveryView { return deliveryView(d, attempts[d.ID]) })
	return &struct{ Body *Page[DeliveryView] }{page}, err
}

func (s *Server) redeliver(ctx context.Context, in *DeliveryPath) (*struct{ Body DeliveryView }, error) {
	if err := s.notify.Redeliver(ctx, in.DeliveryID); err != nil {
		return nil, err
	}
	r := s.db.Read()
	d, err := r.DeliveryByID(ctx, in.DeliveryID)
	if err != nil {
		return nil, err
	}
	as, err := r.AttemptsOf(ctx, []string{d.ID})
	if err != nil {
		return nil, err
	}
	return &struct{ Body DeliveryView }{deliveryView(d, as[d.ID])}, nil
}
