package store

import "context"

// FillInfoSummariesWindowed is FillInfoSummaries with the templates read by
// the ROW_NUMBER query on either database, so its tests check that query on
// SQLite too.
func (c *Conn) FillInfoSummariesWindowed(ctx context.Context, list []InfoSummary, top int) error {
	return c.fillInfoSummaries(ctx, list, top, true)
}
