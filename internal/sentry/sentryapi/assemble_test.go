package sentryapi_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha1" //nolint:gosec // sentry-cli names chunks by SHA-1
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// assembleBundle uploads bundle as one chunk and assembles it for
// projects, as sentry-cli does; the answer's body.
func assembleBundle(t *testing.T, s *apitest.Server, tok string, bundle []byte, version string, projects ...string) map[string]any {
	t.Helper()
	sum := sha1.Sum(bundle) //nolint:gosec // see the import
	name := hex.EncodeToString(sum[:])
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = fw.Write(bundle)
	_ = mw.Close()
	s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/chunk-upload/", Token: tok, Body: body.Bytes(),
		Headers: map[string]string{"Content-Type": mw.FormDataContentType()}}).Expect(t, http.StatusOK, "")
	return s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/artifactbundle/assemble/", Token: tok,
		Body: map[string]any{"checksum": name, "chunks": []string{name}, "projects": projects, "version": version}}).Expect(t, http.StatusOK, "").JSON(t)
}

// TestAssembleBundle: the same archive assembled for another project is
// stored there too (it was answered ok with nothing stored), and a small
// archive whose files unpack past 1 GiB is refused before any is written.
func TestAssembleBundle(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	other := s.CreateProject(t, w.Owner.Token, w.OrgID, "other")
	tok := token(t, s, w.Member.Token, "project:releases")

	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	mf, _ := zw.Create("manifest.json")
	_, _ = mf.Write([]byte(`{"files":{"_/_/main.js.map":{"type":"source_map","url":"~/main.js.map"}}}`))
	f, _ := zw.Create("files/_/_/main.js.map")
	_, _ = f.Write([]byte(`{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA"}`))
	_ = zw.Close()
	for _, projects := range [][]string{{"web"}, {"other"}, {"other"}} {
		if r := assembleBundle(t, s, tok, zbuf.Bytes(), "1.0.0", projects...); r["state"] != "ok" {
			t.Fatalf("assembled for %v: %v, want ok", projects, r)
		}
	}
	for _, prj := range []string{w.ProjectID, other} {
		rels := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + prj + "/releases", Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		if len(rels) != 1 || rels[0].(map[string]any)["artifact_count"] != float64(1) {
			t.Errorf("releases of %s after the bundle = %v, want 1.0.0 with its one file (once, though assembled twice for other)", prj, rels)
		}
	}

	// Eleven files of 99 MiB of zeros each declared in a few bytes: the
	// sizes are read from the archive before anything is unpacked.
	zbuf.Reset()
	zw = zip.NewWriter(&zbuf)
	files := map[string]any{}
	for i := range 11 {
		name := fmt.Sprintf("_/_/z%d.js.map", i)
		files[name] = map[string]any{"type": "source_map", "url": "~/" + name}
		fw, err := zw.CreateRaw(&zip.FileHeader{Name: "files/" + name, Method: zip.Deflate, UncompressedSize64: 99 << 20, CompressedSize64: 2})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write([]byte{3, 0})
	}
	mf, _ = zw.Create("manifest.json")
	manifest, _ := json.Marshal(map[string]any{"files": files})
	_, _ = mf.Write(manifest)
	_ = zw.Close()
	r := assembleBundle(t, s, tok, zbuf.Bytes(), "1.0.1", "web")
	if d, _ := r["detail"].(string); r["state"] != "error" || !strings.Contains(d, "once unpacked") {
		t.Errorf("a bundle unpacking past 1 GiB = %v, want state error saying so", r)
	}
}
