package httpapi

import (
	"context"
	"net/http"
)

// TOTPSetupOutput is a new TOTP secret, shown once.
type TOTPSetupOutput struct {
	Body struct {
		Secret     string `json:"secret" doc:"The base32 secret, for typing into an authenticator app"`
		OTPAuthURI string `json:"otpauth_uri" doc:"otpauth://totp/… URI: the dashboard shows it as a QR code"`
	}
}

func (s *Server) beginTOTP(ctx context.Context, _ *struct{}) (*TOTPSetupOutput, error) {
	st, err := s.auth.BeginTOTP(ctx, principal(ctx).User)
	if err != nil {
		return nil, err
	}
	out := &TOTPSetupOutput{}
	out.Body.Secret, out.Body.OTPAuthURI = st.Secret, st.URI
	return out, nil
}

// CodeInput is a body carrying a TOTP or recovery code.
type CodeInput struct {
	Body struct {
		Code string `json:"code" maxLength:"64" doc:"The authenticator's current 6-digit code (DELETE also takes a recovery code)"`
	}
}

// RecoveryCodesOutput are the recovery codes, shown once.
type RecoveryCodesOutput struct {
	Body struct {
		RecoveryCodes []string `json:"recovery_codes" nullable:"false" doc:"10 codes, each signing in once in place of a TOTP code; shown only here"`
	}
}

func (s *Server) confirmTOTP(ctx context.Context, in *CodeInput) (*RecoveryCodesOutput, error) {
	codes, err := s.auth.ConfirmTOTP(ctx, principal(ctx).User, in.Body.Code)
	if err != nil {
		return nil, err
	}
	out := &RecoveryCodesOutput{}
	out.Body.RecoveryCodes = codes
	return out, nil
}

func (s *Server) disableTOTP(ctx context.Context, in *CodeInput) (*struct{}, error) {
	return nil, s.auth.DisableTOTP(ctx, principal(ctx).User, in.Body.Code)
}

// totpRoutes registers two-factor sign-in (CONTRACT 8).
func (s *Server) totpRoutes(signedIn Access) {
	register(s, describe(withErrs(post("/v1/auth/totp", "begin-totp", "Set up two-factor sign-in", "Auth", http.StatusCreated), 409),
		"Makes a new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s), pending until confirmed with a code of it; a new call replaces a pending one. "+
			"409 conflict when two-factor sign-in is on already."), signedIn, s.beginTOTP)
	register(s, describe(withErrs(post("/v1/auth/totp/confirm", "confirm-totp", "Turn two-factor sign-in on", "Auth", http.StatusOK), 409),
		"Checks a code of the pending secret (the step before and after are accepted too) and answers the 10 recovery codes, shown only here. "+
			"A wrong code is 422 naming code and counts in the sign-in failure limit. From now on sign-in needs code."), signedIn, s.confirmTOTP)
	register(s, describe(withErrs(del("/v1/auth/totp", "disable-totp", "Turn two-factor sign-in off", "Auth"), 409),
		"Takes a current code or an unused recovery code; a wrong one is 422 naming code and counts in the sign-in failure limit. "+
			"The secret and the recovery codes are forgotten."), signedIn, s.disableTOTP)
}
