package loadgen

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// AttackReport is the outcome of an attack. Its JSON form is the --json
// output of `errata loadgen --attack`.
type AttackReport struct {
	Attack   string `json:"attack"`
	URL      string `json:"url"`
	GRPCAddr string `json:"grpc_addr,omitempty"`
	Path     string `json:"path,omitempty"`
	// Key says which credential the attack sent: none, given (--key) or
	// bogus (BogusKey).
	Key         string `json:"key"`
	Connections int    `json:"connections,omitempty"`
	Concurrency int    `json:"concurrency,omitempty"`
	HideSize    bool   `json:"hide_size,omitempty"`
	ServerPID   int    `json:"server_pid,omitempty"`

	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Memory         Memory  `json:"memory"`

	// Conns is what became of a connection attack's connections, by kind.
	Conns []ConnKind `json:"connections_by_kind,omitempty"`
	// Held is the connection attack's open connections over time, one
	// sample a second.
	Held []HeldSample `json:"held,omitempty"`
	// Requests is a bomb's answers and how long the server took to give
	// them.
	Requests *Requests `json:"requests,omitempty"`

	// Health is the /healthz probes made during the attack.
	Health Probes `json:"healthz"`
	// Ingest is the one-event POST /v1/ingest probes, made when a key was
	// given; OTLP the one-record POST /v1/logs probes, made with it too;
	// GRPC the one-record OTLP/gRPC exports, made with it during the
	// attacks on the gRPC port; Sentry the one-event envelope probes, made
	// when the key's project number was given too (--dsn): another
	// tenant's answers during the attack.
	Ingest *Probes `json:"ingest_probe,omitempty"`
	OTLP   *Probes `json:"otlp_probe,omitempty"`
	GRPC   *Probes `json:"grpc_probe,omitempty"`
	Sentry *Probes `json:"sentry_probe,omitempty"`
}

// Memory is the server's resident memory during the attack, in bytes.
type Memory struct {
	// Source is proc (/proc/<pid>/status) or metrics (ResidentMetric).
	Source  string `json:"source"`
	Samples int    `json:"samples"`
	// Unreadable counts samples that could not be taken (a /metrics that
	// did not answer, for one).
	Unreadable    int     `json:"unreadable"`
	Before        int64   `json:"before"`
	Peak          int64   `json:"peak"`
	PeakAtSeconds float64 `json:"peak_at_seconds"`
	End           int64   `json:"end"`
	// HWM is the process's own peak since it started (VmHWM), which
	// catches a peak between samples; proc only.
	HWM int64 `json:"hwm,omitempty"`
	// FDsBefore and FDsPeak are the server's open file descriptors; proc
	// only.
	FDsBefore int `json:"fds_before,omitempty"`
	FDsPeak   int `json:"fds_peak,omitempty"`
}

// ConnKind is what became of one kind of stalled connection.
type ConnKind struct {
	Kind      string `json:"kind"`
	Attempted int    `json:"attempted"`
	// Failed counts connections that could not be opened or written to.
	Failed int `json:"failed"`
	Opened int `json:"opened"`
	// ClosedByServer counts connections the server closed; OpenAtEnd those
	// still open when the attack ended (and were closed by it).
	ClosedByServer int `json:"closed_by_server"`
	OpenAtEnd      int `json:"open_at_end"`
	// Reopened counts the connections dialed again after the server closed
	// them (keyless-stall keeps its connections stalled until the end);
	// Answers then counts every close, the others the last of each slot.
	Reopened int `json:"reopened,omitempty"`
	// ClosedAfter is the time from the stall to the server's close, in
	// milliseconds.
	ClosedAfter Latency `json:"closed_after_ms"`
	// Answers counts what the server sent before closing: an HTTP status,
	// an HTTP/2 frame type, or none.
	Answers map[string]int `json:"answers"`
}

// HeldSample is a moment of a connection attack.
type HeldSample struct {
	Seconds float64 `json:"seconds"`
	// Held is the attack's connections open then.
	Held int `json:"held"`
	// ServerFDs is the server's open file descriptors (with --server-pid).
	ServerFDs int   `json:"server_fds,omitempty"`
	RSS       int64 `json:"rss,omitempty"`
}

// Requests is a bomb's answers.
type Requests struct {
	Sent int64 `json:"sent"`
	// BodyBytes is one request's body on the wire; InflatedBytes what it
	// decompresses to.
	BodyBytes     int64    `json:"body_bytes"`
	InflatedBytes int64    `json:"inflated_bytes"`
	Answers       []Answer `json:"answers"`
}

// Answer counts one answer (an HTTP status, a gRPC code, or a network
// failure) and how long the server took to give it, in milliseconds.
type Answer struct {
	Answer  string  `json:"answer"`
	Count   int64   `json:"count"`
	Latency Latency `json:"latency_ms"`
}

// Probes are requests made beside the attack to see whether the server
// still serves others.
type Probes struct {
	Sent int `json:"sent"`
	OK   int `json:"ok"`
	// Failed counts the rest, by answer (a status, timeout, ...).
	Failed map[string]int `json:"failed,omitempty"`
	// Latency is of the successful probes, in milliseconds.
	Latency Latency `json:"latency_ms"`
}

// latencyOf summarises sorted durations.
func latencyOf(sorted []time.Duration) Latency {
	l := Latency{Samples: len(sorted), P50: ms(percentile(sorted, 50)), P99: ms(percentile(sorted, 99)), P999: ms(percentile(sorted, 99.9))}
	if len(sorted) > 0 {
		l.Max = ms(sorted[len(sorted)-1])
	}
	return l
}

func probesOf(ps []probe) Probes {
	out := Probes{Sent: len(ps)}
	var ok []time.Duration
	for _, p := range ps {
		if p.ok {
			out.OK++
			ok = append(ok, p.latency)
			continue
		}
		if out.Failed == nil {
			out.Failed = map[string]int{}
		}
		out.Failed[p.answer]++
	}
	slices.Sort(ok)
	out.Latency = latencyOf(ok)
	return out
}

func newAttackReport(c *AttackConfig, w *watch, res attackResult) *AttackReport {
	r := &AttackReport{Attack: c.Attack, URL: c.URL, Key: "none", ServerPID: c.ServerPID,
		ElapsedSeconds: time.Since(w.begin).Seconds(), Conns: res.conns, Requests: res.requests}
	switch c.Attack {
	case AttackSlowBody:
		r.Connections = c.Connections
	case AttackGRPCPreface:
		r.GRPCAddr, r.Connections = c.GRPCAddr, c.Connections
	case AttackGRPCBomb:
		r.GRPCAddr, r.Concurrency, r.Key = c.GRPCAddr, c.Concurrency, "bogus"
	case AttackGRPCIdle, AttackGRPCStall:
		r.GRPCAddr, r.Concurrency = c.GRPCAddr, c.Concurrency
	case AttackGzipBomb:
		r.Path, r.Concurrency, r.HideSize = c.Path, c.Concurrency, c.HideSize
	case AttackKeylessStall:
		r.Path, r.Connections = sentryPath(c.Number), c.Connections
	case AttackNestedEncoding, AttackKeylessBomb:
		r.Path, r.Concurrency = c.Path, c.Concurrency
	}
	if c.Key != "" {
		r.Key = "given"
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	m := &r.Memory
	m.Source, m.Samples, m.HWM = "metrics", len(w.samples), w.hwm
	if c.ServerPID > 0 {
		m.Source = "proc"
	}
	m.Before, m.FDsBefore = max(w.before.rss, 0), max(w.before.fds, 0)
	m.Peak, m.FDsPeak = m.Before, m.FDsBefore
	nextHeld := 0.0
	for _, s := range w.samples {
		if s.rss < 0 {
			m.Unreadable++
		} else {
			m.End = s.rss
		}
		if s.rss > m.Peak {
			m.Peak, m.PeakAtSeconds = s.rss, s.at.Seconds()
		}
		m.FDsPeak = max(m.FDsPeak, s.fds)
		if s.held >= 0 && s.at.Seconds() >= nextHeld {
			r.Held = append(r.Held, HeldSample{Seconds: s.at.Seconds(), Held: s.held, ServerFDs: max(s.fds, 0), RSS: max(s.rss, 0)})
			nextHeld = float64(int(s.at.Seconds()) + 1)
		}
	}
	r.Health = probesOf(w.health)
	if c.Key != "" {
		in, otlp := probesOf(w.ingest), probesOf(w.otlp)
		r.Ingest, r.OTLP = &in, &otlp
	}
	if probesGRPC(c) {
		g := probesOf(w.grpc)
		r.GRPC = &g
	}
	if c.Key != "" && c.Number > 0 {
		s := probesOf(w.sentry)
		r.Sentry = &s
	}
	return r
}

// WriteJSON writes the report as one indented JSON object.
func (r *AttackReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report as plain text: one fact per line, then the
// connections held over time.
func (r *AttackReport) WriteText(w io.Writer) error {
	var b strings.Builder
	line := func(name, format string, args ...any) {
		fmt.Fprintf(&b, "%-26s %s\n", name, fmt.Sprintf(format, args...))
	}
	line("attack", "%s", r.Attack)
	target := r.URL + r.Path
	if r.GRPCAddr != "" {
		target = r.GRPCAddr
	}
	line("target", "%s", target)
	line("key", "%s", r.Key)
	if r.Connections > 0 {
		line("connections", "%d", r.Connections)
	}
	if r.Concurrency > 0 {
		line("concurrency", "%d", r.Concurrency)
	}
	if r.HideSize {
		line("hide_size", "true (the gzip trailer declares 0 bytes)")
	}
	line("elapsed", "%.1fs", r.ElapsedSeconds)
	m := r.Memory
	line("rss_source", "%s (%d samples, %d unreadable)", m.Source, m.Samples, m.Unreadable)
	line("rss_before", "%s", mib(m.Before))
	line("rss_peak", "%s at %.1fs", mib(m.Peak), m.PeakAtSeconds)
	line("rss_end", "%s", mib(m.End))
	if m.HWM > 0 {
		line("rss_hwm", "%s (VmHWM: the process's peak since it started)", mib(m.HWM))
	}
	if m.FDsPeak > 0 {
		line("server_fds", "%d before, %d at the peak", m.FDsBefore, m.FDsPeak)
	}
	for _, k := range r.Conns {
		p := "conn_" + k.Kind
		line(p, "%d attempted, %d failed, %d opened, %d closed by the server, %d open at the end", k.Attempted, k.Failed, k.Opened, k.ClosedByServer, k.OpenAtEnd)
		line(p+"_closed_after", "p50 %s, p99 %s, max %s", secs(k.ClosedAfter.P50), secs(k.ClosedAfter.P99), secs(k.ClosedAfter.Max))
		line(p+"_answers", "%s", counts(k.Answers))
		if k.Reopened > 0 {
			line(p+"_reopened", "%d", k.Reopened)
		}
	}
	if q := r.Requests; q != nil {
		line("requests", "%d (each %d bytes inflating to %d)", q.Sent, q.BodyBytes, q.InflatedBytes)
		for _, a := range q.Answers {
			line("answer "+a.Answer, "%d, p50 %.1fms, p99 %.1fms, max %.1fms", a.Count, a.Latency.P50, a.Latency.P99, a.Latency.Max)
		}
	}
	probes := func(name string, p Probes) {
		line(name, "%d sent, %d ok, failed: %s", p.Sent, p.OK, counts(p.Failed))
		line(name+"_latency", "p50 %.1fms, p99 %.1fms, max %.1fms", p.Latency.P50, p.Latency.P99, p.Latency.Max)
	}
	probes("healthz", r.Health)
	for _, p := range []struct {
		name string
		p    *Probes
	}{{"ingest_probe", r.Ingest}, {"otlp_probe", r.OTLP}, {"grpc_probe", r.GRPC}, {"sentry_probe", r.Sentry}} {
		if p.p != nil {
			probes(p.name, *p.p)
		}
	}
	if len(r.Held) > 0 {
		b.WriteString("held over time (s: connections open, server fds, rss):\n")
		step := max(1, len(r.Held)/20)
		for i, h := range r.Held {
			if i%step == 0 || i == len(r.Held)-1 {
				fmt.Fprintf(&b, "  %6.1f  %6d  %6d  %s\n", h.Seconds, h.Held, h.ServerFDs, mib(h.RSS))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func secs(msec float64) string { return fmt.Sprintf("%.1fs", msec/1000) }

// counts is m as "k n, k n" in key order, or "none".
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
