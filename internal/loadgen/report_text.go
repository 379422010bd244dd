package loadgen

import (
	"fmt"
	"io"
	"slices"
	"strconv"
)

// WriteText writes the report as plain text, one metric per line, then a
// note for each thing that limited the run other than the server's speed.
func (r *Report) WriteText(w io.Writer) error {
	lines := [][2]string{
		{"target", r.Target},
		{"url", r.URL},
	}
	if r.Preset != "" {
		lines = append(lines, [2]string{"preset", r.Preset})
	}
	lines = append(lines, [][2]string{
		{"gzip", strconv.FormatBool(r.Gzip)},
		{"concurrency", strconv.Itoa(r.Concurrency)},
		{"batch_size", strconv.Itoa(r.BatchSize)},
		{"distinct", strconv.Itoa(r.Distinct)},
		{"seed", strconv.FormatUint(r.Seed, 10)},
		{"elapsed", fmt.Sprintf("%.2fs", r.ElapsedSeconds)},
		{"batches_accepted", i64(r.BatchesAccepted)},
		{"events_accepted", i64(r.EventsAccepted)},
		{"accepted_events_per_s", fmt.Sprintf("%.1f", r.EventsPerSecond)},
		{"events_generated", i64(r.EventsGenerated)},
		{"mean_event_bytes", fmt.Sprintf("%.1f", r.MeanEventBytes)},
		{"latency_samples", strconv.Itoa(r.Latency.Samples)},
		{"latency_p50", fmt.Sprintf("%.2fms", r.Latency.P50)},
		{"latency_p99", fmt.Sprintf("%.2fms", r.Latency.P99)},
		{"latency_p99_9", fmt.Sprintf("%.2fms", r.Latency.P999)},
		{"latency_max", fmt.Sprintf("%.2fms", r.Latency.Max)},
	}...)
	for i, s := range r.Senders {
		lines = append(lines, [2]string{fmt.Sprintf("sender_%d", i+1), fmt.Sprintf("%d batches, p50 %.2fms, p99 %.2fms, p99.9 %.2fms, max %.2fms",
			s.BatchesAccepted, s.Latency.P50, s.Latency.P99, s.Latency.P999, s.Latency.Max)})
	}
	lines = append(lines, r.refusalLines()...)
	lines = append(lines,
		[2]string{"retries", i64(r.Retries)},
		[2]string{"abandoned_batches", i64(r.Abandoned)},
		[2]string{"dropped_batches", i64(r.Dropped)},
		[2]string{"transport_errors", i64(r.TransportErrors)},
		[2]string{"bytes_sent", i64(r.BytesSent)},
		[2]string{"bytes_uncompressed", i64(r.BytesUncompressed)})
	lines = append(lines, r.RateLimit.lines()...)
	if d := r.Drain; d != nil {
		lines = append(lines,
			[2]string{"drained", strconv.FormatBool(d.Drained)},
			[2]string{"drain_wait", fmt.Sprintf("%.2fs", d.Seconds)},
			[2]string{"last_backlog_events", fmt.Sprintf("%.0f", d.LastBacklog)},
			[2]string{"end_to_end_events_per_s", fmt.Sprintf("%.1f", d.EndToEndEventsPerSecond)})
	}
	if n := r.Counts; n != nil {
		verdict := "match"
		if !n.Match {
			verdict = "MISMATCH"
		}
		lines = append(lines,
			[2]string{"counted_group_events", i64(n.GroupEvents)},
			[2]string{"counted_info_events", i64(n.InfoEvents)},
			[2]string{"counted_debug_events", i64(n.DebugEvents)},
			[2]string{"counted_events", fmt.Sprintf("%d of %d accepted: %s", n.Counted, n.Accepted, verdict)},
			[2]string{"counted_groups", i64(n.Groups)})
	}
	for i, rd := range r.Readers {
		lines = append(lines, [2]string{fmt.Sprintf("reader_%d", i+1), fmt.Sprintf("%d reads, %d failed, p50 %.2fms, p99 %.2fms, p99.9 %.2fms, max %.2fms",
			rd.Reads, rd.Failed, rd.Latency.P50, rd.Latency.P99, rd.Latency.P999, rd.Latency.Max)})
	}
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "%-24s %s\n", l[0], l[1]); err != nil {
			return err
		}
	}
	for _, n := range r.notes() {
		if _, err := fmt.Fprintf(w, "note: %s\n", n); err != nil {
			return err
		}
	}
	return nil
}

func (r *Report) refusalLines() [][2]string {
	lines := [][2]string{
		{"refused_429", i64(r.Refusals.Status429)},
		{"refused_503", i64(r.Refusals.Status503)},
		{"refused_other", i64(r.Refusals.Other)},
	}
	codes := make([]string, 0, len(r.Refusals.ByStatus))
	for code := range r.Refusals.ByStatus {
		if code != "429" && code != "503" {
			codes = append(codes, code)
		}
	}
	slices.Sort(codes)
	for _, code := range codes {
		lines = append(lines, [2]string{"refused_" + code, i64(r.Refusals.ByStatus[code])})
	}
	return lines
}

func (rl RateLimit) lines() [][2]string {
	lines := [][2]string{{"rate_limit_paced", strconv.FormatBool(rl.Paced)}}
	if rl.Limit > 0 {
		lines = append(lines,
			[2]string{"rate_limit_burst", i64(rl.Limit)},
			[2]string{"rate_limit_per_s", fmt.Sprintf("%.1f (proven at least)", rl.RatePerSecond)},
			[2]string{"rate_limit_waits", fmt.Sprintf("%d (%.2fs)", rl.Waits, rl.WaitSeconds)})
	}
	return lines
}

// notes say what held the run back other than the server's speed.
func (r *Report) notes() []string {
	limit := "the target's rate limit"
	switch r.Target {
	case TargetErrata:
		limit = "the server's ERRATA_INGEST_RATE_LIMIT and ERRATA_INGEST_RATE_BURST"
	case TargetSentry:
		limit = "the server's ERRATA_SENTRY_RATE_LIMIT and ERRATA_SENTRY_RATE_BURST"
	}
	var notes []string
	if n := readerNote(r.Readers); n != "" {
		notes = append(notes, n)
	}
	if rl := r.RateLimit; rl.Waits > 0 {
		notes = append(notes, fmt.Sprintf("%d requests were held back %.1fs in all to keep to the server's rate limit "+
			"(at least %.1f requests/s, bursts of %d): the throughput above is the limit's, not the server's; "+
			"to measure the server, raise %s", rl.Waits, rl.WaitSeconds, rl.RatePerSecond, rl.Limit, limit))
	}
	if n := r.Refusals.Status429; n > 0 {
		notes = append(notes, fmt.Sprintf("the server refused %d requests as rate-limited (429), each resent after its Retry-After "+
			"until --max-retries or the end of the run; to measure the server, raise %s", n, limit))
	}
	if n := r.Refusals.Status503; n > 0 {
		notes = append(notes, fmt.Sprintf("the server refused %d requests as overloaded (503), each resent after its Retry-After "+
			"until --max-retries or the end of the run: its backlog of unprocessed events was over ERRATA_MAX_BACKLOG_BYTES "+
			"(a server without the worker role, or processing slower than ingestion) or its disk or memory budget ran short", n))
	}
	return notes
}
