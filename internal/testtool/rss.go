package testtool

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// RSS reads a field of /proc/self/status (VmRSS: the resident set now,
// VmHWM: its peak) in MiB, for benchmarks that report memory.
func RSS(tb testing.TB, field string) float64 {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				tb.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	tb.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// ResetPeakRSS makes VmHWM the current resident set (Linux's
// /proc/self/clear_refs), so that a later RSS(tb, "VmHWM") is the peak of
// what ran in between.
func ResetPeakRSS(tb testing.TB) {
	tb.Helper()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		tb.Fatalf("resetting the peak resident set: %v", err)
	}
}
