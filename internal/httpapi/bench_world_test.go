package httpapi_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/store"
)

// benchBodies returns 16 realistic 1,000-event ingest bodies from the load
// generator.
func benchBodies(b *testing.B) [][]byte {
	b.Helper()
	g, err := loadgen.NewGenerator(loadgen.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	var bodies [][]byte
	for i := 0; i < 16; i++ {
		batch := g.Batch(i)
		body, _ := loadgen.EncodeBatch(nil, &batch)
		bodies = append(bodies, body)
	}
	return bodies
}

// benchServer starts a server without ingest rate limits and returns it
// with a project and its API key.
func benchServer(b *testing.B, d store.Dialect) (s *apitest.Server, projectID, key string) {
	b.Helper()
	s = apitest.Start(b, d, func(c *config.Serve) { c.IngestRateLimit, c.IngestRateBurst = 1e9, 1e9 })
	owner := s.SignUp(b, "bench@example.com")
	projectID = s.CreateProject(b, owner.Token, s.CreateOrg(b, owner.Token, "Bench"), "bench")
	_, key = s.CreateKey(b, owner.Token, projectID)
	return s, projectID, key
}

// postBatch posts one ingest body and reads the answer, which must be 202.
func postBatch(client *http.Client, url, key string, body []byte, gzipped bool) error {
	req, err := http.NewRequest("POST", url+"/v1/ingest", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	if gzipped {
		req.Header.Set("Content-Encoding", "gzip")
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		return fmt.Errorf("status %d", res.StatusCode)
	}
	return nil
}
