package httpapi

import "github.com/danielgtaylor/huma/v2"

// The lists' paging: the signed cursors themselves are the server's
// (httpserver.Server.EncodeCursor), shared with the dashboard.

// ListParams are the paging parameters every list takes.
type ListParams struct {
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"50" doc:"Page size, 1 to 100"`
	Cursor string `query:"cursor" doc:"Opaque cursor: next_cursor of the previous page"`
}

// Resolve refuses an empty limit (?limit=): a limit outside 1 to 100 is 422,
// never clamped, and an empty one is not the default either.
func (p *ListParams) Resolve(ctx huma.Context) []error {
	u := ctx.URL()
	if q := u.Query(); q.Has("limit") && q.Get("limit") == "" {
		return []error{&huma.ErrorDetail{Location: "query.limit", Message: "must be a number from 1 to 100, not empty", Value: ""}}
	}
	return nil
}

// Page is the body of every list answer.
type Page[T any] struct {
	Data       []T     `json:"data" nullable:"false"`
	NextCursor *string `json:"next_cursor" nullable:"true" doc:"Pass back as cursor for the next page; null on the last page"`
}

// list runs a store list (asked for one row more than the limit, to know
// whether another page follows) and builds the page.
func list[S, T any](s *Server, scope string, lp ListParams, fetch func(before string, limit int) ([]S, error), idOf func(S) string, view func(S) T) (*Page[T], error) {
	before, err := s.srv.DecodeCursor(scope, lp.Cursor)
	if err != nil {
		return nil, err
	}
	rows, err := fetch(before, lp.Limit+1)
	if err != nil {
		return nil, err
	}
	out := &Page[T]{Data: make([]T, 0, min(len(rows), lp.Limit))}
	if len(rows) > lp.Limit {
		rows = rows[:lp.Limit]
		next := s.srv.EncodeCursor(scope, idOf(rows[len(rows)-1]))
		out.NextCursor = &next
	}
	for _, r := range rows {
		out.Data = append(out.Data, view(r))
	}
	return out, nil
}
