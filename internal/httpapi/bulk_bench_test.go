package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// BenchmarkBulkChange measures a bulk change by query over 2,000 groups:
// each op resolves every unresolved group of the project, then sets them
// back, two requests of 2,000 groups; groups/s is what one request changes
// a second.
//
//	go test -run '^$' -bench BulkChange -benchtime 3x ./internal/httpapi/
func BenchmarkBulkChange(b *testing.B) {
	const groups = 2000
	for _, d := range storetest.Dialects {
		b.Run("db="+string(d), func(b *testing.B) {
			s := apitest.Start(b, d)
			w := s.NewWorld(b)
			_, key := s.CreateKey(b, w.Owner.Token, w.ProjectID)
			for n := 0; n < groups; n += 1000 {
				evs := make([]map[string]any, 1000)
				for i := range evs {
					evs[i] = fpEv(fmt.Sprintf("bulk-%d", n+i), "error")
				}
				s.Do(ingestReq(key, batchOf("api", evs...), nil)).Expect(b, http.StatusAccepted, "")
			}
			if err := s.App.Processor.Drain(context.Background()); err != nil {
				b.Fatal(err)
			}
			bulk := func(query, status string) {
				r := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/groups/bulk", Token: w.Owner.Token,
					Body: map[string]any{"query": query, "set": map[string]any{"status": status}}}).Expect(b, http.StatusOK, "")
				if r.JSON(b)["updated"] != float64(groups) {
					b.Fatalf("bulk %s: %s, want %d updated", status, r.Body, groups)
				}
			}
			b.ResetTimer()
			for range b.N {
				bulk("is:unresolved", "resolved")
				bulk("is:resolved", "unresolved")
			}
			b.ReportMetric(float64(2*groups*b.N)/b.Elapsed().Seconds(), "groups/s")
		})
	}
}
