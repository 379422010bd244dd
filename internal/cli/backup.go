package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

type backupCmd struct {
	File string `arg:"" name:"file" type:"path" help:"Where to write the copy: a file that does not exist yet, or a directory to write errata-<UTC time>.db in."`
}

// Run copies the SQLite database. It neither creates nor migrates it: a
// backup taken with a newer binary than the server's must not upgrade the
// database under the running server. A directory as the destination lets a
// timer or cron job name each copy without a shell.
func (c *backupCmd) Run(e *env) error {
	if st, err := os.Stat(c.File); err == nil && st.IsDir() {
		c.File = filepath.Join(c.File, "errata-"+time.Now().UTC().Format("20060102T150405Z")+".db")
	}
	info, err := store.Backup(e.ctx, storeOptions(e.root), c.File)
	if errors.Is(err, store.ErrBackupUnsupported) {
		return usageError{errors.New("backup copies the embedded SQLite database; back PostgreSQL up with pg_dump (see docs/operations.md, \"Backups\")")}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d bytes (%s), schema version %d (%s)\n",
		c.File, info.Size, humanBytes(info.Size), info.Schema.Version, info.Schema.Dialect)
	return nil
}

// storeOptions selects the configured database.
func storeOptions(r *root) store.Options {
	return store.Options{URL: r.DatabaseURL, DataDir: r.DataDir}
}

// schemaLine says where the configured database's migrations stand, or
// why it cannot tell: `errata version` answers even with no database.
func schemaLine(ctx context.Context, r *root) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := store.ReadSchema(ctx, storeOptions(r))
	if err != nil {
		// One line, whatever the driver says (pgx lists every address it
		// tried on a line of its own).
		why := strings.Join(strings.Fields(err.Error()), " ")
		why = strings.TrimPrefix(strings.TrimPrefix(why, "store: "), "schema version: ")
		return fmt.Sprintf("schema version: no database (%s); this build migrates to %d", why, s.Latest)
	}
	return describeSchema(s)
}

// describeSchema is a schema version and how it compares with this build's.
func describeSchema(s store.Schema) string {
	switch {
	case s.Version == s.Latest:
		return fmt.Sprintf("schema version %d (%s, up to date)", s.Version, s.Dialect)
	case s.Version > s.Latest:
		return fmt.Sprintf("schema version %d (%s, newer than this build's %d: a newer release migrated it)", s.Version, s.Dialect, s.Latest)
	default:
		return fmt.Sprintf("schema version %d (%s; this build migrates it to %d when it starts)", s.Version, s.Dialect, s.Latest)
	}
}

// humanBytes is n in binary units, for people.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
