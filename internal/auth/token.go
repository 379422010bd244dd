package auth

import (
	"crypto/rand"
	"encoding/base32"
	"strings"

	"github.com/errata-dev/errata/internal/id"
)

// KeyPrefix starts every project API key: svc_live_<key_id>_<secret>.
const KeyPrefix = "svc_live_"

var keyEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewAPIKeySecret returns a random key secret: 32 bytes in lowercase base32,
// so the whole key selects with a double click.
func NewAPIKeySecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return keyEncoding.EncodeToString(b)
}

// FormatAPIKey builds the credential of a key_ id and its secret.
func FormatAPIKey(keyID, secret string) string {
	return KeyPrefix + strings.TrimPrefix(keyID, id.Key) + "_" + secret
}

// ParseAPIKey splits a credential into its key_ id and secret.
func ParseAPIKey(cred string) (keyID, secret string, ok bool) {
	rest, ok := strings.CutPrefix(cred, KeyPrefix)
	if !ok {
		return "", "", false
	}
	body, secret, ok := strings.Cut(rest, "_")
	if !ok || secret == "" || !id.Valid(id.Key, id.Key+body) {
		return "", "", false
	}
	return id.Key + body, secret, true
}

// IsAPIKey reports whether a bearer credential looks like a project API key.
func IsAPIKey(cred string) bool { return strings.HasPrefix(cred, KeyPrefix) }
