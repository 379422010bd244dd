package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/ratelimit"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
)

// TOTP parameters (CONTRACT 8, RFC 6238): 30-second steps, 6 digits,
// SHA-1 (what every authenticator app supports), a code of the step before
// or after also accepted.
const (
	totpPeriod = 30
	totpSkew   = 1
	// RecoveryCodes is how many recovery codes confirming TOTP gives.
	RecoveryCodes = 10
	// TOTPIssuer names Errata in authenticator apps.
	TOTPIssuer = "Errata"
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Skew: totpSkew, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// TOTPSetup is a TOTP secret being set up, shown once.
type TOTPSetup struct {
	Secret string
	// URI is the otpauth:// URI an authenticator app scans as a QR code.
	URI string
}

// BeginTOTP makes a new TOTP secret for u, pending until ConfirmTOTP gets a
// code of it. A user who has TOTP already is 409: turn it off first.
func (s *Service) BeginTOTP(ctx context.Context, u store.User) (TOTPSetup, error) {
	if u.HasTOTP() {
		return TOTPSetup{}, problem.New("conflict", "two-factor sign-in is on already; turn it off (DELETE /v1/auth/totp) to set up a new secret")
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: TOTPIssuer, AccountName: u.Email, Period: totpPeriod, Digits: otp.DigitsSix,
		Algorithm: otp.AlgorithmSHA1, Rand: rand.Reader})
	if err != nil {
		return TOTPSetup{}, err
	}
	if err := s.db.Write().SetTOTPPending(ctx, u.ID, key.Secret(), s.clock()); err != nil {
		return TOTPSetup{}, err
	}
	return TOTPSetup{Secret: key.Secret(), URI: TOTPURI(u.Email, key.Secret())}, nil
}

// TOTPURI is the otpauth:// URI of a TOTP secret of the account email.
func TOTPURI(email, sec string) string {
	v := url.Values{}
	v.Set("secret", sec)
	v.Set("issuer", TOTPIssuer)
	v.Set("algorithm", "SHA1")
	v.Set("digits", "6")
	v.Set("period", "30")
	return "otpauth://totp/" + url.PathEscape(TOTPIssuer) + ":" + url.PathEscape(email) + "?" + v.Encode()
}

// ConfirmTOTP turns two-factor sign-in on with a code of the pending secret
// and returns the recovery codes, shown only here (kept as hashes). A wrong
// code is 422 naming code and counts in the account's failure limit.
func (s *Service) ConfirmTOTP(ctx context.Context, u store.User, code string) ([]string, error) {
	if u.HasTOTP() {
		return nil, problem.New("conflict", "two-factor sign-in is on already")
	}
	if u.TOTPPending == "" {
		return nil, problem.New("conflict", "no TOTP secret is being set up; POST /v1/auth/totp first")
	}
	res, err := s.reserveFailure(ctx, u.Email)
	if err != nil {
		return nil, err
	}
	defer res.Done()
	if _, ok := matchTOTP(u.TOTPPending, code, s.clock()); !ok {
		return nil, problem.New("validation-failed", "code: is not the authenticator's current code for the new secret")
	}
	res.GiveBack()
	codes, hashes := newRecoveryCodes()
	err = s.db.Tx(ctx, func(c *store.Conn) error {
		if err := c.EnableTOTP(ctx, u.ID, u.TOTPPending, s.clock()); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return problem.New("conflict", "the TOTP secret was replaced or confirmed meanwhile")
			}
			return err
		}
		if err := c.ReplaceRecoveryCodes(ctx, u.ID, hashes); err != nil {
			return err
		}
		return s.recordUser(ctx, c, u.ID, "user.2fa_enabled", u.ID, nil)
	})
	if err != nil {
		return nil, err
	}
	return codes, nil
}

// DisableTOTP turns two-factor sign-in off with a current code or a
// recovery code. A wrong code is 422 naming code and counts in the
// account's failure limit.
func (s *Service) DisableTOTP(ctx context.Context, u store.User, code string) error {
	if !u.HasTOTP() {
		return problem.New("conflict", "two-factor sign-in is not on")
	}
	res, err := s.reserveFailure(ctx, u.Email)
	if err != nil {
		return err
	}
	defer res.Done()
	return s.db.Tx(ctx, func(c *store.Conn) error {
		ok, err := s.spendSecondFactor(ctx, c, u, code)
		if err != nil {
			res.GiveBack()
			return err
		}
		if !ok {
			return problem.New("validation-failed", "code: is neither the authenticator's current code nor an unused recovery code (a code already used to sign in is not taken again: wait for the next one)")
		}
		res.GiveBack()
		if err := c.DisableTOTP(ctx, u.ID, s.clock()); err != nil {
			return err
		}
		return s.recordUser(ctx, c, u.ID, "user.2fa_disabled", u.ID, nil)
	})
}

// reserveFailure takes a token of the account's failure limit for an
// attempt at a secret (429 when none is left); GiveBack returns it when
// the attempt succeeds, and the caller defers Done to settle it otherwise.
func (s *Service) reserveFailure(ctx context.Context, email string) (*ratelimit.Reservation, error) {
	r, res := s.failuresByEmail.Reserve(ctx, email)
	if !r.Allowed {
		return nil, problem.New("rate-limited", "too many wrong codes or passwords for this account; wait and retry").RetryAfter(r.RetryAfter)
	}
	return res, nil
}

// spendSecondFactor checks code, a TOTP code (six digits) or a recovery
// code, against u in c's transaction and spends it: a TOTP code's time step
// and a recovery code are each accepted once, also when requests race.
func (s *Service) spendSecondFactor(ctx context.Context, c *store.Conn, u store.User, code string) (bool, error) {
	code = strings.TrimSpace(code)
	if isTOTPCode(code) {
		step, ok := matchTOTP(u.TOTPSecret, code, s.clock())
		if !ok {
			return false, nil
		}
		return c.UseTOTPStep(ctx, u.ID, step)
	}
	norm := normalizeRecoveryCode(code)
	if norm == "" {
		return false, nil
	}
	return c.UseRecoveryCode(ctx, u.ID, secret.Hash(norm), s.clock())
}

func isTOTPCode(code string) bool {
	if len(code) != 6 {
		return false
	}
	for _, r := range code {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// matchTOTP finds the time step, within the skew around now, whose code is
// code; the comparison is constant-time.
func matchTOTP(sec, code string, now time.Time) (int64, bool) {
	if sec == "" || !isTOTPCode(code) {
		return 0, false
	}
	var found int64
	ok := false
	for d := -totpSkew; d <= totpSkew; d++ {
		at := now.Add(time.Duration(d*totpPeriod) * time.Second)
		want, err := totp.GenerateCodeCustom(sec, at, totpOpts)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && !ok {
			found, ok = at.Unix()/totpPeriod, true
		}
	}
	return found, ok
}

// newRecoveryCodes makes RecoveryCodes codes, xxxxx-xxxxx in lower-case
// base32 (50 random bits each), and their hashes.
func newRecoveryCodes() (codes []string, hashes [][]byte) {
	for range RecoveryCodes {
		b := make([]byte, 7)
		_, _ = rand.Read(b)
		s := keyEncoding.EncodeToString(b)[:10]
		codes = append(codes, s[:5]+"-"+s[5:])
		hashes = append(hashes, secret.Hash(s))
	}
	return codes, hashes
}

// normalizeRecoveryCode is a recovery code as typed without spaces and
// dashes, lower-cased; "" when it cannot be one.
func normalizeRecoveryCode(code string) string {
	code = strings.ToLower(strings.NewReplacer("-", "", " ", "").Replace(code))
	if len(code) != 10 {
		return ""
	}
	return code
}
