package sentryapi_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha1" //nolint:gosec // sentry-cli names chunks by SHA-1
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"runtime"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/testtool"
)

// BenchmarkUpload50MB uploads a bundle of one 50 MiB file as sentry-cli
// does (8 MiB chunks, four a request, then assembly) and reports how far
// the process's resident set grew above what it was before the upload
// (VmHWM after resetting it through /proc/self/clear_refs, less VmRSS).
func BenchmarkUpload50MB(b *testing.B) {
	s := apitest.Start(b, store.SQLite)
	w := s.NewWorld(b)
	tok := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: w.Member.Token,
		Body: map[string]any{"name": "ci", "scopes": []string{"project:releases"}}}).Str(b, "token")
	src := make([]byte, 50<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range src {
		src[i] = "abcdefghijklmnopqrstuvwxyz(){};=+ \n"[rng.IntN(35)]
	}
	var zbuf bytes.Buffer
	const chunk = 8 << 20
	for i := 0; b.Loop(); i++ {
		version := fmt.Sprintf("1.0.%d", i)
		zbuf.Reset()
		zw := zip.NewWriter(&zbuf)
		mf, _ := zw.Create("manifest.json")
		_, _ = mf.Write([]byte(`{"files":{"_/_/main.js.map":{"type":"source_map","url":"~/main.js.map"}}}`))
		f, _ := zw.CreateHeader(&zip.FileHeader{Name: "files/_/_/main.js.map", Method: zip.Store})
		_, _ = f.Write(src)
		_ = zw.SetComment(version) // a new checksum each round
		_ = zw.Close()
		bundle := zbuf.Bytes()
		whole := sha1.Sum(bundle) //nolint:gosec // see the import
		var names []string
		runtime.GC()
		before := testtool.RSS(b, "VmRSS")
		testtool.ResetPeakRSS(b)
		for off := 0; off < len(bundle); off += 4 * chunk {
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			for c := off; c < min(len(bundle), off+4*chunk); c += chunk {
				part := bundle[c:min(len(bundle), c+chunk)]
				sum := sha1.Sum(part) //nolint:gosec // see the import
				name := hex.EncodeToString(sum[:])
				names = append(names, name)
				fw, _ := mw.CreateFormFile("file", name)
				_, _ = fw.Write(part)
			}
			_ = mw.Close()
			s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/chunk-upload/", Token: tok, Body: body.Bytes(),
				Headers: map[string]string{"Content-Type": mw.FormDataContentType()}}).Expect(b, http.StatusOK, "")
		}
		r := s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/artifactbundle/assemble/", Token: tok,
			Body: map[string]any{"checksum": hex.EncodeToString(whole[:]), "chunks": names, "projects": []string{"web"}, "version": version}})
		if st := r.Str(b, "state"); st != "ok" {
			b.Fatalf("assemble: %s", r.Body)
		}
		b.ReportMetric(testtool.RSS(b, "VmHWM")-before, "peak-RSS-growth-MiB")
	}
	b.ReportMetric(float64(zbuf.Len())/(1<<20), "bundle-MiB")
}
