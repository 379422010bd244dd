// Package cli is the errata command line: serve, migrate, backup,
// healthcheck, version, org set-plan, user create, queue and loadgen. Settings come from flags or ERRATA_* variables
// (flags win); a bad one stops the command with one line and exit code 2.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/errata-dev/errata/internal/app"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// Version is set at build time with -ldflags "-X …/cli.Version=v1.2.3".
var Version = "dev"

// ExitUsage is the exit code of a bad flag or setting.
const ExitUsage = 2

type root struct {
	config.Store
	config.Log

	Serve       serveCmd       `cmd:"" help:"Run the server: API, dashboard, OTLP, workers and scheduler."`
	Migrate     migrateCmd     `cmd:"" help:"Apply pending database migrations and exit."`
	Backup      backupCmd      `cmd:"" help:"Write a consistent copy of the SQLite database to a new file (also while the server runs)."`
	Version     versionCmd     `cmd:"" help:"Print the version and the database's schema version."`
	Healthcheck healthcheckCmd `cmd:"" help:"Ask a running server whether it is alive (exit 0) or not (exit 1), for container health checks."`
	Org         orgCmd         `cmd:"" help:"Manage organizations."`
	User        userCmd        `cmd:"" help:"Manage users."`
	Queue       queueCmd       `cmd:"" help:"Inspect and repair the ingest queue."`
	Receive     receiveCmd     `cmd:"" help:"Receive webhook deliveries on this machine and print them (for trying channels out)."`
	Loadgen     loadgenCmd     `cmd:"" help:"Send realistic ingest load and report throughput, latency and refusals; or, with --attack, hostile load to a server on loopback."`
}

// env is what every command runs with.
type env struct {
	ctx    context.Context
	root   *root
	log    *slog.Logger
	stdout io.Writer
}

// usageError marks errors that exit with ExitUsage.
type usageError struct{ error }

// Run runs the command line args and returns the process exit code.
func Run(args []string, stdout, stderr io.Writer) int {
	var r root
	exited := -1
	parser, err := kong.New(&r, kong.Name("errata"),
		kong.Description("Errata: self-hosted error tracking."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exited = code }),
		kong.UsageOnError())
	if err != nil {
		fmt.Fprintln(stderr, "errata:", err)
		return 1
	}
	if len(args) > 0 && args[0] == "help" { // "errata help [command]" is --help
		args = append(append([]string{}, args[1:]...), "--help")
	}
	if !slices.Contains(args, "--help") && !slices.Contains(args, "-h") { // help names every variable
		flagsWinOverEnv(parser.Model.Node, args)
	}
	kctx, err := parser.Parse(args)
	if exited >= 0 {
		return exited // --help
	}
	if err != nil {
		msg := withEnv(parser.Model.Node, err.Error())
		if strings.HasPrefix(msg, "expected one of") || strings.HasPrefix(msg, "unexpected argument") {
			msg += " (errata --help lists the commands)" // no command: where they are listed, on the one line
		}
		fmt.Fprintln(stderr, "errata:", msg)
		return ExitUsage
	}
	cmd := parser.Model.Node
	if sel := kctx.Selected(); sel != nil {
		cmd = sel // a message names the command's flags, not another's of the same name
	}
	if err := r.Store.Validate(); err != nil {
		fmt.Fprintln(stderr, "errata:", withEnv(cmd, err.Error()))
		return ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	e := &env{ctx: ctx, root: &r, log: newLogger(r.Log, stderr), stdout: stdout}
	if err := kctx.Run(e); err != nil {
		var ue usageError
		if errors.As(err, &ue) || errors.Is(err, store.ErrLocation) || errors.Is(err, app.ErrBadAddress) {
			fmt.Fprintln(stderr, "errata:", withEnv(cmd, err.Error()))
			return ExitUsage
		}
		var p *problem.Problem
		if errors.As(err, &p) {
			fmt.Fprintln(stderr, "errata:", p.Detail)
			if p.Code() == "validation-failed" { // a bad flag or argument value
				return ExitUsage
			}
			return 1
		}
		fmt.Fprintln(stderr, "errata:", err)
		return 1
	}
	return 0
}

// flagsWinOverEnv drops the variables of the flags args set: a flag wins
// over its variable (docs/configuration.md), and kong would otherwise
// parse the variable too, and refuse a bad one the flag replaces.
func flagsWinOverEnv(n *kong.Node, args []string) {
	for _, f := range n.Flags {
		if len(f.Tag.Envs) > 0 && setIn(args, f) {
			// The tag's are those parsing reads; f.Envs, which messages
			// name (withEnv), stay.
			f.Tag.Envs = nil
		}
	}
	for _, c := range n.Children {
		flagsWinOverEnv(c, args)
	}
}

// setIn reports whether args give flag f (--name, --name=…, -s).
func setIn(args []string, f *kong.Flag) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--"+f.Name || strings.HasPrefix(a, "--"+f.Name+"=") || f.Short != 0 && a == "-"+string(f.Short) {
			return true
		}
	}
	return false
}

var flagRef = regexp.MustCompile(`--([a-z0-9][a-z0-9-]*)`)

// withEnv adds the environment variable of the first flag msg names, since
// most settings arrive as ERRATA_* variables: "--signup must be one of …"
// becomes "--signup (ERRATA_SIGNUP) must be one of …".
func withEnv(n *kong.Node, msg string) string {
	m := flagRef.FindStringSubmatchIndex(msg)
	if m == nil {
		return msg
	}
	end := m[1]
	if end < len(msg) && msg[end] == '=' { // "missing flags: --password=STRING": after the placeholder
		end += strings.IndexAny(msg[end:]+" ", " ,")
	}
	if envs := flagEnvs(n, msg[m[2]:m[3]]); len(envs) > 0 {
		return msg[:end] + " (" + strings.Join(envs, ", ") + ")" + msg[end:]
	}
	return msg
}

// flagEnvs returns the environment variables of the flag name: of
// command n or the commands above it, or, when n is the root (the command
// line did not parse), of the first flag so named anywhere under it.
func flagEnvs(n *kong.Node, name string) []string {
	if n.Type == kong.ApplicationNode {
		return flagEnvsUnder(n, name)
	}
	for p := n; p != nil; p = p.Parent {
		for _, f := range p.Flags {
			if f.Name == name {
				return f.Envs
			}
		}
	}
	return nil
}

// flagEnvsUnder returns the environment variables of the first flag name
// anywhere under n.
func flagEnvsUnder(n *kong.Node, name string) []string {
	for _, f := range n.Flags {
		if f.Name == name {
			return f.Envs
		}
	}
	for _, c := range n.Children {
		if envs := flagEnvsUnder(c, name); envs != nil {
			return envs
		}
	}
	return nil
}

func newLogger(c config.Log, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// Main is the whole of cmd/errata.
func Main() { os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr)) }
