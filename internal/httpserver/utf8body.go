package httpserver

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/errata-dev/errata/internal/problem"
)

// checkUTF8Body reads the body's Content-Encoding (decodeBody) and refuses
// a JSON request body that is not UTF-8 (RFC 8259,
// section 8.1) with 400 malformed-body: Go's JSON decoder would turn its
// bad bytes into U+FFFD silently, so that a name would be stored other than
// sent and two different passwords of bad bytes would be one. It reads the
// body (at most the operation's limit; huma answers 413 past it) and puts
// it back for huma to decode. A body of another media type is left to
// huma's 415.
func checkUTF8Body(ctx huma.Context) error {
	r, w := humago.Unwrap(ctx)
	op := ctx.Operation()
	limit := op.MaxBodyBytes
	if limit <= 0 {
		limit = 1 << 20
	}
	if err := decodeBody(r, limit); err != nil {
		return err
	}
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return nil
	}
	// The body is read under the operation's read timeout, as huma reads
	// it; a read that fails hands huma the same failure to answer.
	rc := http.NewResponseController(w)
	if op.BodyReadTimeout > 0 {
		_ = rc.SetReadDeadline(time.Now().Add(op.BodyReadTimeout))
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	rest := r.Body
	if err != nil {
		rest = io.NopCloser(failingReader{err})
	} else {
		_ = rc.SetReadDeadline(time.Time{})
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), rest), r.Body}
	if err != nil || int64(len(data)) > limit {
		return nil // huma reports the read error or the 413
	}
	if !utf8.Valid(data) {
		at := 0
		for at < len(data) {
			c, n := utf8.DecodeRune(data[at:])
			if c == utf8.RuneError && n == 1 {
				break
			}
			at += n
		}
		return problem.New("malformed-body", fmt.Sprintf("the body is not UTF-8: the byte at offset %d is not valid; JSON is sent as UTF-8", at))
	}
	return nil
}

// failingReader fails every read with err.
type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }
