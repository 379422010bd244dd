package httpserver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"

	"github.com/errata-dev/errata/internal/problem"
)

// cursorCodec makes the opaque list cursors: the last id of a page and the
// list it belongs to, signed with a server key. An altered cursor, or one
// from another list, fails the signature check and is rejected (422 naming
// cursor) instead of silently paging somewhere else.
type cursorCodec struct{ key []byte }

func newCursorCodec(key []byte) *cursorCodec { return &cursorCodec{key: key} }

var cursorEnc = base64.RawURLEncoding

func (c *cursorCodec) mac(scope, last string) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(scope))
	m.Write([]byte{0})
	m.Write([]byte(last))
	return m.Sum(nil)[:16]
}

// Encode returns the cursor of the page after last in the list scope.
func (c *cursorCodec) Encode(scope, last string) string {
	return cursorEnc.EncodeToString([]byte(last)) + "." + cursorEnc.EncodeToString(c.mac(scope, last))
}

// Decode returns the last id of a cursor of scope; "" for no cursor.
func (c *cursorCodec) Decode(scope, cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	bad := problem.New("validation-failed", "cursor: not a cursor of this list; pass next_cursor back unchanged")
	a, b, ok := strings.Cut(cursor, ".")
	if !ok {
		return "", bad
	}
	last, err1 := cursorEnc.DecodeString(a)
	sig, err2 := cursorEnc.DecodeString(b)
	if err1 != nil || err2 != nil || !hmac.Equal(sig, c.mac(scope, string(last))) {
		return "", bad
	}
	return string(last), nil
}
