package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"
)

// The fixed vector: a test body, the 32 bytes 0…31 as a secret, t=1700000000.
const (
	vecSecret = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	vecBody   = `{"type":"test","delivery_id":"tst_01jd8x3v7c0000000000000000","organization_id":"org_01jd8x3v7c0000000000000001",` +
		`"project":{"id":"prj_01jd8x3v7c0000000000000002","name":"checkout"},"channel":{"id":"chn_01jd8x3v7c0000000000000003","name":"ops"}}`
	vecT = 1700000000
	// vecSig was computed once, independently, with
	// printf '%s' "1700000000.$body" | openssl dgst -sha256 -hmac "$secret"
	vecSig    = "fe019b045857744473dcf2ed9134e189ee14d6746b5b1729133f9c1f433e5fa2"
	vecHeader = "t=1700000000,v1=" + vecSig
	otherKey  = "whsec_c2Vjb25kIHNlY3JldCBvZiB0aGlydHktdHdvIGJ5dGVzIQ=="
)

var vecNow = time.Unix(vecT, 0)

// hmacHex signs "<t>.<body>" with crypto/hmac directly, not with the
// package's own code.
func hmacHex(t string, body, secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(t + "." + body))
	return hex.EncodeToString(m.Sum(nil))
}

func TestVerify(t *testing.T) {
	t.Parallel()
	good := hmacHex("1700000000", vecBody, vecSecret)
	other := hmacHex("1700000000", vecBody, otherKey)
	altered := strings.Replace(vecBody, `"ops"`, `"opt"`, 1)
	tests := []struct {
		name    string
		body    string
		header  string
		now     time.Time
		secrets []string
		want    error // nil: accepted
	}{
		{"fixed vector", vecBody, vecHeader, vecNow, []string{vecSecret}, nil},
		{"t with 0 digits", vecBody, "t=,v1=" + good, vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"t with 12 digits", vecBody, "t=001700000000,v1=" + hmacHex("001700000000", vecBody, vecSecret), vecNow, []string{vecSecret}, nil},
		{"t with 13 digits", vecBody, "t=0001700000000,v1=" + hmacHex("0001700000000", vecBody, vecSecret), vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"t with a letter", vecBody, "t=17000000a0,v1=" + good, vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"t negative", vecBody, "t=-1700000000,v1=" + hmacHex("-1700000000", vecBody, vecSecret), time.Unix(-vecT, 0), []string{vecSecret}, ErrMalformedHeader},
		{"t with a plus sign", vecBody, "t=+1700000000,v1=" + hmacHex("+1700000000", vecBody, vecSecret), vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"t with a fraction", vecBody, "t=1700000000.0,v1=" + good, vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"t in non-ASCII digits", vecBody, "t=١٧٠٠٠٠٠٠٠٠,v1=" + good, vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"t with a leading zero is signed as sent", vecBody, "t=01700000000,v1=" + hmacHex("01700000000", vecBody, vecSecret), vecNow, []string{vecSecret}, nil},
		{"t with a leading zero signed without it", vecBody, "t=01700000000,v1=" + good, vecNow, []string{vecSecret}, ErrSignatureMismatch},
		{"v1 of 63 characters", vecBody, "t=1700000000,v1=" + good[:63], vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"v1 of 65 characters", vecBody, "t=1700000000,v1=" + good + "0", vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"v1 in uppercase", vecBody, "t=1700000000,v1=" + strings.ToUpper(good), vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"v1 not hex", vecBody, "t=1700000000,v1=" + good[:63] + "g", vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"v1 empty", vecBody, "t=1700000000,v1=", vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"a bad v1 beside a good one", vecBody, "t=1700000000,v1=" + good + ",v1=" + strings.ToUpper(other), vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"no t", vecBody, "v1=" + good, vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"two t", vecBody, "t=1700000000,t=1700000000,v1=" + good, vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"no v1", vecBody, "t=1700000000", vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"V1 is not v1", vecBody, "t=1700000000,V1=" + good, vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"an entry without =", vecBody, "t=1700000000,v1=" + good + ",junk", vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"an empty entry", vecBody, "t=1700000000,,v1=" + good, vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"a trailing comma", vecBody, vecHeader + ",", vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"an empty key", vecBody, vecHeader + ",=x", vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"no header", vecBody, "", vecNow, []string{vecSecret}, ErrMissingHeader},
		{"a blank header", vecBody, " \t ", vecNow, []string{vecSecret}, ErrMissingHeader},
		{"unknown scheme ignored", vecBody, "t=1700000000,v0=not-hex!,v1=" + good + ",v2=zz", vecNow, []string{vecSecret}, nil},
		{"unknown scheme only", vecBody, "t=1700000000,v0=" + good, vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"two v1, the good one first", vecBody, "t=1700000000,v1=" + good + ",v1=" + other, vecNow, []string{vecSecret}, nil},
		{"two v1, the good one last", vecBody, "t=1700000000,v1=" + other + ",v1=" + good, vecNow, []string{vecSecret}, nil},
		{"two v1, neither good", vecBody, "t=1700000000,v1=" + other + ",v1=" + other, vecNow, []string{vecSecret}, ErrSignatureMismatch},
		{"rotation: receiver has the new secret", vecBody, "t=1700000000,v1=" + other + ",v1=" + good, vecNow, []string{otherKey}, nil},
		{"rotation: receiver has both secrets", vecBody, vecHeader, vecNow, []string{otherKey, vecSecret}, nil},
		{"exactly 300 s late", vecBody, vecHeader, vecNow.Add(300 * time.Second), []string{vecSecret}, nil},
		{"exactly 300 s early", vecBody, vecHeader, vecNow.Add(-300 * time.Second), []string{vecSecret}, nil},
		{"301 s late", vecBody, vecHeader, vecNow.Add(301 * time.Second), []string{vecSecret}, ErrTimestampOutOfRange},
		{"301 s early", vecBody, vecHeader, vecNow.Add(-301 * time.Second), []string{vecSecret}, ErrTimestampOutOfRange},
		{"300.5 s late", vecBody, vecHeader, vecNow.Add(300*time.Second + 500*time.Millisecond), []string{vecSecret}, ErrTimestampOutOfRange},
		{"t twelve nines", vecBody, "t=999999999999,v1=" + hmacHex("999999999999", vecBody, vecSecret), vecNow, []string{vecSecret}, ErrTimestampOutOfRange},
		{"t zero", vecBody, "t=0,v1=" + hmacHex("0", vecBody, vecSecret), time.Unix(0, 0), []string{vecSecret}, nil},
		{"stale and forged is a mismatch", vecBody, "t=1700000000,v1=" + other, vecNow.Add(time.Hour), []string{vecSecret}, ErrSignatureMismatch},
		{"body altered by one byte", altered, vecHeader, vecNow, []string{vecSecret}, ErrSignatureMismatch},
		{"body with a trailing newline", vecBody + "\n", vecHeader, vecNow, []string{vecSecret}, ErrSignatureMismatch},
		{"wrong secret", vecBody, vecHeader, vecNow, []string{otherKey}, ErrSignatureMismatch},
		{"secret without its whsec_ prefix", vecBody, vecHeader, vecNow, []string{strings.TrimPrefix(vecSecret, "whsec_")}, ErrSignatureMismatch},
		{"empty secret list", vecBody, vecHeader, vecNow, nil, ErrNoSecret},
		{"only an empty secret", vecBody, "t=1700000000,v1=" + hmacHex("1700000000", vecBody, ""), vecNow, []string{""}, ErrNoSecret},
		{"an empty secret beside a good one", vecBody, vecHeader, vecNow, []string{"", vecSecret}, nil},
		{"spaces around entries", vecBody, "  t=1700000000 ,  v1=" + good + "  ", vecNow, []string{vecSecret}, nil},
		{"tabs around entries", vecBody, "\tt=1700000000,\tv1=" + good + "\t", vecNow, []string{vecSecret}, nil},
		{"space after =", vecBody, "t= 1700000000,v1=" + good, vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"space before =", vecBody, "t=1700000000,v1 =" + good, vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"space inside v1", vecBody, "t=1700000000,v1=" + good[:32] + " " + good[32:63], vecNow, []string{vecSecret}, ErrMalformedHeader},
		{"newline around an entry", vecBody, "t=1700000000,\nv1=" + good, vecNow, []string{vecSecret}, ErrMalformedHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Verify([]byte(tt.body), tt.header, tt.now, tt.secrets...)
			if !errors.Is(err, tt.want) { // errors.Is(err, nil) is err == nil
				t.Fatalf("Verify() = %v, want %v", err, tt.want)
			}
			for _, s := range tt.secrets {
				if s != "" && err != nil && strings.Contains(err.Error(), s) {
					t.Errorf("error %q reveals the secret", err)
				}
			}
		})
	}
}

func TestVerifyErrorsAreDistinct(t *testing.T) {
	t.Parallel()
	all := []error{ErrMissingHeader, ErrMalformedHeader, ErrTimestampOutOfRange, ErrSignatureMismatch, ErrNoSecret, ErrBodyTooLarge}
	for i, a := range all {
		for j, b := range all {
			if got := errors.Is(a, b); got != (i == j) {
				t.Errorf("errors.Is(%v, %v) = %v, want %v", a, b, got, i == j)
			}
		}
	}
}
