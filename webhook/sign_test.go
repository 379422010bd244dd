package webhook

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/testtool"
)

func TestSign(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		at     time.Time
		secret string
		want   string
	}{
		{"fixed vector", vecBody, vecNow, vecSecret, vecHeader},
		{"fixed vector, crypto/hmac", vecBody, vecNow, vecSecret, "t=1700000000,v1=" + hmacHex("1700000000", vecBody, vecSecret)},
		{"sub-second part dropped", vecBody, vecNow.Add(999 * time.Millisecond), vecSecret, vecHeader},
		{"empty body", "", time.Unix(5, 0), otherKey, "t=5,v1=" + hmacHex("5", "", otherKey)},
		{"binary body", "\x00\xff\n", vecNow, otherKey, "t=1700000000,v1=" + hmacHex("1700000000", "\x00\xff\n", otherKey)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Sign([]byte(tt.body), tt.at, tt.secret)
			if got != tt.want {
				t.Fatalf("Sign() = %q, want %q", got, tt.want)
			}
			if err := Verify([]byte(tt.body), got, tt.at, tt.secret); err != nil {
				t.Errorf("Verify(Sign()) = %v, want nil", err)
			}
		})
	}
}

// TestSignOpenSSL checks the fixed vector against an HMAC computed by a
// different implementation: openssl dgst.
func TestSignOpenSSL(t *testing.T) {
	t.Parallel()
	bin := testtool.Program(t, "openssl")
	cmd := exec.Command(bin, "dgst", "-sha256", "-hmac", vecSecret)
	cmd.Stdin = strings.NewReader("1700000000." + vecBody)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("openssl dgst: %v", err)
	}
	// "SHA2-256(stdin)= <hex>" (OpenSSL 3) or "(stdin)= <hex>" (1.1).
	hexSig := regexp.MustCompile(`= ([0-9a-f]{64})\s*$`).FindStringSubmatch(string(out))
	if hexSig == nil {
		t.Fatalf("openssl dgst printed %q, want a line ending in 64 hex characters", out)
	}
	if got, want := Sign([]byte(vecBody), vecNow, vecSecret), "t=1700000000,v1="+hexSig[1]; got != want {
		t.Errorf("Sign() = %q, want %q (openssl)", got, want)
	}
}
