package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/search"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// BenchmarkSearchGroups runs the query kinds of CONTRACT 8's speed target
// on a project of 10,000 groups holding 1,000,000 events (100 each, as
// event_count; a query reads the groups, their value counts and their
// stored samples, never the events themselves): each group has 3 stored
// samples and value counts of 8 keys (about 25 values each, user.id and
// request.url among them). It reports p50 and p95 per query kind.
//
//	go test -run '^$' -bench SearchGroups -benchtime 40x ./internal/store/
func BenchmarkSearchGroups(b *testing.B) {
	queries := []struct{ name, q string }{
		{"word", "timeout"},           // in 4 groups of 10
		{"rare-word", `"handler 77"`}, // in 111 groups of 10,000
		{"attribute", "user.id:user-77"},
		{"combined", "payment timeout service:checkout is:unresolved"},
	}
	for _, d := range storetest.Dialects {
		b.Run(string(d), func(b *testing.B) {
			if d == store.Postgres {
				storetest.PostgresBase(b)
			}
			db := storetest.Open(b, d)
			ctx := context.Background()
			p := seedProjectB(b, db.Write())
			seedSearch(b, db, p.ID, 10000)
			if d == store.Postgres { // as autovacuum would after such a load
				if err := db.ExecForTest(ctx, `VACUUM ANALYZE`); err != nil {
					b.Fatal(err)
				}
			}
			for _, q := range queries {
				for _, order := range []store.Order{store.OrderNewest, store.OrderEventCount} {
					b.Run(q.name+"/sort="+string(order), func(b *testing.B) {
						parsed, err := search.Parse(q.q, search.Groups, now)
						if err != nil {
							b.Fatal(err)
						}
						var took []time.Duration
						for b.Loop() {
							start := time.Now()
							if _, err := db.Read().ListGroupsBy(ctx, p.ID, store.GroupFilter{Query: parsed}, order, store.Keyset{}, 51); err != nil {
								b.Fatal(err)
							}
							took = append(took, time.Since(start))
						}
						slices.Sort(took)
						b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
						b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
					})
				}
			}
		})
	}
}

// seedSearch makes n groups of 100 events each, their samples and value
// counts, in transactions of 500 groups.
func seedSearch(b *testing.B, db *store.DB, projectID string, n int) {
	b.Helper()
	ctx := context.Background()
	words := []string{"payment timeout", "connection reset", "null pointer", "disk full", "template missing"}
	for start := 0; start < n; start += 500 {
		err := db.Tx(ctx, func(c *store.Conn) error {
			var facets []store.FacetCount
			for i := start; i < start+500; i++ {
				svc := []string{"checkout", "api", "web", "worker"}[i%4]
				g := store.Group{ID: id.New(id.Group), ProjectID: projectID, Service: svc, Fingerprint: fmt.Sprint("fp", i), Status: store.GroupUnresolved,
					Title: fmt.Sprintf("%s in handler %d", words[i%len(words)], i), Culprit: fmt.Sprintf("app.handlers.h%d", i%300),
					SampleMessage: fmt.Sprintf("%s for order %d", words[(i+1)%len(words)], i), FirstSeen: now, LastSeen: now.Add(time.Duration(i) * time.Second),
					EventCount: 100, Environments: []string{"production"}, Releases: []string{"1.0"}, UpdatedAt: now}
				if i%3 == 0 {
					g.Status = store.GroupResolved
				}
				if err := c.InsertGroup(ctx, g); err != nil {
					return err
				}
				for k := range 3 {
					if err := c.InsertGroupEvent(ctx, store.GroupEvent{GroupID: g.ID, First: k == 0, ReceivedAt: now, Timestamp: now,
						Level: 4, Message: fmt.Sprintf("%s for order %d", words[(i+k)%len(words)], i), Attributes: "{}"}); err != nil {
						return err
					}
				}
				for _, key := range []string{"environment", "release", "service", "browser", "os", "server_name", "user.id", "request.url"} {
					for v := range 25 {
						facets = append(facets, store.FacetCount{GroupID: g.ID, Key: key, Value: fmt.Sprintf("%s-%d", key, (i+v)%200), N: 4})
					}
				}
				facets = append(facets, store.FacetCount{GroupID: g.ID, Key: "user.id", Value: fmt.Sprint("user-", i%1000), N: 1})
			}
			return c.AddFacets(ctx, facets)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
