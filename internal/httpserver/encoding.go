package httpserver

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"

	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/problem"
)

// decodeBody reads a management request's Content-Encoding as ingestion
// does (spec 7, CONTRACT 6 and 8): gzip is decoded (the operation's limit
// then counts the decoded bytes), another coding is 415
// unsupported-encoding, and nested codings are 400 malformed-body, after the
// 413 of a declared length over limit.
func decodeBody(r *http.Request, limit int64) error {
	if intake.ContentEncoding(r) == "" || (r.ContentLength == 0 && len(r.TransferEncoding) == 0) {
		return nil // no body: nothing is encoded
	}
	gzipped, pr := intake.Encoding(r)
	if pr != nil {
		if pr.Status == http.StatusBadRequest && r.ContentLength > limit {
			return problem.Newf("payload-too-large", "the body is over %d bytes", limit)
		}
		return pr
	}
	if !gzipped || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	gz, err := gzip.NewReader(r.Body)
	if err != nil {
		return problem.New("malformed-body", fmt.Sprintf("Content-Encoding is gzip but the body is not gzip data: %v", err))
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{gz, r.Body}
	r.Header.Del("Content-Encoding")
	r.Header.Del("Content-Length")
	r.ContentLength = -1
	return nil
}
