package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// settleReads is how many reads in a row must find the same sum before a
// count short of the events accepted is final: the backlog gauge the drain
// waits for is refreshed every second, so it can read empty a moment
// before the last batch's counts are committed.
const settleReads = 8

// Counts is the count check of a drained run: what the run added to the
// project's counts, read through the API (GET /v1/projects/{id}/groups and
// /info-summaries), against the events the server accepted. Every
// accepted event is counted once: at warn and above in its error group's
// event_count, at info in its INFO summary's event_count, at debug in the
// summary's debug_count. The summary of the window still open is listed
// with the others, so nothing waits for a window to close.
type Counts struct {
	ProjectID string `json:"project_id"`
	// GroupEvents, InfoEvents and DebugEvents are what the run added to
	// the groups' event_count, the summaries' event_count and their
	// debug_count; Counted is their sum.
	GroupEvents int64 `json:"group_events"`
	InfoEvents  int64 `json:"info_events"`
	DebugEvents int64 `json:"debug_events"`
	Counted     int64 `json:"counted"`
	// Groups is how many error groups the run added: with --templates and
	// --distinct, how many distinct groups the load made.
	Groups   int64 `json:"groups"`
	Accepted int64 `json:"accepted"`
	Match    bool  `json:"match"`
	// Before is the project's sum before the run: 0 on a fresh project.
	Before int64 `json:"before"`
}

// readCounts sums the project's counts.
func readCounts(ctx context.Context, c *Config) (Counts, error) {
	n := Counts{ProjectID: c.Project}
	base := joinURL(c.URL, "/v1/projects/"+url.PathEscape(c.Project))
	err := eachItem(ctx, c, base+"/groups", func(raw json.RawMessage) error {
		var g struct {
			EventCount int64 `json:"event_count"`
		}
		err := json.Unmarshal(raw, &g)
		n.GroupEvents += g.EventCount
		n.Groups++
		return err
	})
	if err != nil {
		return n, err
	}
	err = eachItem(ctx, c, base+"/info-summaries", func(raw json.RawMessage) error {
		var s struct {
			EventCount int64 `json:"event_count"`
			DebugCount int64 `json:"debug_count"`
		}
		err := json.Unmarshal(raw, &s)
		n.InfoEvents += s.EventCount
		n.DebugEvents += s.DebugCount
		return err
	})
	n.Counted = n.GroupEvents + n.InfoEvents + n.DebugEvents
	return n, err
}

// checkCounts reads the counts after the drain until what the run added
// is the events accepted, or stops changing short of it (or passes it).
func checkCounts(ctx context.Context, c *Config, before Counts, accepted int64) (*Counts, error) {
	ctx, cancel := context.WithTimeout(ctx, c.DrainTimeout)
	defer cancel()
	last, same := int64(-1), 0
	for {
		now, err := readCounts(ctx, c)
		if err != nil {
			return nil, err
		}
		got := Counts{ProjectID: c.Project, GroupEvents: now.GroupEvents - before.GroupEvents,
			InfoEvents: now.InfoEvents - before.InfoEvents, DebugEvents: now.DebugEvents - before.DebugEvents,
			Counted: now.Counted - before.Counted, Groups: now.Groups - before.Groups, Accepted: accepted, Before: before.Counted}
		got.Match = got.Counted == accepted
		if got.Counted == last {
			same++
		} else {
			last, same = got.Counted, 0
		}
		switch {
		case got.Match:
			return &got, nil
		case got.Counted > accepted || same >= settleReads:
			return &got, fmt.Errorf("loadgen: the project counted %d events (groups %d + info %d + debug %d), the server accepted %d: "+
				"another sender in the project, or batches set aside (errata queue failed)",
				got.Counted, got.GroupEvents, got.InfoEvents, got.DebugEvents, accepted)
		}
		if err := c.sleep(ctx, c.DrainPoll); err != nil {
			return &got, fmt.Errorf("loadgen: the project counted %d events of the %d accepted when time ran out: %w", got.Counted, accepted, err)
		}
	}
}

// eachItem pages through the list at u with the token, calling fn on
// every item.
func eachItem(ctx context.Context, c *Config, u string, fn func(json.RawMessage) error) error {
	cursor := ""
	for {
		q := url.Values{"limit": {"100"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var page struct {
			Data       []json.RawMessage `json:"data"`
			NextCursor *string           `json:"next_cursor"`
		}
		if err := getJSON(ctx, c, u+"?"+q.Encode(), &page); err != nil {
			return err
		}
		for _, raw := range page.Data {
			if err := fn(raw); err != nil {
				return fmt.Errorf("loadgen: GET %s: %w", u, err)
			}
		}
		if page.NextCursor == nil || *page.NextCursor == "" {
			return nil
		}
		cursor = *page.NextCursor
	}
}

// apiRetries bounds the resends of one management API read after 429.
const apiRetries = 10

// getJSON reads u with the token into v, waiting out 429 answers.
func getJSON(ctx context.Context, c *Config, u string, v any) error {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+c.Token)
		resp, err := c.Client.Do(req)
		if err != nil {
			return fmt.Errorf("loadgen: GET %s: %w", u, err)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		_ = resp.Body.Close()
		switch {
		case err != nil:
			return fmt.Errorf("loadgen: GET %s: %w", u, err)
		case resp.StatusCode == http.StatusOK:
			return json.Unmarshal(body, v)
		case resp.StatusCode == http.StatusTooManyRequests && attempt < apiRetries:
			if err := c.sleep(ctx, retryAfter(resp.Header.Get("Retry-After"), time.Now())); err != nil {
				return err
			}
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusNotFound:
			return fmt.Errorf("loadgen: GET %s answered %s: --token must be a session token (from POST /v1/auth/sign-in/email) of a member of --project", u, resp.Status)
		default:
			return errors.New("loadgen: GET " + u + " answered " + resp.Status)
		}
	}
}
