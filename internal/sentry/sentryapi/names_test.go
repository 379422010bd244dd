package sentryapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestNamesNoStoreHolds: an organization, project or release named in a
// path with a NUL, invalid UTF-8 or a control character is 404 as any name
// that does not exist, and a body's project or a bundle's file type so
// named is refused: never the 500 of PostgreSQL refusing the look-up.
func TestNamesNoStoreHolds(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		tok := token(t, s, w.Member.Token, "project:releases")
		s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/releases/", Token: tok,
			Body: map[string]any{"version": "1.0.0", "projects": []string{"web"}}}).Expect(t, http.StatusCreated, "")
		for _, path := range []string{
			"/api/0/organizations/acme/releases/a%00b/",
			"/api/0/organizations/acme/releases/a%00b/deploys/",
			"/api/0/organizations/ac%00me/releases/1.0.0/",
			"/api/0/organizations/%ff/releases/1.0.0/",
			"/api/0/organizations/acme/releases/%ff/",
			"/api/0/projects/acme/w%00eb/releases/1.0.0/",
		} {
			if r := s.Do(apitest.Request{Method: "GET", Path: path, Token: tok}); r.Status != http.StatusNotFound {
				t.Errorf("GET %s = %d %s, want 404", path, r.Status, r.Body)
			}
		}
		assemble := "/api/0/organizations/acme/artifactbundle/assemble/"
		sum := "ab" + "abababababababababababababababababababab"[:38]
		if r := s.Do(apitest.Request{Method: "POST", Path: assemble, Token: tok,
			Body: map[string]any{"checksum": sum, "chunks": []string{sum}, "projects": []string{"w\x00eb"}}}); r.Status != http.StatusBadRequest {
			t.Errorf("assemble for project w\\x00eb = %d %s, want 400", r.Status, r.Body)
		}
		var zbuf bytes.Buffer
		zw := zip.NewWriter(&zbuf)
		mf, _ := zw.Create("manifest.json")
		_, _ = mf.Write([]byte(`{"files":{"_/_/a.js":{"type":"mini\u0000fied","url":"~/a.js"}}}`))
		f, _ := zw.Create("files/_/_/a.js")
		_, _ = f.Write([]byte(`x()`))
		_ = zw.Close()
		if r := assembleBundle(t, s, tok, zbuf.Bytes(), "1.0.0", "web"); r["state"] != "error" {
			t.Errorf("a bundle whose file type holds a NUL: %v, want the error state", r)
		}
	})
}

// TestLegacyUploadsAtOnce: eight uploads of one file name to one release at
// once store one file; the others are 409 (on PostgreSQL all four were
// stored).
func TestLegacyUploadsAtOnce(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		tok := token(t, s, w.Member.Token, "project:releases")
		s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/releases/", Token: tok,
			Body: map[string]any{"version": "2.0.0", "projects": []string{"web"}}}).Expect(t, http.StatusCreated, "")
		const n = 8
		codes := make([]int, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				codes[i] = uploadFile(s, tok, "/api/0/projects/acme/web/releases/2.0.0/files/", "~/dup.js", "", "", bytes.Repeat([]byte("x"), 256<<10)).Status
			}()
		}
		close(start)
		wg.Wait()
		created := 0
		for _, c := range codes {
			switch c {
			case http.StatusCreated:
				created++
			case http.StatusConflict:
			default:
				t.Errorf("an upload answered %d, want 201 or 409", c)
			}
		}
		rel, err := s.App.DB.Read().ReleaseByVersion(context.Background(), w.ProjectID, "2.0.0")
		if created != 1 || err != nil || rel.ArtifactCount != 1 {
			t.Fatalf("answers %v, release %+v (%v); want one 201 and one file", codes, rel, err)
		}
	})
}
