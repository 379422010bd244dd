package email

import (
	"github.com/errata-dev/errata/internal/mail"
)

// Verification asks the owner of a new account's address to confirm it
// (CONTRACT 8: email verification).
type Verification struct {
	Name string
	// VerifyURL is the dashboard page that verifies; it carries the token.
	VerifyURL string
}

// verificationView is a Verification as its templates show it.
type verificationView struct {
	page
	Name, VerifyURL string
}

// RenderVerification renders an account's verification email. Its subject
// reads "Confirm your email address for Errata"; it carries no
// List-Unsubscribe (there is no channel to leave).
func RenderVerification(v Verification) mail.Message {
	view := verificationView{Name: cut(line(v.Name), 100), VerifyURL: httpURL(v.VerifyURL)}
	view.Why = "You receive this email because an Errata account was created with this address. If it was not you, ignore it: " +
		"until the address is confirmed, the account gets no notifications and cannot join organizations that invite this address."
	view.Subject = "Confirm your email address for Errata"
	return render(verificationTemplates, view, "")
}
