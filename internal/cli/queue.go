package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

type queueCmd struct {
	Failed queueFailedCmd `cmd:"" help:"List the ingest batches set aside after failing to process five times."`
	Retry  queueRetryCmd  `cmd:"" help:"Put set-aside batches back in the queue (also while the server runs)."`
}

type queueFailedCmd struct{}

func (queueFailedCmd) Run(e *env) error {
	db, err := openExisting(e)
	if err != nil {
		return err
	}
	defer db.Close()
	bs, err := db.Read().FailedBatches(e.ctx)
	if err != nil {
		return err
	}
	if len(bs) == 0 {
		fmt.Fprintln(e.stdout, "no batches are set aside")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BATCH\tPROJECT\tEVENTS\tRECEIVED\tSET ASIDE\tFAILURES\tLAST ERROR")
	for _, b := range bs {
		aside := ""
		if b.FailedAt != nil {
			aside = b.FailedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%d\t%s\n", b.ID, b.ProjectID, b.EventCount, b.ReceivedAt.Format(time.RFC3339), aside, b.Failures, firstLine(b.LastError))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d batches set aside; `errata queue retry <batch_id>` or `errata queue retry --all` puts them back\n", len(bs))
	return nil
}

type queueRetryCmd struct {
	BatchIDs []string `arg:"" optional:"" name:"batch_id" help:"Batches to put back (from errata queue failed)."`
	All      bool     `help:"Put back every set-aside batch."`
}

func (c *queueRetryCmd) Run(e *env) error {
	if c.All == (len(c.BatchIDs) > 0) {
		return usageError{errors.New("queue retry: name batch ids or --all (one of them)")}
	}
	ids := make([]int64, 0, len(c.BatchIDs))
	for _, s := range c.BatchIDs {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return usageError{fmt.Errorf("queue retry: %q is not a batch id", s)}
		}
		ids = append(ids, n)
	}
	db, err := openExisting(e)
	if err != nil {
		return err
	}
	defer db.Close()
	n, err := db.Write().RetryBatches(e.ctx, ids)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d batches put back in the queue\n", n)
	return nil
}

// firstLine is s up to its first line break (a panic's stack follows it).
func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i] + " …"
		}
	}
	return s
}

// openExisting opens the configured database for a command that works on
// what a server made (an organization, the queue). Where there is none it
// says so, exit 1, rather than app.OpenStore making an empty one to answer
// "not found" or "no batches" from; and it migrates nothing
// (schemaProblem). The schema is read before opening, which would write to
// an empty or foreign file (WAL mode), and again on the database opened.
func openExisting(e *env) (*store.DB, error) {
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	s, err := store.ReadSchema(ctx, storeOptions(e.root))
	cancel()
	switch {
	case errors.Is(err, store.ErrNotFound): // no SQLite file: opening would make one
		return nil, fmt.Errorf("%s: `errata serve` or `errata migrate` makes it", firstLine(strings.TrimPrefix(err.Error(), "store: ")))
	case err == nil:
		if err := schemaProblem(s, false); err != nil {
			return nil, err
		}
	}
	db, err := store.Open(e.ctx, storeOptions(e.root))
	if err != nil {
		return nil, err
	}
	if err := checkSchema(e.ctx, db, false); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// checkSchema is schemaProblem of db's schema.
func checkSchema(ctx context.Context, db *store.DB, empty bool) error {
	s, err := db.Schema(ctx)
	if err != nil {
		return err
	}
	return schemaProblem(s, empty)
}

// schemaProblem refuses a schema older than this build's: the commands
// that work on a server's data migrate nothing, since `errata migrate`
// upgrades it deliberately, under the servers of the older release
// (docs/operations.md). A newer schema is used as it is, as older servers
// use it; an empty database is refused unless empty is allowed (a
// bootstrap command migrates it).
func schemaProblem(s store.Schema, empty bool) error {
	switch {
	case s.Version == 0 && !empty:
		return errors.New("the database holds no Errata schema yet: `errata serve` or `errata migrate` makes it")
	case s.Version > 0 && s.Version < s.Latest:
		return fmt.Errorf("the database's schema version %d is older than this build's %d: run `errata migrate` first", s.Version, s.Latest)
	}
	return nil
}
