package email

import (
	"github.com/errata-dev/errata/internal/mail"
)

// Confirmation asks the owner of an address to confirm that they want an
// email channel's notifications, before any is sent (CONTRACT 8).
type Confirmation struct {
	// Member and MemberEmail name the member the channel belongs to.
	Member, MemberEmail string
	Org, Project        string
	// Channel is the channel's name.
	Channel string
	// ConfirmURL is the public page that confirms; it carries the token.
	ConfirmURL string
}

// confirmationView is a Confirmation as its templates show it.
type confirmationView struct {
	page
	Member, MemberEmail, Org, Channel, ConfirmURL string
}

// RenderConfirmation renders a channel's confirmation email. Its subject
// reads "Confirm Errata notifications of <project> to this address"; the
// unsubscribe link (one-click List-Unsubscribe) stops the channel without
// confirming, and everything that members typed (names) is cut to one line.
func RenderConfirmation(c Confirmation, links Links) mail.Message {
	v := confirmationView{page: page{Project: cut(line(c.Project), 100), Unsubscribe: httpURL(links.Unsubscribe)},
		Member: cut(line(c.Member), 100), MemberEmail: cut(line(c.MemberEmail), 254), Org: cut(line(c.Org), 100),
		Channel: cut(line(c.Channel), 100), ConfirmURL: httpURL(c.ConfirmURL)}
	v.Why = "You receive this email because " + v.Member + " asked Errata to send notifications of the project " + v.Project +
		" to this address. Nothing more is sent to it unless you confirm; if you did not expect this, ignore this email."
	v.Subject = subject("Confirm Errata notifications of ", c.Project, " to this address")
	return render(confirmationTemplates, v, links.Unsubscribe)
}
