package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// Sign returns the Service-Signature value Errata would send for body at
// time t under secret, "t=<unix seconds>,v1=<64 lowercase hex>", so that a
// receiver's tests can build genuine deliveries. The header verifies for
// times t from 1970 to the year 33658 (t is at most 12 digits); a t before
// 1970 gives a negative, malformed t. An empty secret signs, but Verify
// refuses it.
func Sign(body []byte, t time.Time, secret string) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(ts, body, secret))
}

// mac is HMAC-SHA256 of "<t>.<body>" keyed with the whole secret string,
// whsec_ prefix included, never base64-decoded (CONTRACT 5).
func mac(t string, body []byte, secret string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(t))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}
