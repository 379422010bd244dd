package sentryapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestHostileStringsRefused: a string with U+0000 or another control
// character, or bytes that are not UTF-8, in a deploy, a release file's
// name, dist or header, or an assembled bundle's version or dist, is 400
// naming the field on both databases (on PostgreSQL U+0000 was a 500);
// an assembled bundle's version obeys the releases' rule; a release file
// over 100 MiB is 413.
func TestHostileStringsRefused(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		tok := token(t, s, w.Member.Token, "project:releases")
		s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/releases/", Token: tok,
			Body: map[string]any{"version": "1.0.0", "projects": []string{"web"}}}).Expect(t, http.StatusCreated, "")
		refused := func(r *apitest.Response, field string) {
			t.Helper()
			if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), field) {
				t.Errorf("answer %d %s, want 400 naming %s", r.Status, r.Body, field)
			}
		}
		deploys := "/api/0/organizations/acme/releases/1.0.0/deploys/"
		for field, body := range map[string]map[string]any{
			"name":        {"environment": "prod", "name": "n\x00x"},
			"url":         {"environment": "prod", "url": "https://x/\x01"},
			"environment": {"environment": "e\x01x"},
		} {
			refused(s.Do(apitest.Request{Method: "POST", Path: deploys, Token: tok, Body: body}), field)
		}
		refused(s.Do(apitest.Request{Method: "POST", Path: deploys, Token: tok, Body: map[string]any{"environment": "prod",
			"dateStarted": "2026-11-30T10:00:00Z", "dateFinished": "2026-11-30T09:59:59Z"}}), "dateFinished")
		// The answer shows the times as a later GET does (UTC, milliseconds).
		made := s.Do(apitest.Request{Method: "POST", Path: deploys, Token: tok, Body: map[string]any{"environment": "prod",
			"dateStarted": "2020-01-02T11:00:00.123456789+01:00", "dateFinished": "2020-01-02T12:00:01.1+02:00"}}).Expect(t, http.StatusCreated, "").JSON(t)
		if made["dateStarted"] != "2020-01-02T10:00:00.123Z" || made["dateFinished"] != "2020-01-02T10:00:01.100Z" {
			t.Errorf("dateStarted, dateFinished = %v, %v, want 2020-01-02T10:00:00.123Z and 10:00:01.100Z", made["dateStarted"], made["dateFinished"])
		}
		listed := s.Do(apitest.Request{Method: "GET", Path: deploys, Token: tok}).Expect(t, http.StatusOK, "")
		if !strings.Contains(string(listed.Body), `"dateFinished":"2020-01-02T10:00:01.100Z"`) {
			t.Errorf("deploys listed as %s, want the same times", listed.Body)
		}
		upload := func(name, dist, header string, data []byte) *apitest.Response {
			return uploadFile(s, tok, "/api/0/projects/acme/web/releases/1.0.0/files/", name, dist, header, data)
		}
		refused(upload("~/a\x00.js", "", "", []byte("x")), "name")
		refused(upload("~/a\xff\xfe.js", "", "", []byte("x")), "name")
		refused(upload("~/a.js", "d\x00", "", []byte("x")), "dist")
		refused(upload("~/a.js", strings.Repeat("d", 65), "", []byte("x")), "dist")
		refused(upload("~/a.js", "", "Sourcemap: a\x01.map", []byte("x")), "header")
		upload("~/a.js", "web", "Sourcemap: a.js.map", []byte("x")).Expect(t, http.StatusCreated, "")
		if r := upload("~/big.js", "", "", make([]byte, 102<<20)); r.Status != http.StatusRequestEntityTooLarge {
			t.Errorf("a release file over 100 MiB = %d %s, want 413", r.Status, r.Body)
		}

		assemble := "/api/0/organizations/acme/artifactbundle/assemble/"
		sum := strings.Repeat("ab", 20)
		for field, body := range map[string]map[string]any{
			"version":  {"checksum": sum, "chunks": []string{sum}, "projects": []string{"web"}, "version": "a/b"},
			"version ": {"checksum": sum, "chunks": []string{sum}, "projects": []string{"web"}, "version": "x\x01y"},
			"dist":     {"checksum": sum, "chunks": []string{sum}, "projects": []string{"web"}, "version": "1.0.0", "dist": "d\x00"},
			"checksum": {"checksum": "zz", "chunks": []string{sum}, "projects": []string{"web"}},
			"chunks":   {"checksum": sum, "chunks": []string{"zz"}, "projects": []string{"web"}},
		} {
			refused(s.Do(apitest.Request{Method: "POST", Path: assemble, Token: tok, Body: body}), strings.TrimSpace(field))
		}
	})
}
