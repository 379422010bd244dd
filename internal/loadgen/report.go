package loadgen

import (
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"time"
)

// Report is the outcome of a run. Its JSON form is the --json output.
type Report struct {
	Target      string `json:"target"`
	URL         string `json:"url"`
	Gzip        bool   `json:"gzip"`
	Concurrency int    `json:"concurrency"`
	BatchSize   int    `json:"batch_size"`
	Seed        uint64 `json:"seed"`
	// Distinct is the prebuilt batches sent in turn; 0 when every batch
	// was generated.
	Distinct int    `json:"distinct"`
	Preset   string `json:"preset,omitempty"`

	ElapsedSeconds  float64 `json:"elapsed_seconds"`
	BatchesAccepted int64   `json:"batches_accepted"`
	EventsAccepted  int64   `json:"events_accepted"`
	// EventsPerSecond is accepted events over the sending time.
	EventsPerSecond float64 `json:"events_per_second"`
	EventsGenerated int64   `json:"events_generated"`
	// MeanEventBytes is the mean encoded size of a generated event as sent
	// (for JSONL, one line without its newline).
	MeanEventBytes float64 `json:"mean_event_bytes"`

	Latency Latency `json:"latency_ms"`
	// Senders is each sender's own share and latency, in sender order.
	Senders  []Sender `json:"senders"`
	Refusals Refusals `json:"refusals"`
	// RateLimit is what the run learned of the server's rate limit and
	// how long it held requests back to keep to it.
	RateLimit RateLimit `json:"rate_limit"`
	// Retries counts resends after 429 and 503 answers and network errors;
	// Abandoned the batches given up on when retries or time ran out;
	// Dropped the batches refused with another status, not resent.
	Retries         int64 `json:"retries"`
	Abandoned       int64 `json:"abandoned_batches"`
	Dropped         int64 `json:"dropped_batches"`
	TransportErrors int64 `json:"transport_errors"`

	BytesSent         int64 `json:"bytes_sent"`
	BytesUncompressed int64 `json:"bytes_uncompressed"`

	Drain *Drain `json:"drain,omitempty"`
	// Counts is the count check (with a token): nil without one.
	Counts *Counts `json:"counts,omitempty"`
	// Readers is each reader's reads (--readers), in reader order; empty
	// without readers.
	Readers []Reader `json:"readers,omitempty"`
}

// Sender is one sender's part of a run: a sender is one connection
// sending a batch at a time, as one busy client.
type Sender struct {
	BatchesAccepted int64   `json:"batches_accepted"`
	EventsAccepted  int64   `json:"events_accepted"`
	Latency         Latency `json:"latency_ms"`
}

// Latency summarises the round trips of accepted requests, in milliseconds,
// as exact percentiles over every sample.
type Latency struct {
	Samples int     `json:"samples"`
	P50     float64 `json:"p50"`
	P99     float64 `json:"p99"`
	P999    float64 `json:"p99_9"`
	Max     float64 `json:"max"`
}

// Refusals counts answers other than 2xx, by status.
type Refusals struct {
	Status429 int64            `json:"429"`
	Status503 int64            `json:"503"`
	Other     int64            `json:"other"`
	ByStatus  map[string]int64 `json:"by_status,omitempty"`
}

// Drain is the outcome of waiting for Errata's ingest backlog to empty.
type Drain struct {
	Drained bool `json:"drained"`
	// Seconds is the wait after the last batch was sent.
	Seconds float64 `json:"seconds"`
	// EndToEndEventsPerSecond is accepted events over the time from the
	// first send to the empty backlog.
	EndToEndEventsPerSecond float64 `json:"end_to_end_events_per_second"`
	LastBacklog             float64 `json:"last_backlog"`
}

func newReport(c *Config, g *Generator, stats []*workerStats, elapsed time.Duration) *Report {
	o := g.Options()
	r := &Report{Target: c.Target, URL: c.URL, Gzip: c.Gzip, Concurrency: c.Concurrency,
		BatchSize: o.BatchSize, Seed: o.Seed, Distinct: c.Distinct, Preset: c.Preset, ElapsedSeconds: elapsed.Seconds(),
		Senders: make([]Sender, len(stats))}
	var lat []time.Duration
	var eventBytes int64
	for i, st := range stats {
		lat = append(lat, st.latencies...)
		slices.Sort(st.latencies)
		r.Senders[i] = Sender{BatchesAccepted: st.batchesAccepted, EventsAccepted: st.eventsAccepted, Latency: latencyOf(st.latencies)}
		r.BatchesAccepted += st.batchesAccepted
		r.EventsAccepted += st.eventsAccepted
		r.EventsGenerated += st.eventsGenerated
		eventBytes += st.eventBytes
		r.Retries += st.retries
		r.Abandoned += st.abandoned
		r.Dropped += st.dropped
		r.TransportErrors += st.transportErrors
		r.BytesSent += st.bytesSent
		r.BytesUncompressed += st.bytesRaw
		for code, n := range st.status {
			switch code {
			case 429:
				r.Refusals.Status429 += n
			case 503:
				r.Refusals.Status503 += n
			default:
				r.Refusals.Other += n
			}
			if r.Refusals.ByStatus == nil {
				r.Refusals.ByStatus = map[string]int64{}
			}
			r.Refusals.ByStatus[strconv.Itoa(code)] += n
		}
	}
	if r.EventsGenerated > 0 {
		r.MeanEventBytes = float64(eventBytes) / float64(r.EventsGenerated)
	}
	if elapsed > 0 {
		r.EventsPerSecond = float64(r.EventsAccepted) / elapsed.Seconds()
	}
	slices.Sort(lat)
	r.Latency = latencyOf(lat)
	return r
}

// percentile is the nearest-rank percentile p of sorted samples.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func i64(n int64) string { return strconv.FormatInt(n, 10) }
