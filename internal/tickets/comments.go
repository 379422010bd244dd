package tickets

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/text"
)

// MaxCommentLength is the most characters a comment holds (CONTRACT 8).
const MaxCommentLength = 10_000

// checkComment refuses a body that is empty, longer than MaxCommentLength
// characters or holds control characters (422 naming body).
func checkComment(body string) error {
	if strings.TrimSpace(body) == "" {
		return problem.New("validation-failed", "body: must not be empty")
	}
	if n := utf8.RuneCountInString(body); n > MaxCommentLength {
		return problem.Newf("validation-failed", "body: %d characters, at most %d", n, MaxCommentLength)
	}
	return text.Check("body", body)
}

func commentData(m store.Comment) map[string]any {
	return map[string]any{"comment_id": m.ID, "body": m.Body}
}

// AddComment adds a's comment to a group, with its activity entry (kind
// comment, data.comment_id and data.body), in one transaction.
func (s *Service) AddComment(ctx context.Context, a Actor, groupID, body string) (store.Comment, error) {
	if err := checkComment(body); err != nil {
		return store.Comment{}, err
	}
	now := s.clock()
	m := store.Comment{ID: id.New(id.Comment), GroupID: groupID, AuthorID: a.MemberID, AuthorName: a.Name, Body: body, CreatedAt: now, UpdatedAt: now}
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		if err := c.InsertComment(ctx, m); err != nil {
			return err
		}
		e := activity(groupID, store.ActivityComment, a, commentData(m), now)
		e.CommentID = m.ID
		return c.InsertActivity(ctx, e)
	})
	return m, err
}

// EditComment changes a comment's body (its activity entry shows the new
// one). mayEditOthers says whether a may change another member's comment
// (admins and owners); else 403.
func (s *Service) EditComment(ctx context.Context, a Actor, mayEditOthers bool, commentID, body string) (store.Comment, error) {
	var out store.Comment
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		m, err := ownComment(ctx, c, a, mayEditOthers, commentID)
		if err != nil {
			return err
		}
		// Whose comment it is decides first (403 before 422, CONTRACT 6).
		if err := checkComment(body); err != nil {
			return err
		}
		m.Body, m.UpdatedAt = body, s.clock()
		out = m
		return c.UpdateComment(ctx, m, string(mustData(commentData(m))))
	})
	return out, err
}

// DeleteComment deletes a comment and its activity entry, on the terms of
// EditComment.
func (s *Service) DeleteComment(ctx context.Context, a Actor, mayEditOthers bool, commentID string) error {
	return s.db.Tx(ctx, func(c *store.Conn) error {
		m, err := ownComment(ctx, c, a, mayEditOthers, commentID)
		if err != nil {
			return err
		}
		return c.DeleteComment(ctx, m.GroupID, m.ID)
	})
}

func ownComment(ctx context.Context, c *store.Conn, a Actor, mayEditOthers bool, commentID string) (store.Comment, error) {
	m, err := c.LockComment(ctx, commentID)
	if err != nil {
		return m, err
	}
	if m.AuthorID != a.MemberID && !mayEditOthers {
		return m, problem.New("forbidden", "only the comment's author or an admin may change it")
	}
	return m, nil
}
