package loadgen

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"time"
)

// The hostile loads of `errata loadgen --attack` (issue 11, CONTRACT 7):
// each reproduces an attack that once stalled or bloated Errata, bounded in
// count and time, and measures what the server does about it.
const (
	// AttackSlowBody opens Connections HTTP connections that start a
	// request and stall: half a chunked POST /v1/ingest stopped after
	// "1\r\n{", half a POST /v1/auth/sign-in/email whose body stops short
	// of its Content-Length.
	AttackSlowBody = "slow-body"
	// AttackGRPCPreface opens Connections connections to the OTLP/gRPC
	// port: half send only the HTTP/2 client preface, half complete the
	// HTTP/2 handshake and then send nothing.
	AttackGRPCPreface = "grpc-preface"
	// AttackGRPCBomb makes Concurrency OTLP/gRPC exports at a time, each a
	// ~19 MiB ExportLogsServiceRequest gzipped to ~19 KiB, with Key or,
	// without one, a bogus key.
	AttackGRPCBomb = "grpc-bomb"
	// AttackGzipBomb makes Concurrency POSTs to Path at a time with Key,
	// each a ~25 KB gzip body that inflates past the 20 MiB limit.
	AttackGzipBomb = "gzip-bomb"
)

// Attacks are the attack names, in the order the help lists them.
var Attacks = []string{AttackSlowBody, AttackGRPCPreface, AttackGRPCBomb, AttackGRPCIdle, AttackGRPCStall, AttackGzipBomb, AttackKeylessStall, AttackNestedEncoding, AttackKeylessBomb}

// BogusKey is what grpc-bomb sends without a key: well-formed, so the
// server looks it up, but no key of any project.
const BogusKey = "svc_live_00000000000000000000000000_notarealsecret"

// Defaults of an attack.
const (
	DefaultAttackConnections = 3000
	defaultGRPCBombCalls     = 100
	defaultGzipBombCalls     = 50
	// The connection attacks end by themselves once the server has closed
	// every connection; their default leaves room for the 60 s read
	// timeout.
	defaultConnAttackDuration = 90 * time.Second
	defaultBombDuration       = 30 * time.Second
	defaultGRPCBombBytes      = 19 << 20
	defaultGzipBombBytes      = 25 << 20
)

// AttackConfig says which attack to make against which Errata, how hard
// and for how long. Attacks are sent to loopback addresses only.
type AttackConfig struct {
	Attack string
	// URL is the base URL of Errata's HTTP listener: the target of the
	// HTTP attacks, and of the /healthz probes and (without ServerPID) the
	// /metrics scrapes of every attack.
	URL string
	// GRPCAddr is the host:port of Errata's OTLP/gRPC listener.
	GRPCAddr string
	// Key is a project API key: required by gzip-bomb; grpc-bomb sends it
	// instead of BogusKey; slow-body sends it with its ingest requests. With
	// a key, a one-event POST /v1/ingest probes every second whether
	// ingestion still works during the attack.
	Key string
	// Path is gzip-bomb's route: /v1/ingest (JSON) or /v1/logs (OTLP
	// protobuf); nested-encoding's: a Sentry envelope path (the default),
	// /v1/ingest or /v1/logs.
	Path string
	// Number is the project number of Key: with both, the watch also
	// probes the Sentry envelope route with the key, and the Sentry
	// attacks aim at that project's path (else /api/1/envelope/).
	Number int64
	// Connections is how many connections slow-body and grpc-preface open.
	Connections int
	// Concurrency is how many requests the bombs keep in flight.
	Concurrency int
	// Duration bounds the attack. Connection attacks end earlier once the
	// server has closed every connection; bombs send until it passes.
	Duration time.Duration
	// Timeout bounds one bomb request and one probe.
	Timeout time.Duration
	// BombBytes is the decompressed size of one bomb (default 19 MiB for
	// grpc-bomb, 25 MiB for gzip-bomb).
	BombBytes int
	// HideSize ends each gzip-bomb body with an empty gzip member, so that
	// the size its trailer declares is 0 and only inflating it shows the
	// truth: the worst case for a server that trusts nothing it is told.
	HideSize bool
	// ServerPID, when positive, is the server's process: its resident
	// memory and open file descriptors are read from /proc. Otherwise
	// process_resident_memory_bytes is scraped from <URL>/metrics.
	ServerPID int
	// SampleEvery is how often memory (and held connections) are sampled;
	// ProbeEvery how often /healthz is probed.
	SampleEvery time.Duration
	ProbeEvery  time.Duration
}

// Validate checks c and fills in its defaults.
func (c *AttackConfig) Validate() error {
	if !slices.Contains(Attacks, c.Attack) {
		return fmt.Errorf("--attack must be one of %v, got %q", Attacks, c.Attack)
	}
	if c.URL == "" {
		c.URL = "http://127.0.0.1:8080"
	}
	u, err := url.Parse(c.URL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return fmt.Errorf("--url must be an http:// URL, got %q", c.URL)
	}
	if err := loopbackOnly("--url", u.Hostname()); err != nil {
		return err
	}
	if c.GRPCAddr == "" {
		c.GRPCAddr = "127.0.0.1:4317"
	}
	host, _, err := net.SplitHostPort(c.GRPCAddr)
	if err != nil {
		return fmt.Errorf("--grpc-addr must be host:port, got %q", c.GRPCAddr)
	}
	if err := loopbackOnly("--grpc-addr", host); err != nil {
		return err
	}
	bomb := c.Attack == AttackGRPCBomb || c.Attack == AttackGRPCIdle || c.Attack == AttackGRPCStall || c.Attack == AttackGzipBomb || c.Attack == AttackNestedEncoding || c.Attack == AttackKeylessBomb
	if err := c.validateKeyless(); err != nil {
		return err
	}
	switch c.Attack {
	case AttackSlowBody, AttackGRPCPreface:
		c.Connections = cmp.Or(c.Connections, DefaultAttackConnections)
		c.Duration = cmp.Or(c.Duration, defaultConnAttackDuration)
	case AttackGRPCBomb:
		c.Concurrency = cmp.Or(c.Concurrency, defaultGRPCBombCalls)
		c.BombBytes = cmp.Or(c.BombBytes, defaultGRPCBombBytes)
	case AttackGRPCIdle, AttackGRPCStall:
		if c.Key == "" {
			return fmt.Errorf("--attack %s needs --key: without one a call is refused before it reserves anything", c.Attack)
		}
		c.Concurrency = cmp.Or(c.Concurrency, defaultGRPCIdleCalls)
	case AttackGzipBomb:
		if c.Key == "" {
			return errors.New("--attack gzip-bomb needs --key: without one the body is never read")
		}
		c.Concurrency = cmp.Or(c.Concurrency, defaultGzipBombCalls)
		c.BombBytes = cmp.Or(c.BombBytes, defaultGzipBombBytes)
		c.Path = cmp.Or(c.Path, "/v1/ingest")
		if c.Path != "/v1/ingest" && c.Path != "/v1/logs" {
			return fmt.Errorf("--path must be /v1/ingest or /v1/logs, got %q", c.Path)
		}
	}
	if bomb {
		c.Duration = cmp.Or(c.Duration, defaultBombDuration)
	}
	switch {
	case c.Connections < 0 || (!bomb && c.Connections == 0):
		return fmt.Errorf("--connections must be at least 1, got %d", c.Connections)
	case c.Concurrency < 0:
		return fmt.Errorf("--concurrency must be at least 1, got %d", c.Concurrency)
	case c.Duration < 0:
		return fmt.Errorf("--duration must be positive, got %s", c.Duration)
	case c.BombBytes < 0:
		return fmt.Errorf("--bomb-bytes must be positive, got %d", c.BombBytes)
	}
	c.Timeout = cmp.Or(c.Timeout, 30*time.Second)
	c.SampleEvery = cmp.Or(c.SampleEvery, 100*time.Millisecond)
	c.ProbeEvery = cmp.Or(c.ProbeEvery, 250*time.Millisecond)
	return nil
}

// loopbackOnly refuses a host that is not, or does not resolve only to, a
// loopback address: hostile load is for one's own server on this machine.
func loopbackOnly(flag, host string) error {
	ips := []net.IP{net.ParseIP(host)}
	if ips[0] == nil {
		addrs, err := net.DefaultResolver.LookupIP(context.Background(), "ip", host)
		if err != nil || len(addrs) == 0 {
			return fmt.Errorf("%s: cannot resolve %q: %v", flag, host, err)
		}
		ips = addrs
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return fmt.Errorf("%s: attacks are sent to loopback addresses only, and %s is %s", flag, host, ip)
		}
	}
	return nil
}

// RunAttack makes the attack c describes and reports what the server did:
// its resident memory, the answers and how fast they came, the
// connections it held and for how long, and whether /healthz kept
// answering. It returns when the attack is over (c.Duration at most, plus
// the requests and probes in flight, each bounded by c.Timeout), or
// earlier when ctx ends, with the report of what was seen until then.
func RunAttack(ctx context.Context, c AttackConfig) (*AttackReport, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var (
		run  func(ctx, attack context.Context) (attackResult, error)
		held func() int
	)
	switch c.Attack {
	case AttackSlowBody, AttackGRPCPreface, AttackKeylessStall:
		cs := newConnAttack(&c)
		run, held = cs.run, cs.held
	case AttackNestedEncoding, AttackKeylessBomb:
		run = newBodyBomb(&c).run
	case AttackGRPCBomb:
		b, err := newGRPCBomb(&c)
		if err != nil {
			return nil, err
		}
		run = b.run
	case AttackGRPCIdle:
		run = (&grpcIdle{c: &c}).run
	case AttackGRPCStall:
		run = (&grpcStall{c: &c}).run
	case AttackGzipBomb:
		b, err := newGzipBomb(&c)
		if err != nil {
			return nil, err
		}
		run = b.run
	}
	w := newWatch(&c, held)
	w.start(ctx)
	// attack ends at c.Duration: no new connection or request after it.
	// Requests in flight then finish under ctx (each bounded by c.Timeout),
	// so that their answers are the server's, not cut short by the end.
	attack, cancel := context.WithTimeout(ctx, c.Duration)
	res, err := run(ctx, attack)
	cancel()
	w.stop()
	rep := newAttackReport(&c, w, res)
	if ctx.Err() != nil && err == nil {
		err = ctx.Err()
	}
	return rep, err
}

// attackResult is what one attack's run found, beside what the watch saw.
type attackResult struct {
	conns    []ConnKind
	requests *Requests
}
