package webhook

import (
	"crypto/hmac"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Verify checks that header, the value of a Service-Signature header, signs
// body with one of secrets and that its time t is within Tolerance of now.
// body must be the raw bytes exactly as received; now is the receiver's
// clock, normally time.Now().
//
// Pass every secret that may be in use: during a rotation, the new one and
// the old one (any order). Empty secrets are skipped; none left is
// ErrNoSecret. A nil error means the delivery is authentic and fresh; any
// other error wraps one of the package's Err values.
func Verify(body []byte, header string, now time.Time, secrets ...string) error {
	if !hasSecret(secrets) {
		return ErrNoSecret
	}
	h, err := parseHeader(header)
	if err != nil {
		return err
	}
	if !h.signedBy(body, secrets) {
		return ErrSignatureMismatch
	}
	// Exact, to the nanosecond: 300.5 s away is more than 300 s. time.Sub
	// saturates, so a t millennia away cannot overflow into range.
	if d := now.Sub(time.Unix(h.unix, 0)); d > Tolerance || d < -Tolerance {
		return fmt.Errorf("%w: t is %v from the receiver's clock (tolerance %v)", ErrTimestampOutOfRange, d.Round(time.Second), Tolerance)
	}
	return nil
}

// VerifyRequest reads r's body, at most maxBody bytes (DefaultMaxBody when
// maxBody <= 0), and verifies it against r's Service-Signature header with
// Verify and time.Now. It returns the raw body, to decode only now; on any
// error it returns no body. A body over the limit is ErrBodyTooLarge; so is a
// read stopped by an http.MaxBytesReader set up earlier.
//
// Several Service-Signature header lines are joined with commas, as HTTP
// combines a repeated field. VerifyRequest does not close the body; the
// server does.
func VerifyRequest(r *http.Request, maxBody int64, secrets ...string) ([]byte, error) {
	if !hasSecret(secrets) {
		return nil, ErrNoSecret
	}
	header := strings.Join(r.Header.Values(HeaderSignature), ",")
	if trimOWS(header) == "" {
		return nil, ErrMissingHeader // before reading a body nobody signed
	}
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	var body []byte
	if r.Body != nil {
		limit := maxBody
		if limit < math.MaxInt64 {
			limit++ // one byte more tells "exactly maxBody" from "more"
		}
		var err error
		body, err = io.ReadAll(io.LimitReader(r.Body, limit))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			return nil, fmt.Errorf("%w: %w", ErrBodyTooLarge, err)
		case err != nil:
			return nil, fmt.Errorf("webhook: read body: %w", err)
		case int64(len(body)) > maxBody:
			return nil, fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, maxBody)
		}
	}
	if err := Verify(body, header, time.Now(), secrets...); err != nil {
		return nil, err
	}
	return body, nil
}

// signatureHeader is a parsed Service-Signature value.
type signatureHeader struct {
	t    string // the digits exactly as sent: they are what was signed
	unix int64
	v1   [][sizeSHA256]byte
}

const sizeSHA256 = 32

// parseHeader reads header by the rules in the package documentation.
func parseHeader(header string) (signatureHeader, error) {
	var h signatureHeader
	if trimOWS(header) == "" {
		return h, ErrMissingHeader
	}
	haveT := false
	for rest, more := header, true; more; {
		var entry string
		entry, rest, more = strings.Cut(rest, ",")
		key, value, ok := strings.Cut(trimOWS(entry), "=")
		switch {
		case !ok || key == "":
			return h, fmt.Errorf("%w: an entry is not key=value", ErrMalformedHeader)
		case key == "t":
			if haveT {
				return h, fmt.Errorf("%w: more than one t", ErrMalformedHeader)
			}
			if !isDigits(value, 12) {
				return h, fmt.Errorf("%w: t is not 1 to 12 digits", ErrMalformedHeader)
			}
			haveT = true
			h.t = value
			h.unix, _ = strconv.ParseInt(value, 10, 64) // 12 digits always fit
		case key == "v1":
			sig, ok := decodeLowerHex(value)
			if !ok {
				return h, fmt.Errorf("%w: v1 is not 64 lowercase hex characters", ErrMalformedHeader)
			}
			h.v1 = append(h.v1, sig)
		}
		// Any other key is another scheme (v0=…): ignored.
	}
	if !haveT {
		return h, fmt.Errorf("%w: no t", ErrMalformedHeader)
	}
	if len(h.v1) == 0 {
		return h, fmt.Errorf("%w: no v1", ErrMalformedHeader)
	}
	return h, nil
}

// signedBy reports whether any v1 is the signature of body under any
// non-empty secret. Every comparison is constant-time.
func (h signatureHeader) signedBy(body []byte, secrets []string) bool {
	for _, s := range secrets {
		if s == "" {
			continue
		}
		want := mac(h.t, body, s)
		for _, got := range h.v1 {
			if hmac.Equal(got[:], want) {
				return true
			}
		}
	}
	return false
}

func hasSecret(secrets []string) bool {
	for _, s := range secrets {
		if s != "" {
			return true
		}
	}
	return false
}

// trimOWS trims HTTP optional whitespace (spaces and tabs) only: a newline or
// a Unicode space is not whitespace here.
func trimOWS(s string) string {
	return strings.Trim(s, " \t")
}

// isDigits reports whether s is 1 to max ASCII digits; no sign, no spaces.
func isDigits(s string, max int) bool {
	if len(s) < 1 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// decodeLowerHex decodes exactly 64 lowercase hex characters.
// encoding/hex alone would also take uppercase, which the interface calls
// malformed.
func decodeLowerHex(s string) ([sizeSHA256]byte, bool) {
	var out [sizeSHA256]byte
	if len(s) != 2*sizeSHA256 {
		return out, false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return out, false
		}
	}
	_, err := hex.Decode(out[:], []byte(s))
	return out, err == nil
}
