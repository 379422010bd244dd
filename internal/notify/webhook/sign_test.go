package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestSign(t *testing.T) {
	t.Parallel()
	body := []byte(`{"type":"test","delivery_id":"tst_1"}`)
	// Vectors from: printf '%s' '1700000000.<body>' | openssl dgst -sha256 -hmac <secret>
	const (
		newSig = "baead403fa9a854ef46470cd540225ec83a59ce96d591738757e66565f02d140"
		oldSig = "860edeb29fe24472d133684ff03b168bb535bd1c74e66811cb6e460dacf61877"
	)
	tests := []struct {
		name    string
		secrets [][]byte
		want    string
	}{
		{"one secret", [][]byte{[]byte("whsec_new")}, "t=1700000000,v1=" + newSig},
		{"rotation, new first", [][]byte{[]byte("whsec_new"), []byte("whsec_old")}, "t=1700000000,v1=" + newSig + ",v1=" + oldSig},
		{"order is the caller's", [][]byte{[]byte("whsec_old"), []byte("whsec_new")}, "t=1700000000,v1=" + oldSig + ",v1=" + newSig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Sign(1700000000, body, tt.secrets...); got != tt.want {
				t.Errorf("Sign() = %q, want %q", got, tt.want)
			}
		})
	}
}

var signatureRE = regexp.MustCompile(`^t=[0-9]{1,12}(,v1=[0-9a-f]{64})+$`)

// verify is a receiver's check (interface section 5), written apart from Sign.
func verify(header string, body, secret []byte) (int64, bool) {
	if !signatureRE.MatchString(header) {
		return 0, false
	}
	parts := strings.Split(header, ",")
	ts := strings.TrimPrefix(parts[0], "t=")
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(ts + "." + string(body)))
	want := mac.Sum(nil)
	t, _ := strconv.ParseInt(ts, 10, 64)
	for _, p := range parts[1:] {
		got, _ := hex.DecodeString(strings.TrimPrefix(p, "v1="))
		if hmac.Equal(got, want) {
			return t, true
		}
	}
	return t, false
}

func TestSignFormat(t *testing.T) {
	t.Parallel()
	for _, ts := range []int64{1, 1700000000, 999999999999} {
		got := Sign(ts, []byte("{}"), []byte("whsec_x"))
		if _, ok := verify(got, []byte("{}"), []byte("whsec_x")); !ok {
			t.Errorf("Sign(%d) = %q, does not verify", ts, got)
		}
	}
}
