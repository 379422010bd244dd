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

// VerifyEmailInput carries a verification link's token.
type VerifyEmailInput struct {
	Body struct {
		Token string `json:"token" minLength:"1" maxLength:"200" doc:"The token of the verification email's link"`
	}
}

// UserOutput is one user.
type UserOutput struct{ Body UserView }

func (s *Server) verifyEmail(ctx context.Context, in *VerifyEmailInput) (*UserOutput, error) {
	u, err := s.auth.VerifyEmail(ctx, in.Body.Token)
	if err != nil {
		return nil, err
	}
	return &UserOutput{userView(u)}, nil
}

func (s *Server) sendVerification(ctx context.Context, _ *struct{}) (*struct{}, error) {
	return nil, s.auth.SendVerification(ctx, principal(ctx).User)
}

// verificationRoutes registers email verification (CONTRACT 8).
func (s *Server) verificationRoutes(public, signedIn Access) {
	register(s, describe(post("/v1/auth/verify-email", "verify-email", "Verify an account's email address", "Auth", http.StatusOK),
		"Takes the token of the verification email's link (valid seven days, once) and answers the account. Its pending email channels to "+
			"that address are confirmed with it. An unknown, used or expired token is 422 naming token."), public, s.verifyEmail)
	register(s, describe(withErrs(post("/v1/auth/verify-email/send", "send-verification-email", "Send the verification email again", "Auth", http.StatusNoContent), 409),
		"A new link replaces the previous one; at most 5 an hour (429). A verified address, or a server without SMTP, is 409 conflict."),
		signedIn, s.sendVerification)
}
