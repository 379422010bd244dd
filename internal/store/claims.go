package store

import (
	"fmt"
	"slices"
	"sort"
)

// claimedBatches reads the batches a claim's UPDATE … RETURNING leased,
// in queue order, without their payloads (LoadPayloads reads them).
func claimedBatches(rows *boundRows, err error) ([]Batch, error) {
	if err != nil {
		return nil, fmt.Errorf("store: claim batches: %w", err)
	}
	out, err := collect(rows, func(s interface{ Scan(...any) error }) (Batch, error) {
		var b Batch
		var r, l int64
		err := s.Scan(&b.ID, &b.ProjectID, &r, &b.EventCount, &l, &b.Attempts, &b.Failures)
		b.ReceivedAt, b.LeaseUntil = fromMS(r), fromMS(l)
		return b, err
	})
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, err
}

// claimedDeliveries reads the deliveries a claim's UPDATE … RETURNING
// leased, oldest due first (RETURNING keeps no order).
func claimedDeliveries(rows *boundRows, err error) ([]Delivery, error) {
	if err != nil {
		return nil, fmt.Errorf("store: claim deliveries: %w", err)
	}
	ds, err := collect(rows, scanDeliveryBody)
	slices.SortStableFunc(ds, func(a, b Delivery) int { return a.NextAttemptAt.Compare(*b.NextAttemptAt) })
	return ds, err
}

// systemLimit is how many system emails (deliveries without a channel) a
// delivery claim takes: none when the caller excludes them (channel "").
func systemLimit(perChannel int, exclude []string) int {
	if slices.Contains(exclude, "") {
		return 0
	}
	return perChannel
}
