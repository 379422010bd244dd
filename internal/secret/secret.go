// Package secret makes the random tokens Errata hands out (session tokens,
// invitation tokens) and the hash under which they are stored.
package secret

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// NewToken returns 32 random bytes as URL-safe base64 (43 characters).
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Hash is how tokens are stored. They carry 256 random bits, so a fast hash
// is enough: a slow one would only slow down every request.
func Hash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
