package email

import (
	"time"

	"github.com/errata-dev/errata/internal/mail"
)

// Invitation is an invitation to join an organization on Errata.
type Invitation struct {
	// Inviter and InviterEmail name the member who invited.
	Inviter, InviterEmail string
	Org                   string
	Role                  string
	// AcceptURL is the dashboard's page that accepts the invitation; it
	// carries the invitation's token.
	AcceptURL string
	ExpiresAt time.Time
}

// invitationView is an Invitation as its templates show it.
type invitationView struct {
	page
	Inviter, InviterEmail, Org, Role, AcceptURL, Expires string
}

// RenderInvitation renders an invitation. Its subject reads
// "<inviter> invited you to <organization> on Errata"; it carries no
// List-Unsubscribe (there is no channel to leave).
func RenderInvitation(inv Invitation) mail.Message {
	v := invitationView{Inviter: cut(line(inv.Inviter), 100), InviterEmail: cut(line(inv.InviterEmail), 254), Org: cut(line(inv.Org), 100),
		Role: word(inv.Role), AcceptURL: httpURL(inv.AcceptURL), Expires: inv.ExpiresAt.UTC().Format("2 January 2006 15:04 MST")}
	v.Why = "You receive this email because " + v.Inviter + " invited this address to " + v.Org +
		" on Errata. If you did not expect it, ignore it: nothing happens unless the invitation is accepted."
	v.Subject = subject("", inv.Inviter, " invited you to "+cut(v.Org, maxProject)+" on Errata")
	return render(invitationTemplates, v, "")
}
