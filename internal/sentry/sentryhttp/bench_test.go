package sentryhttp_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// BenchmarkSentryEnvelopes sends single-event envelopes, as SDKs send
// them, from 32 concurrent senders with keep-alive (errata loadgen's
// sentry target) to a real server over loopback, and reports the
// envelopes accepted per second and the p99 latency: authentication,
// decoding, mapping and the durable group commit.
//
//	go test -run '^$' -bench SentryEnvelopes -benchtime 20000x ./internal/sentry/sentryhttp/
func BenchmarkSentryEnvelopes(b *testing.B) {
	for _, d := range storetest.Dialects {
		b.Run(fmt.Sprintf("db=%s", d), func(b *testing.B) {
			s := apitest.Start(b, d, func(c *config.Serve) { c.SentryRateLimit, c.SentryRateBurst = 1e6, 1e6 })
			owner := s.SignUp(b, "owner@example.com")
			prj := s.CreateProject(b, owner.Token, s.CreateOrg(b, owner.Token, "Acme"), "shop")
			_, _, dsn := s.CreateKeyDSN(b, owner.Token, prj)
			o := loadgen.DefaultOptions()
			o.BatchSize = 1
			g, err := loadgen.NewGenerator(o)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			rep, err := loadgen.Run(context.Background(), loadgen.Config{Target: loadgen.TargetSentry, DSN: dsn,
				Concurrency: 32, Batches: b.N, Distinct: 64}, g)
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if rep.BatchesAccepted != int64(b.N) {
				b.Fatalf("%d of %d envelopes accepted", rep.BatchesAccepted, b.N)
			}
			b.ReportMetric(rep.EventsPerSecond, "envelopes/s")
			b.ReportMetric(rep.Latency.P99, "p99-ms")
		})
	}
}
