package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// The kinds of a group's activity (CONTRACT 8).
const (
	ActivityFirstSeen      = "first_seen"
	ActivityRegression     = "regression"
	ActivitySpike          = "spike"
	ActivityResolved       = "resolved"
	ActivityUnresolved     = "unresolved"
	ActivityIgnored        = "ignored"
	ActivityUnignored      = "unignored"
	ActivityAssigned       = "assigned"
	ActivityUnassigned     = "unassigned"
	ActivityComment        = "comment"
	ActivityMerged         = "merged"
	ActivityTicketOpened   = "ticket_opened"
	ActivityTicketResolved = "ticket_resolved"
)

// Activity is one entry of a group's activity: what happened, who did it
// (ActorID "" for Errata itself) and its details (a JSON object).
type Activity struct {
	ID        string
	GroupID   string
	Kind      string
	ActorID   string
	ActorName string
	// CommentID names the comment of a comment entry ("" otherwise).
	CommentID string
	Data      string
	CreatedAt time.Time
}

// InsertActivity records an entry of a group's activity; call it in the
// transaction of the change it records.
func (c *Conn) InsertActivity(ctx context.Context, a Activity) error {
	if a.Data == "" {
		a.Data = "{}"
	}
	_, err := c.exec(ctx, `INSERT INTO group_activity (id, group_id, kind, actor_member_id, actor_name, comment_id, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.GroupID, a.Kind, nullString(a.ActorID), a.ActorName, nullString(a.CommentID), a.Data, ms(a.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: insert activity: %w", err)
	}
	return nil
}

// ListActivity lists a group's activity newest first; before is the last
// id of the previous page ("" for the first).
func (c *Conn) ListActivity(ctx context.Context, groupID, before string, limit int) ([]Activity, error) {
	rows, err := c.query(ctx, `SELECT id, group_id, kind, actor_member_id, actor_name, data, created_at FROM group_activity
		WHERE group_id = ? AND (? = '' OR id < ?) ORDER BY id DESC LIMIT ?`, groupID, before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list activity: %w", err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (Activity, error) {
		var a Activity
		var actor sql.NullString
		var at int64
		err := s.Scan(&a.ID, &a.GroupID, &a.Kind, &actor, &a.ActorName, &a.Data, &at)
		a.ActorID, a.CreatedAt = actor.String, fromMS(at)
		return a, err
	})
}

// LastActivityAt returns when a group's latest entry of a kind was
// recorded, the zero time when it has none.
func (c *Conn) LastActivityAt(ctx context.Context, groupID, kind string) (time.Time, error) {
	var at sql.NullInt64
	err := c.queryRow(ctx, `SELECT MAX(created_at) FROM group_activity WHERE group_id = ? AND kind = ?`, groupID, kind).Scan(&at)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: last %s of %s: %w", kind, groupID, translate(err))
	}
	if !at.Valid {
		return time.Time{}, nil
	}
	return fromMS(at.Int64), nil
}

// CountActivity counts a group's entries of a kind (for tests and checks).
func (c *Conn) CountActivity(ctx context.Context, groupID, kind string) (int64, error) {
	var n int64
	err := c.queryRow(ctx, `SELECT COUNT(*) FROM group_activity WHERE group_id = ? AND kind = ?`, groupID, kind).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count activity: %w", translate(err))
	}
	return n, nil
}

// Comment is a person's comment on a group.
type Comment struct {
	ID         string
	GroupID    string
	AuthorID   string // member id
	AuthorName string
	Body       string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// InsertComment adds a comment.
func (c *Conn) InsertComment(ctx context.Context, m Comment) error {
	_, err := c.exec(ctx, `INSERT INTO group_comments (id, group_id, author_member_id, author_name, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.GroupID, m.AuthorID, m.AuthorName, m.Body, ms(m.CreatedAt), ms(m.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: insert comment: %w", err)
	}
	return nil
}

// CommentByID returns one comment.
func (c *Conn) CommentByID(ctx context.Context, id string) (Comment, error) {
	return c.comment(ctx, id, "")
}

// LockComment returns one comment and locks it until c's transaction ends
// (on PostgreSQL; SQLite's writer is one), so that the change the caller
// makes, and the time it stamps, follow any change made meanwhile.
func (c *Conn) LockComment(ctx context.Context, id string) (Comment, error) {
	return c.comment(ctx, id, c.drv.rowLock())
}

func (c *Conn) comment(ctx context.Context, id, lock string) (Comment, error) {
	var m Comment
	var cr, up int64
	err := c.queryRow(ctx, `SELECT id, group_id, author_member_id, author_name, body, created_at, updated_at FROM group_comments WHERE id = ?`+lock, id).
		Scan(&m.ID, &m.GroupID, &m.AuthorID, &m.AuthorName, &m.Body, &cr, &up)
	if err != nil {
		return Comment{}, fmt.Errorf("store: comment %s: %w", id, translate(err))
	}
	m.CreatedAt, m.UpdatedAt = fromMS(cr), fromMS(up)
	return m, nil
}

// UpdateComment writes a comment's body and update time, and the data its
// activity entry shows.
func (c *Conn) UpdateComment(ctx context.Context, m Comment, activityData string) error {
	if err := c.execOne(ctx, `UPDATE group_comments SET body = ?, updated_at = ? WHERE id = ?`, m.Body, ms(m.UpdatedAt), m.ID); err != nil {
		return fmt.Errorf("store: update comment %s: %w", m.ID, err)
	}
	if _, err := c.exec(ctx, `UPDATE group_activity SET data = ? WHERE group_id = ? AND comment_id = ?`, activityData, m.GroupID, m.ID); err != nil {
		return fmt.Errorf("store: update comment %s: %w", m.ID, err)
	}
	return nil
}

// DeleteComment deletes a comment of a group and its activity entry.
func (c *Conn) DeleteComment(ctx context.Context, groupID, id string) error {
	if err := c.execOne(ctx, `DELETE FROM group_comments WHERE id = ?`, id); err != nil {
		return fmt.Errorf("store: delete comment %s: %w", id, err)
	}
	if _, err := c.exec(ctx, `DELETE FROM group_activity WHERE group_id = ? AND comment_id = ?`, groupID, id); err != nil {
		return fmt.Errorf("store: delete comment %s: %w", id, err)
	}
	return nil
}

// AddIgnoreUsers records user ids seen by an ignored group and returns how
// many of them are new.
func (c *Conn) AddIgnoreUsers(ctx context.Context, groupID string, users []string) (int64, error) {
	var added int64
	for _, u := range users {
		res, err := c.exec(ctx, `INSERT INTO group_ignore_users (group_id, user_id) VALUES (?, ?) ON CONFLICT (group_id, user_id) DO NOTHING`, groupID, u)
		if err != nil {
			return 0, fmt.Errorf("store: ignore users: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("store: ignore users: %w", err)
		}
		added += n
	}
	return added, nil
}

// ClearIgnoreUsers forgets the user ids an ignored group has seen.
func (c *Conn) ClearIgnoreUsers(ctx context.Context, groupID string) error {
	if _, err := c.exec(ctx, `DELETE FROM group_ignore_users WHERE group_id = ?`, groupID); err != nil {
		return fmt.Errorf("store: clear ignore users: %w", err)
	}
	return nil
}

// NoteReleases records the releases a project's events carried at at:
// a release it did not have is made with an id from newID, and one that
// no event named before (made by sentry-cli) gets at as its first_seen.
// The order of first_seen is the order "resolved in a release" uses.
func (c *Conn) NoteReleases(ctx context.Context, projectID string, versions []string, newID func() string, at time.Time) error {
	for _, v := range versions {
		if _, err := c.exec(ctx, `INSERT INTO releases (id, project_id, version, created_at, first_seen) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (project_id, version) DO UPDATE SET first_seen = ? WHERE releases.first_seen IS NULL`,
			newID(), projectID, v, ms(at), ms(at), ms(at)); err != nil {
			return fmt.Errorf("store: note release: %w", err)
		}
	}
	return nil
}

// ReleaseFirstSeen returns when a project first saw each of versions;
// versions it never saw are absent.
func (c *Conn) ReleaseFirstSeen(ctx context.Context, projectID string, versions []string) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	if len(versions) == 0 {
		return out, nil
	}
	args := append([]any{projectID}, anys(versions)...)
	rows, err := c.query(ctx, `SELECT version, first_seen FROM releases WHERE project_id = ? AND first_seen IS NOT NULL AND version IN (`+tuples(len(versions), "?")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: release order: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v string
		var at int64
		if err := rows.Scan(&v, &at); err != nil {
			return nil, fmt.Errorf("store: release order: %w", err)
		}
		out[v] = fromMS(at)
	}
	return out, rows.Err()
}

// RecentReleases lists a project's latest first-seen releases, at most
// limit, latest first.
func (c *Conn) RecentReleases(ctx context.Context, projectID string, limit int) ([]string, error) {
	rows, err := c.query(ctx, `SELECT version FROM releases WHERE project_id = ? AND first_seen IS NOT NULL ORDER BY first_seen DESC, version DESC LIMIT ?`, projectID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: recent releases: %w", err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (string, error) {
		var v string
		return v, s.Scan(&v)
	})
}

// MembersByIDs returns the members of ids that exist, by id.
func (c *Conn) MembersByIDs(ctx context.Context, ids []string) (map[string]Member, error) {
	out := map[string]Member{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := c.query(ctx, memberSelect+` WHERE m.id IN (`+tuples(len(ids), "?")+`)`, anys(ids)...)
	if err != nil {
		return nil, fmt.Errorf("store: members: %w", err)
	}
	ms, err := collect(rows, scanMember)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		out[m.ID] = m
	}
	return out, nil
}

// DueIgnores lists groups whose ignore-until time is at or before now, the
// earliest first, at most limit (on the partial index of ignore_until).
func (c *Conn) DueIgnores(ctx context.Context, now time.Time, limit int) ([]string, error) {
	rows, err := c.query(ctx, `SELECT id FROM error_groups WHERE ignore_until IS NOT NULL AND ignore_until <= ? ORDER BY ignore_until LIMIT ?`, ms(now), limit)
	if err != nil {
		return nil, fmt.Errorf("store: due ignores: %w", err)
	}
	return collect(rows, scanOne[string])
}
