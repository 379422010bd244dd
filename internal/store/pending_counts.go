package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"time"

	"github.com/errata-dev/errata/internal/wire"
)

// PendingBuckets is how many buckets of groups the pending counts are kept
// in: FoldPendingCounts folds one bucket a transaction, so that a fold
// holds the writer for a sixteenth of what it folds.
const PendingBuckets = 16

// foldRows is the most pending rows one fold transaction takes.
const foldRows = 256

// FoldCounts is the default bound of what one fold transaction writes
// (FoldPendingCountsUpTo's limit): it takes no further pending row once the
// rows it took hold this many counts and ids, so that a fold holds the
// writer for tens of milliseconds, not hundreds, whatever the load put in
// the rows (issue 30). With varied values (loadgen --distinct 1000) 256
// rows held up to 226 ms of the SQLite writer, 8,192 counts up to 205 ms,
// 2,048 none over 100 ms (docs/decisions.md, "Value counts under a
// backlog"). Processing sizes its folds from what it measures, from here.
const FoldCounts = 2048

// pendingBucket is the bucket of a group's pending counts.
func pendingBucket(groupID string) int {
	h := fnv.New32a()
	h.Write([]byte(groupID))
	return int(h.Sum32() % PendingBuckets)
}

// AddPendingCounts records value counts and event ids to be added to their
// groups later, by FoldPendingCounts: one row a bucket of groups, in the
// caller's transaction, so that they are as durable as the events they
// count. Processing does this while it has a backlog: a second of parts
// folded at once writes each (group, key, value) once rather than once a
// part.
func (c *Conn) AddPendingCounts(ctx context.Context, counts []FacetCount, refs []EventRef) error {
	if len(counts) == 0 && len(refs) == 0 {
		return nil
	}
	var byBucket [PendingBuckets]pendingSet
	for _, fc := range counts {
		s := &byBucket[pendingBucket(fc.GroupID)]
		s.counts = append(s.counts, fc)
	}
	for _, r := range refs {
		s := &byBucket[pendingBucket(r.GroupID)]
		s.refs = append(s.refs, r)
	}
	args := make([]any, 0, 2*PendingBuckets)
	for b := range byBucket {
		if s := &byBucket[b]; len(s.counts) > 0 || len(s.refs) > 0 {
			args = append(args, b, s.encode())
		}
	}
	if _, err := c.exec(ctx, `INSERT INTO pending_counts (bucket, data) VALUES `+tuples(len(args)/2, "(?, ?)"), args...); err != nil {
		return fmt.Errorf("store: pending counts: %w", err)
	}
	return nil
}

// HasPendingCounts reports whether any counts wait to be folded.
func (c *Conn) HasPendingCounts(ctx context.Context) (bool, error) {
	var n int
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM pending_counts LIMIT 1) x`).Scan(&n); err != nil {
		return false, fmt.Errorf("store: pending counts: %w", err)
	}
	return n > 0, nil
}

// FoldPendingCounts is FoldPendingCountsUpTo with the limit FoldCounts,
// reporting the rows folded.
func (c *Conn) FoldPendingCounts(ctx context.Context, bucket int) (int, error) {
	rows, _, err := c.FoldPendingCountsUpTo(ctx, bucket, FoldCounts)
	return rows, err
}

// FoldPendingCountsUpTo adds the oldest pending counts of a bucket (at
// most foldRows rows, and no further row once they hold limit counts and
// ids) to their groups, as AddFacets and AddEventRefs, and deletes them,
// all in c's transaction; it returns how many rows it folded and the
// counts and ids they held. The rows are locked first, so
// that two processes folding one bucket add each row once. Counts of a
// group deleted since are dropped, and so is a row that cannot be read
// (logged), which would otherwise stop its bucket.
func (c *Conn) FoldPendingCountsUpTo(ctx context.Context, bucket, limit int) (rows, counts int, err error) {
	f, err := c.readPending(ctx, bucket, limit, c.drv.rowLock())
	if err != nil || f.Rows == 0 {
		return 0, 0, err
	}
	if err := c.addPending(ctx, f); err != nil {
		return 0, 0, err
	}
	if _, err := c.deletePending(ctx, f.ids); err != nil {
		return 0, 0, err
	}
	return f.Rows, f.Counts, nil
}

// PendingFold is a bucket's oldest pending rows read, decoded and summed
// outside the transaction that folds them (ReadPendingFold, then
// ApplyPendingFold), so that the writer is held for the writes only.
type PendingFold struct {
	// Rows and Counts are how many pending rows it took and the counts
	// and ids they held.
	Rows, Counts int
	ids          []any
	set          pendingSet
}

// ReadPendingFold reads what FoldPendingCountsUpTo would fold, without
// locking or writing: c need not be a transaction.
func (c *Conn) ReadPendingFold(ctx context.Context, bucket, limit int) (*PendingFold, error) {
	return c.readPending(ctx, bucket, limit, "")
}

// ErrPendingMoved is ApplyPendingFold's answer when a row it read was
// folded meanwhile (by another process, or a merge's foldGroups): its
// transaction must roll back, and the fold read again.
var ErrPendingMoved = errors.New("store: pending counts folded meanwhile")

// ApplyPendingFold deletes f's rows and adds their counts and ids to their
// groups, in c's transaction, as FoldPendingCountsUpTo does. The rows are
// deleted first: when one is gone, it answers ErrPendingMoved having added
// nothing.
func (c *Conn) ApplyPendingFold(ctx context.Context, f *PendingFold) error {
	deleted, err := c.deletePending(ctx, f.ids)
	if err != nil {
		return err
	}
	if deleted < len(f.ids) {
		return ErrPendingMoved
	}
	return c.addPending(ctx, f)
}

// readPending reads a bucket's oldest pending rows, at most foldRows and
// none past the one that reaches limit counts and ids, with lock appended
// to the statement, and sums them.
func (c *Conn) readPending(ctx context.Context, bucket, limit int, lock string) (*PendingFold, error) {
	found, err := c.query(ctx, `SELECT id, data FROM pending_counts WHERE bucket = ? ORDER BY id LIMIT ?`+lock, bucket, foldRows)
	if err != nil {
		return nil, fmt.Errorf("store: fold counts: %w", err)
	}
	type pendingRow struct {
		id   int64
		data []byte
	}
	pending, err := collect(found, func(s interface{ Scan(...any) error }) (pendingRow, error) {
		var r pendingRow
		return r, s.Scan(&r.id, &r.data)
	})
	if err != nil {
		return nil, fmt.Errorf("store: fold counts: %w", err)
	}
	f := &PendingFold{ids: make([]any, 0, len(pending))}
	// Each row is decoded into row, then its counts summed into sum: the
	// rows' counts are never all held at once (growing one slice of them
	// was half of the reading's CPU).
	var row pendingSet
	var sum countSum
	for _, r := range pending {
		if f.Counts >= limit {
			break // the next transaction takes the rest
		}
		f.ids = append(f.ids, r.id)
		row.counts, row.refs = row.counts[:0], row.refs[:0]
		if err := row.decode(r.data); err != nil {
			// A row this version cannot read would stop its bucket for
			// good; its counts are derived data, so it is dropped, loudly.
			slog.Default().Error("dropping pending value counts that cannot be read", "row", r.id, "bucket", bucket, "err", err)
			continue
		}
		sum.add(row.counts)
		f.set.refs = append(f.set.refs, row.refs...)
		f.Counts += len(row.counts) + len(row.refs)
	}
	f.Rows, f.set.counts = len(f.ids), sum.out
	return f, nil
}

// addPending adds f's counts and ids to those of their groups that still
// exist.
func (c *Conn) addPending(ctx context.Context, f *PendingFold) error {
	live, err := c.liveGroups(ctx, f.set.groups())
	if err != nil {
		return err
	}
	if err := c.AddFacets(ctx, ofLive(f.set.counts, live, func(fc FacetCount) string { return fc.GroupID })); err != nil {
		return err
	}
	return c.AddEventRefs(ctx, ofLive(f.set.refs, live, func(r EventRef) string { return r.GroupID }))
}

// deletePending deletes the pending rows ids and returns how many of them
// were still there.
func (c *Conn) deletePending(ctx context.Context, ids []any) (int, error) {
	deleted := 0
	for start, n := 0, 0; start < len(ids); start += n {
		n = chunkRows(len(ids) - start)
		res, err := c.exec(ctx, `DELETE FROM pending_counts WHERE id IN (`+tuples(n, "?")+`)`, ids[start:start+n]...)
		if err != nil {
			return 0, fmt.Errorf("store: fold counts: %w", err)
		}
		k, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("store: fold counts: %w", err)
		}
		deleted += int(k)
	}
	return deleted, nil
}

// foldGroups folds every pending count of the groups' buckets, for a
// change (a merge) that must see all of a group's counts.
func (c *Conn) foldGroups(ctx context.Context, groupIDs ...string) error {
	done := map[int]bool{}
	for _, g := range groupIDs {
		b := pendingBucket(g)
		for !done[b] {
			n, err := c.FoldPendingCounts(ctx, b)
			if err != nil {
				return err
			}
			done[b] = n == 0
		}
	}
	return nil
}

// liveGroups reports which of ids name a group that still exists.
func (c *Conn) liveGroups(ctx context.Context, ids []any) (map[string]bool, error) {
	live := make(map[string]bool, len(ids))
	for start, n := 0, 0; start < len(ids); start += n {
		n = chunkRows(len(ids) - start)
		rows, err := c.query(ctx, `SELECT id FROM error_groups WHERE id IN (`+tuples(n, "?")+`)`, ids[start:start+n]...)
		if err != nil {
			return nil, fmt.Errorf("store: fold counts: %w", err)
		}
		found, err := collect(rows, scanOne[string])
		if err != nil {
			return nil, fmt.Errorf("store: fold counts: %w", err)
		}
		for _, id := range found {
			live[id] = true
		}
	}
	return live, nil
}

// pendingSet is the counts and ids of one pending row, or of several
// decoded into one.
type pendingSet struct {
	counts []FacetCount
	refs   []EventRef
}

// pendingVersion is the first byte of an encoded set.
const pendingVersion = 1

// encode writes the set compactly: each distinct string once, then the
// counts and ids as indexes into those strings.
func (s *pendingSet) encode() []byte {
	index := make(map[string]uint64, len(s.counts)+len(s.refs))
	strs := make([]string, 0, len(s.counts)+len(s.refs))
	// Each field remembers its last string: a group's counts come
	// together, and ids share their kind and project, so most look-ups
	// of the index are skipped.
	type last struct {
		v   string
		i   uint64
		set bool
	}
	var lasts [7]last
	ref := func(field int, v string) uint64 {
		if l := &lasts[field]; l.set && l.v == v {
			return l.i
		}
		i, ok := index[v]
		if !ok {
			i = uint64(len(strs))
			index[v] = i
			strs = append(strs, v)
		}
		lasts[field] = last{v, i, true}
		return i
	}
	body := make([]byte, 0, 4*len(s.counts)+6*len(s.refs)+16)
	body = binary.AppendUvarint(body, uint64(len(s.counts)))
	for _, fc := range s.counts {
		for f, v := range [...]string{fc.GroupID, fc.Key, fc.Value} {
			body = binary.AppendUvarint(body, ref(f, v))
		}
		body = binary.AppendVarint(body, fc.N)
	}
	body = binary.AppendUvarint(body, uint64(len(s.refs)))
	for _, r := range s.refs {
		for f, v := range [...]string{r.Kind, r.Ref, r.ProjectID, r.GroupID} {
			body = binary.AppendUvarint(body, ref(3+f, v))
		}
		body = binary.AppendVarint(body, r.LastSeen.UnixMilli())
	}
	size := len(body) + 12
	for _, v := range strs {
		size += len(v) + 2
	}
	out := make([]byte, 0, size)
	out = append(out, pendingVersion)
	out = binary.AppendUvarint(out, uint64(len(strs)))
	for _, v := range strs {
		out = binary.AppendUvarint(out, uint64(len(v)))
		out = append(out, v...)
	}
	return append(out, body...)
}

var errPendingData = errors.New("malformed pending counts")

// decode appends the counts and ids data encodes to s.
func (s *pendingSet) decode(data []byte) error {
	if len(data) == 0 || data[0] != pendingVersion {
		return errPendingData
	}
	r := wire.Reader{B: data[1:], Bad: errPendingData}
	n := r.Uvarint()
	if n > uint64(len(r.B)) { // each string takes at least a byte
		return errPendingData
	}
	// The table's strings share one allocation, each a part of it.
	strs := make([]string, n)
	table := string(r.B)
	for i := range strs {
		b := r.Bytes()
		at := len(table) - len(r.B) - len(b)
		strs[i] = table[at : at+len(b)]
	}
	str := func() string {
		i := r.Uvarint()
		if i >= uint64(len(strs)) {
			r.Err = errPendingData
			return ""
		}
		return strs[i]
	}
	// Each count takes at least 4 bytes, each id 5: grow once.
	n = r.Uvarint()
	s.counts = slices.Grow(s.counts, int(min(n, uint64(len(r.B)/4))))
	for ; n > 0 && r.Err == nil; n-- {
		fc := FacetCount{GroupID: str(), Key: str(), Value: str()}
		fc.N = r.Varint()
		s.counts = append(s.counts, fc)
	}
	n = r.Uvarint()
	s.refs = slices.Grow(s.refs, int(min(n, uint64(len(r.B)/5))))
	for ; n > 0 && r.Err == nil; n-- {
		e := EventRef{Kind: str(), Ref: str(), ProjectID: str(), GroupID: str()}
		e.LastSeen = time.UnixMilli(r.Varint()).UTC()
		s.refs = append(s.refs, e)
	}
	return r.Err
}

// groups returns the distinct groups of s.
func (s *pendingSet) groups() []any {
	seen := map[string]bool{}
	var out []any
	add := func(g string) {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	for _, fc := range s.counts {
		add(fc.GroupID)
	}
	for _, r := range s.refs {
		add(r.GroupID)
	}
	return out
}

// countSum sums the counts of each (group, key, value), in the order
// each was first added.
type countSum struct {
	at  map[facetGKV]int // position in out
	out []FacetCount
}

func (s *countSum) add(counts []FacetCount) {
	if s.at == nil {
		s.at = make(map[facetGKV]int, len(counts))
	}
	for _, fc := range counts {
		kv := facetGKV{fc.GroupID, fc.Key, fc.Value}
		if i, ok := s.at[kv]; ok {
			s.out[i].N += fc.N
			continue
		}
		s.at[kv] = len(s.out)
		s.out = append(s.out, fc)
	}
}

// ofLive returns the items whose group (as group reads it) is live.
func ofLive[T any](items []T, live map[string]bool, group func(T) string) []T {
	out := items[:0:0]
	for _, it := range items {
		if live[group(it)] {
			out = append(out, it)
		}
	}
	return out
}
