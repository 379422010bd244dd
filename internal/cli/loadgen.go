package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/sentry"
)

// loadgenCmd is `errata loadgen`: realistic ingest load against a running
// Errata (or, with --target jsonl, the same events against another log
// system), with a throughput, latency and refusal summary; with --attack,
// a hostile load against an Errata on loopback, with the server's peak
// memory, the connections it held and how fast it refused.
type loadgenCmd struct {
	Target       string        `default:"errata" enum:"errata,jsonl,sentry" help:"errata (POST <url>/v1/ingest), jsonl (newline-delimited JSON to --url as is) or sentry (one-event Sentry envelopes to the --dsn's /api/<number>/envelope/, as SDKs send them)."`
	URL          string        `name:"url" help:"Base URL of Errata (default: the server's ERRATA_ADDR on this host, else http://127.0.0.1:8080); the full URL for --target jsonl."`
	Key          string        `env:"ERRATA_LOADGEN_KEY" help:"Project API key (svc_live_…), sent to Errata only."`
	DSN          string        `name:"dsn" env:"ERRATA_LOADGEN_DSN" help:"Sentry DSN of a key (its creation answer's dsn), for --target sentry: the URL, key and project number."`
	SentryAuth   string        `name:"sentry-auth" default:"header" enum:"header,query" help:"Where --target sentry sends the key: header (X-Sentry-Auth, as sentry-go) or query (sentry_key=, as the JavaScript SDKs)."`
	Header       []string      `sep:"none" placeholder:"'NAME: VALUE'" help:"Extra request header, repeatable (e.g. for --target jsonl)."`
	ContentType  string        `name:"content-type" help:"Content-Type for --target jsonl (default application/x-ndjson)."`
	Gzip         bool          `help:"Send gzip-compressed bodies."`
	Preset       string        `enum:",busy-senders" default:"" help:"A named load; flags given as well override it. busy-senders: 4 senders over keep-alive connections, each with one 1,000-event batch (about 540 bytes an event, plain JSON) in flight at a time, from 16 batches built up front (--concurrency 4 --batch-size 1000 --distinct 16)."`
	Concurrency  int           `help:"Senders: requests in flight, one each (default 8; with --attack grpc-bomb 100, gzip-bomb 50, grpc-idle and grpc-stall 8 calls)."`
	Duration     time.Duration `help:"How long to send (default 30s; ignored when --batches is set). With --attack: 30s for the bombs, 90s for the connection attacks, which end earlier once the server has closed every connection."`
	Batches      int           `help:"Send this many batches, then stop."`
	Rate         float64       `placeholder:"N" help:"Cap on batches per second; 0 for no cap of its own (the server's rate limit still holds unless --ignore-rate-limit)."`
	IgnoreRate   bool          `name:"ignore-rate-limit" help:"Do not keep to the rate limit the server advertises (RateLimit-* headers): for a server whose limit was raised for a benchmark. 429 answers are still resent after their Retry-After."`
	Distinct     int           `placeholder:"N" help:"Generate only N distinct batches up front and send them in turn (keeps the generator's CPU out of the measurement); 0 generates every batch."`
	BatchSize    int           `name:"batch-size" placeholder:"N" help:"Events per batch, 1 to 1000 (default 1000); --target sentry sends one event per envelope, as SDKs do."`
	Services     int           `default:"5" help:"Distinct services."`
	Templates    int           `default:"200" help:"Distinct message templates (what grouping should find)."`
	ErrorRatio   float64       `name:"error-ratio" default:"0.01" help:"Share of events at level error or fatal."`
	StackRatio   float64       `name:"stack-ratio" default:"0.3" help:"Share of events with a stack trace."`
	Seed         uint64        `default:"1" help:"Seed of the generator: the same seed sends the same events."`
	Timeout      time.Duration `default:"30s" help:"Timeout of one request."`
	MaxRetries   int           `name:"max-retries" default:"10" help:"Resends of one batch after 429/503 (honouring Retry-After) or a network error."`
	WaitDrain    bool          `name:"wait-drain" help:"After sending, poll <url>/metrics until errata_ingest_backlog_events is 0 and report end-to-end events/s."`
	DrainTimeout time.Duration `name:"drain-timeout" default:"5m" help:"Longest wait for --wait-drain (and for the count check)."`
	Token        string        `env:"ERRATA_LOADGEN_TOKEN" help:"Session token (POST /v1/auth/sign-in/email) of a member of --project: turns on the count check (and --wait-drain): after the drain, the groups' event_count + the INFO summaries' event_count + debug_count the run added must be the events accepted."`
	Project      string        `placeholder:"prj_…" help:"The key's project, for the count check with --token and for --readers."`
	Readers      int           `placeholder:"N" help:"Readers alongside the senders: each reads the first pages of --project's group list and INFO summaries every --read-every, as a dashboard open during the load, until the run ends (drain and count check included), and reports its own p50, p99, p99.9 and max."`
	ReaderToken  string        `name:"reader-token" env:"ERRATA_LOADGEN_READER_TOKEN" help:"Session token of a member of --project for --readers (default --token)."`
	ReadEvery    time.Duration `name:"read-every" default:"1s" help:"How often each reader reads its pages."`
	JSON         bool          `name:"json" help:"Print the summary as JSON."`

	Attack      string `enum:",slow-body,grpc-preface,grpc-bomb,grpc-idle,grpc-stall,gzip-bomb,keyless-stall,nested-encoding,keyless-bomb" default:"" help:"Send a hostile load instead, to loopback only: slow-body (stalled ingest and sign-in bodies), grpc-preface (gRPC connections that stop after the HTTP/2 preface or handshake), grpc-bomb (OTLP/gRPC exports of 19 MiB gzipped to 19 KiB; with a bogus key unless --key), grpc-idle (OTLP/gRPC exports with --key that send their headers and never their message, reopened as the server ends them), grpc-stall (the same, sending also the 5-byte prefix of a gzip-compressed message), gzip-bomb (gzip bodies inflating past 20 MiB to --path, with --key), keyless-stall (keyless Sentry envelopes announcing 20 MiB that send nothing), nested-encoding (bodies compressed gzip, gzip, gzip inflating to 100 MiB, to a keyless Sentry envelope or --path), keyless-bomb (keyless Sentry envelopes whose gzip first line inflates to 95 MiB). With --key (and --dsn for the Sentry route) another tenant's REST, OTLP and Sentry ingestion is probed every second."`
	GRPCAddr    string `name:"grpc-addr" default:"127.0.0.1:4317" help:"OTLP/gRPC address for --attack grpc-preface, grpc-bomb, grpc-idle and grpc-stall."`
	Connections int    `help:"Connections --attack slow-body and grpc-preface open (default 3000), keyless-stall (default 300)."`
	Path        string `help:"Route of --attack gzip-bomb (/v1/ingest, the default, or /v1/logs) and nested-encoding (a keyless Sentry envelope path, the default, /v1/ingest or /v1/logs)."`
	BombBytes   int    `name:"bomb-bytes" placeholder:"N" help:"Decompressed size of one bomb (default 19 MiB for grpc-bomb, 25 MiB for gzip-bomb, 100 MiB for nested-encoding, 95 MiB for keyless-bomb)."`
	HideSize    bool   `name:"hide-size" help:"--attack gzip-bomb: end each body with an empty gzip member, so that its trailer declares no size and only inflating it shows the truth."`
	ServerPID   int    `name:"server-pid" placeholder:"PID" help:"With --attack: read the server's memory and open files from /proc/PID (else scrape process_resident_memory_bytes from <url>/metrics)."`
}

// Help is the text --help shows under the command's one-line summary.
func (c *loadgenCmd) Help() string {
	return `The load is real: every event is written into the project of the key
(--key or --dsn) and makes error groups, tickets, INFO summaries and
notifications to the project's channels, as an application's would. At
load rates nearly every group gets 50 events within 5 minutes, so its
ticket is raised to critical as a spike (ERRATA_SPIKE_MIN) and notified
again. Send to a project made for it (create a project named loadgen,
with a key and no channels), never to one people watch.

Events carry the time they are sent. The run keeps to the rate limit the
server advertises in its answers (100 requests/s per project by default);
raise ERRATA_INGEST_RATE_LIMIT and ERRATA_INGEST_RATE_BURST (for --target
sentry, ERRATA_SENTRY_RATE_LIMIT and _BURST) on the server to measure it
rather than its limit.`
}

func (c *loadgenCmd) Run(e *env) error {
	if c.Attack != "" {
		return c.attack(e)
	}
	for _, f := range [...]struct {
		flag, want string
		bad        bool
	}{{"--distinct", "must not be negative", c.Distinct < 0}, {"--max-retries", "must not be negative", c.MaxRetries < 0},
		{"--drain-timeout", "must not be negative", c.DrainTimeout < 0}, {"--timeout", "must be positive", c.Timeout <= 0}} {
		if f.bad {
			return usageError{fmt.Errorf("%s %s", f.flag, f.want)}
		}
	}
	if c.Key != "" && !strings.HasPrefix(c.Key, auth.KeyPrefix) {
		// Not a project key: every request would be refused (401).
		return usageError{fmt.Errorf("--key: not a project API key (%s…)", auth.KeyPrefix)}
	}
	if c.Preset == "busy-senders" {
		c.Concurrency = cmp.Or(c.Concurrency, 4)
		c.BatchSize = cmp.Or(c.BatchSize, 1000)
		c.Distinct = cmp.Or(c.Distinct, 16)
	}
	c.Concurrency = cmp.Or(c.Concurrency, 8)
	c.BatchSize = cmp.Or(c.BatchSize, 1000)
	c.Duration = cmp.Or(c.Duration, 30*time.Second)
	o := loadgen.DefaultOptions()
	o.Seed, o.BatchSize, o.Services, o.Templates = c.Seed, c.BatchSize, c.Services, c.Templates
	o.ErrorRatio, o.StackRatio = c.ErrorRatio, c.StackRatio
	if c.Target == loadgen.TargetSentry {
		o.BatchSize = 1
	}
	g, err := loadgen.NewGenerator(o)
	if err != nil {
		return usageError{err}
	}
	h := http.Header{}
	for _, kv := range c.Header {
		name, value, ok := strings.Cut(kv, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return usageError{fmt.Errorf("--header must look like 'Name: value', got %q", kv)}
		}
		h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if addr := os.Getenv("ERRATA_ADDR"); c.URL == "" && addr != "" && (c.Target == "" || c.Target == loadgen.TargetErrata) {
		if c.URL, err = localURL(addr); err != nil {
			return usageError{fmt.Errorf("ERRATA_ADDR: %w (or give --url)", err)}
		}
	}
	cfg := loadgen.Config{
		Target: c.Target, URL: c.URL, Key: c.Key, DSN: c.DSN, SentryAuth: c.SentryAuth, Header: h, ContentType: c.ContentType,
		Gzip: c.Gzip, Concurrency: c.Concurrency, Duration: c.Duration, Batches: c.Batches,
		Rate: c.Rate, Distinct: c.Distinct, Timeout: c.Timeout, MaxRetries: c.MaxRetries, IgnoreRateLimit: c.IgnoreRate,
		WaitDrain: c.WaitDrain, DrainTimeout: c.DrainTimeout, Token: c.Token, Project: c.Project, Preset: c.Preset,
		Readers: c.Readers, ReaderToken: c.ReaderToken, ReadEvery: c.ReadEvery,
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	if cfg.Target != loadgen.TargetJSONL {
		e.log.Info("loadgen writes real events into the key's project: groups, tickets and notifications to its channels; use a project made for it", "url", cfg.URL)
	}
	rep, runErr := loadgen.Run(e.ctx, cfg, g)
	if rep != nil {
		runErr = c.write(e, rep, runErr)
		if runErr == nil && rep.EventsAccepted == 0 && rep.EventsGenerated > 0 {
			// A run that reached nothing is not a success (exit 1).
			runErr = fmt.Errorf("loadgen: nothing was accepted (%d transport errors, %d batches abandoned, %d refused): is the server at %s?",
				rep.TransportErrors, rep.Abandoned, rep.Dropped, cfg.URL)
		}
	}
	if errors.Is(runErr, context.Canceled) {
		return errors.New("loadgen: interrupted")
	}
	return runErr
}

// attack runs --attack.
func (c *loadgenCmd) attack(e *env) error {
	cfg := loadgen.AttackConfig{
		Attack: c.Attack, URL: c.URL, GRPCAddr: c.GRPCAddr, Key: c.Key, Path: c.Path,
		Connections: c.Connections, Concurrency: c.Concurrency, Duration: c.Duration, Timeout: c.Timeout,
		BombBytes: c.BombBytes, HideSize: c.HideSize, ServerPID: c.ServerPID,
	}
	if c.DSN != "" { // the probed tenant's key and project number
		d, err := sentry.ParseDSN(c.DSN)
		if err != nil {
			return usageError{fmt.Errorf("--dsn: %w", err)}
		}
		cfg.Number = d.Number
		cfg.Key = cmp.Or(cfg.Key, d.Key)
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	rep, runErr := loadgen.RunAttack(e.ctx, cfg)
	if rep != nil {
		runErr = c.write(e, rep, runErr)
	}
	if errors.Is(runErr, context.Canceled) {
		return errors.New("loadgen: interrupted")
	}
	return runErr
}

// write prints rep as text or JSON; a failure to print is the error when
// the run had none.
func (c *loadgenCmd) write(e *env, rep interface {
	WriteJSON(io.Writer) error
	WriteText(io.Writer) error
}, runErr error) error {
	var werr error
	if c.JSON {
		werr = rep.WriteJSON(e.stdout)
	} else {
		werr = rep.WriteText(e.stdout)
	}
	if werr != nil && runErr == nil {
		return werr
	}
	return runErr
}
