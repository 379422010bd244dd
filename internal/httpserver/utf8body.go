package httpserver

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/errata-dev/errata/internal/problem"
)

// checkUTF8Body refuses a JSON request body that is not UTF-8 (RFC 8259,
// section 8.1) with 400 malformed-body: Go's JSON decoder would turn its
// bad bytes into U+FFFD silently, so that a name would be stored other than
// sent and two different passwords of bad bytes would be one. It reads the
// body (at most the operation's limit; huma answers 413 past it) and puts
// it back for huma to decode. A body of another media type is left to
// huma's 415.
func checkUTF8Body(ctx huma.Context) error {
	r, _ := humago.Unwrap(ctx)
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return nil
	}
	limit := ctx.Operation().MaxBodyBytes
	if limit <= 0 {
		limit = 1 << 20
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), r.Body), r.Body}
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
