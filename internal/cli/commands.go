package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/app"
	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

type serveCmd struct {
	config.Serve
}

func (c *serveCmd) Run(e *env) error {
	start := time.Now()
	if err := c.Serve.Validate(); err != nil {
		return usageError{err}
	}
	if os.Getenv("GOMEMLIMIT") == "" && c.MemoryLimit > 0 {
		// A soft limit: the garbage collector works harder near it rather
		// than letting the heap double, and it is exceeded rather than failing.
		debug.SetMemoryLimit(int64(c.MemoryLimit))
	}
	a, err := app.New(e.ctx, app.Options{Store: e.root.Store, Serve: c.Serve, Log: e.log})
	if err != nil {
		return err
	}
	// Said once the addresses are bound: a busy port stops the server
	// before it, with the line naming the setting.
	return a.Run(e.ctx, func(net.Addr) {
		e.log.Info("errata started", "version", Version, "startup_ms", time.Since(start).Milliseconds())
	})
}

type migrateCmd struct{}

func (migrateCmd) Run(e *env) error {
	db, err := app.OpenStore(e.ctx, e.root.Store, e.log)
	if err != nil {
		return err
	}
	defer db.Close()
	s, err := db.Schema(e.ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "database %s\n", describeSchema(s))
	return nil
}

type versionCmd struct{}

// Run prints the build, then where the configured database's migrations
// stand; an unreachable database is said, not an error.
func (versionCmd) Run(e *env) error {
	fmt.Fprintf(e.stdout, "errata %s (%s, %s/%s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintln(e.stdout, schemaLine(e.ctx, e.root))
	return nil
}

type orgCmd struct {
	SetPlan   setPlanCmd   `cmd:"" name:"set-plan" help:"Change an organization's plan (also while the server runs)."`
	LiftRules liftRulesCmd `cmd:"" name:"lift-sign-in-rules" help:"Turn an organization's require_2fa and sso_required off: the way back in when its owners are locked out."`
}

type liftRulesCmd struct {
	OrgID string `arg:"" name:"org_id" help:"org_ identifier."`
}

func (c *liftRulesCmd) Run(e *env) error {
	db, err := openExisting(e)
	if err != nil {
		return err
	}
	defer db.Close()
	off := false
	o, err := org.New(db, org.Options{}).Update(e.ctx, c.OrgID, org.Caller{}, org.Settings{Require2FA: &off, SSORequired: &off})
	if err != nil {
		return fmt.Errorf("lift the sign-in rules of %s: %w", c.OrgID, err)
	}
	fmt.Fprintf(e.stdout, "%s (%s) no longer requires two-factor sign-in or single sign-on\n", o.ID, o.Name)
	return nil
}

type setPlanCmd struct {
	OrgID string `arg:"" name:"org_id" help:"org_ identifier."`
	Plan  string `arg:"" name:"plan" enum:"free,team" help:"free or team."`
}

func (c *setPlanCmd) Run(e *env) error {
	db, err := openExisting(e)
	if err != nil {
		return err
	}
	defer db.Close()
	o, err := org.New(db, org.Options{}).SetPlan(e.ctx, c.OrgID, c.Plan)
	if err != nil {
		return fmt.Errorf("set plan of %s: %w", c.OrgID, err)
	}
	fmt.Fprintf(e.stdout, "%s (%s) is now on the %s plan\n", o.ID, o.Name, o.Plan)
	return nil
}

type userCmd struct {
	Create userCreateCmd `cmd:"" help:"Create a user (for scripted bootstrap)."`
}

type userCreateCmd struct {
	Email    string `required:"" help:"Email address."`
	Password string `required:"" env:"ERRATA_USER_PASSWORD" help:"Password, 8 to 256 characters (or ERRATA_USER_PASSWORD)."`
	Name     string `help:"Display name."`
}

func (c *userCreateCmd) Run(e *env) error {
	// A bootstrap command: it makes and migrates a database that is not
	// there yet, but does not migrate a server's older schema.
	db, err := store.Open(e.ctx, storeOptions(e.root))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := checkSchema(e.ctx, db, true); err != nil {
		return err
	}
	if n, err := db.Migrate(e.ctx); err != nil {
		return err
	} else if n > 0 {
		e.log.Info("database migrated", "dialect", db.Dialect(), "migrations", n)
	}
	orgs := org.New(db, org.Options{})
	u, err := auth.New(db, orgs, auth.Options{Logger: e.log}).CreateUser(e.ctx, c.Email, c.Password, c.Name)
	var p *problem.Problem
	if errors.As(err, &p) && p.Code() == "validation-failed" {
		// The API's field names are the command's flags: "password: …" is
		// "--password (ERRATA_USER_PASSWORD): …", as every bad setting.
		for _, f := range []string{"email", "password", "name"} {
			if rest, ok := strings.CutPrefix(p.Detail, f+": "); ok {
				return usageError{fmt.Errorf("--%s: %s", f, rest)}
			}
		}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "created user %s (%s)\n", u.ID, u.Email)
	return nil
}
