package httpapi

import (
	"context"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/summary"
	"github.com/errata-dev/errata/internal/view"
)

// SummaryView is an INFO summary (CONTRACT 4).
type SummaryView = view.Summary

// TopMessage is one message template of a window.
type TopMessage = view.TopMessage

func summaryView(v store.InfoSummary) SummaryView { return view.NewSummary(v) }

// SummaryPath names an INFO summary.
type SummaryPath struct {
	SummaryID string `path:"summary_id" doc:"ism_ identifier"`
}

func (s *Server) listSummaries(ctx context.Context, in *struct {
	ProjectPath
	ListParams
	From time.Time `query:"from" doc:"Only windows starting at or after this time"`
	To   time.Time `query:"to" doc:"Only windows starting before this time"`
}) (*struct{ Body *Page[SummaryView] }, error) {
	var from, to *time.Time
	if !in.From.IsZero() {
		from = &in.From
	}
	if !in.To.IsZero() {
		to = &in.To
	}
	scope := "summaries:" + in.ProjectID + ":" + in.From.String() + ":" + in.To.String()
	page, err := list(s, scope, in.ListParams, func(before string, limit int) ([]store.InfoSummary, error) {
		rows, err := s.db.Read().ListInfoSummaries(ctx, in.ProjectID, from, to, before, limit)
		if err != nil {
			return nil, err
		}
		return rows, s.db.Read().FillInfoSummaries(ctx, rows, summary.TopMessages)
	}, func(v store.InfoSummary) string { return v.ID }, summaryView)
	return &struct{ Body *Page[SummaryView] }{page}, err
}

func (s *Server) getSummary(ctx context.Context, in *SummaryPath) (*struct{ Body SummaryView }, error) {
	v, err := s.db.Read().InfoSummaryDetail(ctx, in.SummaryID, summary.TopMessages)
	if err != nil {
		return nil, err
	}
	return &struct{ Body SummaryView }{summaryView(v)}, nil
}
