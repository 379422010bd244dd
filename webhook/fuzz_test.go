package webhook

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// FuzzVerify checks that Verify never panics, fails only with the package's
// errors, accepts only a header carrying the true signature, and always
// accepts what Sign produced.
func FuzzVerify(f *testing.F) {
	good := hmacHex("1700000000", vecBody, vecSecret)
	seeds := []string{
		vecHeader,
		"",
		" ",
		",",
		"=",
		"t=",
		"v1=",
		"t=1700000000",
		"t=1700000000,v1=" + strings.ToUpper(good),
		"t=1700000000,v1=" + good[:63],
		"t=1700000000,v0=x,v1=" + good + ",v1=" + good,
		"  t=1700000000 , v1=" + good + " ",
		"t=999999999999,v1=" + good,
		"t=-1,v1=" + good,
		"t=1700000000,t=1700000000,v1=" + good,
		"t=1700000000,v1=" + good + ",",
		"t=1700000000,\x00v1=" + good,
		"t=١٧٠٠,v1=" + good,
	}
	for _, h := range seeds {
		f.Add([]byte(vecBody), h, vecSecret, int64(vecT))
	}
	f.Add([]byte{}, "t=0,v1="+hmacHex("0", "", "k"), "k", int64(0))
	f.Add([]byte("\xff\x00"), "", "", int64(-1))
	f.Add([]byte(vecBody), vecHeader, otherKey, int64(999999999999))

	sentinels := []error{ErrMissingHeader, ErrMalformedHeader, ErrTimestampOutOfRange, ErrSignatureMismatch, ErrNoSecret}
	f.Fuzz(func(t *testing.T, body []byte, header, secret string, unix int64) {
		now := time.Unix(unix, 0)
		err := Verify(body, header, now, secret)
		switch {
		case err == nil:
			if !strings.Contains(header, "v1="+hmacHex(signedT(header), string(body), secret)) {
				t.Fatalf("Verify(%q, %q, %d, %q) = nil, but the header lacks the true signature", body, header, unix, secret)
			}
		case !isOneOf(err, sentinels):
			t.Fatalf("Verify() = %v, want an error wrapping one of the package's", err)
		}

		if secret == "" || unix < 0 || unix > 999999999999 {
			return
		}
		signed := Sign(body, now, secret)
		if err := Verify(body, signed, now, secret); err != nil {
			t.Fatalf("Verify(body, Sign(body, %d, %q)) = %v, want nil", unix, secret, err)
		}
		if err := Verify(body, signed, now.Add(Tolerance), "x"+secret); !errors.Is(err, ErrSignatureMismatch) {
			t.Fatalf("Verify with another secret = %v, want ErrSignatureMismatch", err)
		}
	})
}

// signedT is the value of the header's t entry, found without the package's
// parser.
func signedT(header string) string {
	for _, entry := range strings.Split(header, ",") {
		if ts, ok := strings.CutPrefix(strings.Trim(entry, " \t"), "t="); ok {
			return ts
		}
	}
	return ""
}

func isOneOf(err error, targets []error) bool {
	for _, target := range targets {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
