package store

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"
)

// Batch is one accepted ingest batch waiting in the durable queue.
type Batch struct {
	ID         int64
	ProjectID  string
	ReceivedAt time.Time
	EventCount int
	// Payload holds the batch's normalised events, encoded by package ingest.
	Payload    []byte
	LeaseUntil time.Time
	Attempts   int
	// Failures counts processing attempts that failed; FailedAt is set
	// when the batch was set aside, with the last error in LastError.
	Failures  int
	FailedAt  *time.Time
	LastError string
}

// InsertBatches adds batches to the queue. Call it inside a transaction:
// the commit is what makes the batches durable. On PostgreSQL the
// transaction is made to wait for its WAL flush (synchronous_commit=on)
// whatever the server's default, because a 202 promises durability.
func (c *Conn) InsertBatches(ctx context.Context, batches []Batch) error {
	return c.drv.insertBatches(ctx, c, batches)
}

// insertBatch writes one batch with two statements (PostgreSQL: the
// group path's id reservation would be a third round trip).
func (c *Conn) insertBatch(ctx context.Context, b *Batch) error {
	err := c.queryRow(ctx, `INSERT INTO ingest_batches (project_id, received_at, event_count, byte_size) VALUES (?, ?, ?, ?) RETURNING id`,
		b.ProjectID, ms(b.ReceivedAt), b.EventCount, len(b.Payload)).Scan(&b.ID)
	if err != nil {
		return fmt.Errorf("store: insert batch: %w", translate(err))
	}
	if _, err := c.exec(ctx, `INSERT INTO ingest_payloads (batch_id, payload) VALUES (?, ?)`, b.ID, b.Payload); err != nil {
		return fmt.Errorf("store: insert batch payload: %w", err)
	}
	return nil
}

// sqliteBatchRows caps the rows of one multi-row INSERT on SQLite, which
// keeps the statement texts the cache prepares few.
const sqliteBatchRows = 32

// insertBatchesSQLite writes batches with one multi-row statement for the
// rows and one for the payloads, instead of two statements per batch: with
// one event per request (Sentry SDKs), a group commit carries dozens of
// batches. The rows' ids are consecutive, ending at the last insert id:
// ingest_batches' AUTOINCREMENT gives each row the next id, and the writer
// is alone in its transaction.
func (c *Conn) insertBatchesSQLite(ctx context.Context, batches []Batch) error {
	args := make([]any, 0, 4*len(batches))
	for i := range batches {
		b := &batches[i]
		args = append(args, b.ProjectID, ms(b.ReceivedAt), b.EventCount, len(b.Payload))
	}
	res, err := c.exec(ctx, `INSERT INTO ingest_batches (project_id, received_at, event_count, byte_size) VALUES `+tuples(len(batches), "(?, ?, ?, ?)"), args...)
	if err != nil {
		return fmt.Errorf("store: insert batches: %w", err)
	}
	last, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("store: insert batches: %w", err)
	}
	args = args[:0]
	for i := range batches {
		b := &batches[i]
		b.ID = last - int64(len(batches)-1-i)
		args = append(args, b.ID, b.Payload)
	}
	if _, err := c.exec(ctx, `INSERT INTO ingest_payloads (batch_id, payload) VALUES `+tuples(len(batches), "(?, ?)"), args...); err != nil {
		return fmt.Errorf("store: insert batch payloads: %w", err)
	}
	return nil
}

// insertBatchesPostgres writes a group of batches in three round trips
// instead of two per batch: it reserves their ids, then inserts the rows and
// the payloads with one multi-row statement each.
func (c *Conn) insertBatchesPostgres(ctx context.Context, batches []Batch) error {
	rows, err := c.query(ctx, `SELECT nextval(pg_get_serial_sequence('ingest_batches', 'id')) FROM generate_series(1, ?)`, len(batches))
	if err != nil {
		return fmt.Errorf("store: reserve batch ids: %w", err)
	}
	ids, err := collect(rows, scanOne[int64])
	if err != nil || len(ids) != len(batches) {
		return fmt.Errorf("store: reserve batch ids: got %d: %w", len(ids), err)
	}
	q := `INSERT INTO ingest_batches (id, project_id, received_at, event_count, byte_size) VALUES ` + tuples(len(batches), "(?, ?, ?, ?, ?)")
	qp := `INSERT INTO ingest_payloads (batch_id, payload) VALUES ` + tuples(len(batches), "(?, ?)")
	args := make([]any, 0, 5*len(batches))
	pargs := make([]any, 0, 2*len(batches))
	for i := range batches {
		b := &batches[i]
		b.ID = ids[i]
		args = append(args, b.ID, b.ProjectID, ms(b.ReceivedAt), b.EventCount, len(b.Payload))
		pargs = append(pargs, b.ID, b.Payload)
	}
	if _, err := c.exec(ctx, q, args...); err != nil {
		return fmt.Errorf("store: insert batches: %w", err)
	}
	if _, err := c.exec(ctx, qp, pargs...); err != nil {
		return fmt.Errorf("store: insert batch payloads: %w", err)
	}
	return nil
}

// Backlog reports the unprocessed batches (not those set aside): how many,
// their events and bytes.
func (c *Conn) Backlog(ctx context.Context) (batches, events, bytes int64, err error) {
	err = c.queryRow(ctx, `SELECT COUNT(*), COALESCE(SUM(event_count), 0), COALESCE(SUM(byte_size), 0) FROM ingest_batches WHERE failed_at IS NULL`).Scan(&batches, &events, &bytes)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("store: backlog: %w", err)
	}
	return batches, events, bytes, nil
}

// ProjectBacklog is one project's unprocessed batches.
type ProjectBacklog struct {
	ProjectID              string
	Batches, Events, Bytes int64
}

// BacklogByProject reports the unprocessed batches (not those set aside)
// of every project that has some.
func (c *Conn) BacklogByProject(ctx context.Context) ([]ProjectBacklog, error) {
	rows, err := c.query(ctx, `SELECT project_id, COUNT(*), COALESCE(SUM(event_count), 0), COALESCE(SUM(byte_size), 0)
		FROM ingest_batches WHERE failed_at IS NULL GROUP BY project_id`)
	if err != nil {
		return nil, fmt.Errorf("store: backlog by project: %w", err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (ProjectBacklog, error) {
		var b ProjectBacklog
		return b, s.Scan(&b.ProjectID, &b.Batches, &b.Events, &b.Bytes)
	})
}

// OldestBatch returns the receipt time of the oldest unprocessed batch, or
// ErrNotFound when the queue is empty.
func (c *Conn) OldestBatch(ctx context.Context) (time.Time, error) {
	var v int64
	if err := c.queryRow(ctx, `SELECT received_at FROM ingest_batches WHERE failed_at IS NULL ORDER BY id LIMIT 1`).Scan(&v); err != nil {
		return time.Time{}, fmt.Errorf("store: oldest batch: %w", translate(err))
	}
	return fromMS(v), nil
}

// ListBatches returns queued batches in order, for tests and tools.
func (c *Conn) ListBatches(ctx context.Context, projectID string) ([]Batch, error) {
	rows, err := c.query(ctx, `SELECT b.id, b.project_id, b.received_at, b.event_count, p.payload, b.lease_until, b.attempts
		FROM ingest_batches b JOIN ingest_payloads p ON p.batch_id = b.id WHERE b.project_id = ? ORDER BY b.id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: list batches: %w", err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (Batch, error) {
		var b Batch
		var r, l int64
		err := s.Scan(&b.ID, &b.ProjectID, &r, &b.EventCount, &b.Payload, &l, &b.Attempts)
		b.ReceivedAt, b.LeaseUntil = fromMS(r), fromMS(l)
		return b, err
	})
}

// DurabilitySetting reports the setting that makes a commit wait for the
// disk, as seen inside a queue transaction: SQLite's synchronous level ("2"
// is FULL) or PostgreSQL's synchronous_commit ("on"). Tests assert it,
// because a crash test alone cannot prove an fsync.
func (db *DB) DurabilitySetting(ctx context.Context) (string, error) {
	var v string
	err := db.Tx(ctx, func(c *Conn) error {
		if err := c.drv.durableCommit(ctx, c); err != nil {
			return err
		}
		return c.queryRow(ctx, c.drv.durabilityQuery()).Scan(&v)
	})
	return v, err
}

// ErrLeaseLost means a batch's lease passed to another worker (or the batch
// is gone): the caller must drop its work on the batch.
var ErrLeaseLost = errors.New("store: batch lease lost")

// MaxProjectClaims is how many claims may hold one project's batches at
// once across the installation (PostgreSQL): one applying, one preparing.
const MaxProjectClaims = 2

// ClaimBatches leases up to n of the oldest batches that are not leased (or
// whose lease has expired, because their worker died) until leaseUntil.
//
// On PostgreSQL, several workers of several processes claim from one
// queue: claims are serialised (an advisory lock held to the end of c's
// transaction, when there is one) and concurrent workers skip each other's
// rows (FOR UPDATE SKIP LOCKED). A claim takes the batches of one project
// only, the oldest project that no worker holds first; and a project is
// held by at most MaxProjectClaims claims at once, cluster-wide. A
// project's batches are applied one claim at a time anyway (they update
// the same error groups, under the project's lock), so a claim more than
// one applying and one preparing only waits, and took CPU from the one
// applying: a second worker process made a one-project load 20–35 % slower
// (docs/performance.md, "Scaling out"). Workers without an eligible project
// find nothing and wait for the next wake-up. On SQLite (one process, one
// writer) a claim takes the oldest batches whatever their project.
//
// The two algorithms are the drivers' (sqlite_claims.go,
// postgres_claims.go); the batches come back in queue order, with their
// payloads.
func (c *Conn) ClaimBatches(ctx context.Context, now, leaseUntil time.Time, n int) ([]Batch, error) {
	out, err := c.ClaimBatchRows(ctx, now, leaseUntil, n)
	if err != nil || len(out) == 0 {
		return out, err
	}
	return c.LoadPayloads(ctx, out)
}

// ClaimBatchRows is ClaimBatches without the payloads: LoadPayloads reads
// them after the claim has committed, on the read pool, so that the claim
// holds SQLite's writer only for the small queue rows and not while
// megabytes of payloads are read (issue 30, docs/decisions.md).
func (c *Conn) ClaimBatchRows(ctx context.Context, now, leaseUntil time.Time, n int) ([]Batch, error) {
	return c.drv.claimBatches(ctx, c, now, leaseUntil, n)
}

// LockProjects takes, on PostgreSQL, an advisory lock per project until the
// end of c's transaction, in one order: the transactions that apply
// batches of one project run one after the other instead of interleaving
// their row locks on the same error groups, and a worker stopped in the
// middle of one holds up only that project (and only until its session's
// idle timeout).
func (c *Conn) LockProjects(ctx context.Context, projectIDs []string) error {
	if c.tx == nil || !c.drv.sharedByProcesses() {
		return nil
	}
	ids := append([]string(nil), projectIDs...)
	sort.Strings(ids)
	for i, id := range ids {
		if i > 0 && id == ids[i-1] {
			continue
		}
		if err := c.drv.lockName(ctx, c, 2, id); err != nil {
			return fmt.Errorf("store: lock project %s: %w", id, err)
		}
	}
	return nil
}

// ReleaseBatches gives up leases the caller holds, so that the batches are
// claimed again at once (their processing met a passing failure).
func (c *Conn) ReleaseBatches(ctx context.Context, batches []Batch) error {
	for _, b := range batches {
		if _, err := c.exec(ctx, `UPDATE ingest_batches SET lease_until = 0 WHERE id = ? AND lease_until = ?`, b.ID, ms(b.LeaseUntil)); err != nil {
			return fmt.Errorf("store: release batch %d: %w", b.ID, err)
		}
	}
	return nil
}

// LoadPayloads reads the payloads of claimed batches, kept in a table of
// their own so that claiming rewrites only the small queue rows. It
// returns the batches with their payloads, in order, leaving out any whose
// payload is gone: another worker finished it after this one's lease ended.
func (c *Conn) LoadPayloads(ctx context.Context, batches []Batch) ([]Batch, error) {
	q := `SELECT batch_id, payload FROM ingest_payloads WHERE batch_id IN (` + tuples(len(batches), "?") + `)`
	args := make([]any, len(batches))
	index := make(map[int64]int, len(batches))
	for i, b := range batches {
		args[i], index[b.ID] = b.ID, i
	}
	rows, err := c.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: batch payloads: %w", err)
	}
	defer rows.Close()
	found := make([]bool, len(batches))
	for rows.Next() {
		var id int64
		var p []byte
		if err := rows.Scan(&id, &p); err != nil {
			return nil, fmt.Errorf("store: batch payloads: %w", err)
		}
		batches[index[id]].Payload, found[index[id]] = p, true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: batch payloads: %w", translate(err))
	}
	out := batches[:0:0]
	for i, b := range batches {
		if found[i] {
			out = append(out, b)
		}
	}
	return out, nil
}

// ClaimBatch leases the oldest unleased batch; ErrNotFound when there is none.
func (c *Conn) ClaimBatch(ctx context.Context, now, leaseUntil time.Time) (Batch, error) {
	bs, err := c.ClaimBatches(ctx, now, leaseUntil, 1)
	if err != nil {
		return Batch{}, err
	}
	if len(bs) == 0 {
		return Batch{}, fmt.Errorf("store: claim batch: %w", ErrNotFound)
	}
	return bs[0], nil
}

// FinishBatch deletes a processed batch inside the transaction that stores
// its results, provided the caller still holds its lease; otherwise it
// returns ErrLeaseLost and the transaction must be rolled back.
func (c *Conn) FinishBatch(ctx context.Context, b Batch) error {
	return c.FinishBatches(ctx, []Batch{b})
}

// finishRows is how many batches one statement of FinishBatches deletes: a
// shorter list repeats its last id, so that every statement has the same
// text (one prepared statement) whatever the part's size.
const finishRows = 32

// FinishBatches is FinishBatch for several batches, with one statement for
// up to finishRows of them rather than one each: a part of one-event
// batches (Sentry envelopes) finishes hundreds at a time. ErrLeaseLost
// when any lease is no longer held.
func (c *Conn) FinishBatches(ctx context.Context, batches []Batch) error {
	q := `DELETE FROM ingest_batches WHERE id IN (` + tuples(finishRows, "?") + `) AND lease_until = ?`
	args := make([]any, finishRows+1)
	for len(batches) > 0 {
		// One statement's batches share a lease: those of one claim do.
		n := 1
		for n < len(batches) && n < finishRows && batches[n].LeaseUntil.Equal(batches[0].LeaseUntil) {
			n++
		}
		for i := range finishRows {
			args[i] = batches[min(i, n-1)].ID
		}
		args[finishRows] = ms(batches[0].LeaseUntil)
		res, err := c.exec(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("store: finish batches: %w", err)
		}
		done, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("store: finish batches: %w", err)
		}
		// Counted only when short: a part's batches are distinct, so all
		// deleted is the common answer.
		if done != int64(n) && done != int64(distinctIDs(batches[:n])) {
			return ErrLeaseLost
		}
		batches = batches[n:]
	}
	return nil
}

// distinctIDs counts the distinct ids of one statement's batches (the
// statement deletes a repeated id once). The batches of a part are
// distinct: a repeat in a later statement would read as a lost lease.
func distinctIDs(batches []Batch) int {
	seen := make(map[int64]struct{}, len(batches))
	for _, b := range batches {
		seen[b.ID] = struct{}{}
	}
	return len(seen)
}

// ExtendLease moves a held lease forward.
func (c *Conn) ExtendLease(ctx context.Context, b *Batch, until time.Time) error {
	err := c.execOne(ctx, `UPDATE ingest_batches SET lease_until = ? WHERE id = ? AND lease_until = ?`, ms(until), b.ID, ms(b.LeaseUntil))
	if errors.Is(err, ErrNotFound) {
		return ErrLeaseLost
	}
	if err == nil {
		b.LeaseUntil = until.UTC().Truncate(time.Millisecond)
	}
	return err
}

// ReleaseLeases frees every lease. Only for a store no other process uses
// (the embedded SQLite database): at start, batches leased by a worker that
// died with the previous process are taken up at once.
func (c *Conn) ReleaseLeases(ctx context.Context) (int64, error) {
	res, err := c.exec(ctx, `UPDATE ingest_batches SET lease_until = 0 WHERE lease_until > 0`)
	if err != nil {
		return 0, fmt.Errorf("store: release leases: %w", err)
	}
	return res.RowsAffected()
}
