package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// Sign returns the Service-Signature header value for body at unix time t:
// "t=<t>,v1=<hex>" with one v1 entry per secret, in the order given (during a
// rotation pass the new secret first). Each entry is the lowercase hex
// HMAC-SHA256, keyed with the secret's bytes, of "<t>.<body>" (interface
// section 5).
func Sign(t int64, body []byte, secrets ...[]byte) string {
	ts := strconv.AppendInt(nil, t, 10)
	out := make([]byte, 0, 2+len(ts)+len(secrets)*(4+hex.EncodedLen(sha256.Size)))
	out = append(out, "t="...)
	out = append(out, ts...)
	var sum [sha256.Size]byte
	for _, s := range secrets {
		mac := hmac.New(sha256.New, s)
		mac.Write(ts)
		mac.Write([]byte{'.'})
		mac.Write(body)
		out = append(out, ",v1="...)
		out = hex.AppendEncode(out, mac.Sum(sum[:0]))
	}
	return string(out)
}
