package notify_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/mail/mailtest"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// invite invites addr to the rig's organization through an org service
// that queues its email with the rig's notification service.
func (r *rig) invite(t *testing.T, addr string) org.NewInvitation {
	t.Helper()
	orgs := org.New(r.db, org.Options{AppURL: "https://errata.example", Mailer: r.svc, Now: r.clock.Now})
	inv, err := orgs.Invite(context.Background(), r.mem, addr, org.MemberRole)
	if err != nil {
		t.Fatalf("Invite: %v", err)
	}
	return inv
}

// smtpServer starts a real SMTP server and a sender to it.
func smtpServer(t *testing.T) (*mailtest.Server, *mail.Sender) {
	t.Helper()
	smtp := mailtest.Start(t)
	sender, err := mail.New(smtp.URL(), "Errata <errata@example.com>")
	if err != nil {
		t.Fatal(err)
	}
	return smtp, sender
}

func (r *rig) emailStatus(t *testing.T, invitationID string) string {
	t.Helper()
	st, err := r.svc.SystemEmailStatus(context.Background(), []string{invitationID})
	if err != nil {
		t.Fatal(err)
	}
	return st[invitationID]
}

// TestInvitationEmailIsDurable: an invitation's email is queued with the
// invitation, retried after an SMTP 4xx and sent with the link.
func TestInvitationEmailIsDurable(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		smtp, sender := smtpServer(t)
		r := newRig(t, db, notify.Options{Mail: sender})
		smtp.RejectRcpt("grace@example.com", 451, "greylisted, try again later")
		inv := r.invite(t, "grace@example.com")
		if got := r.emailStatus(t, inv.ID); got != store.DeliveryPending {
			t.Fatalf("email status after Invite = %q, want pending (queued with the invitation)", got)
		}
		if n := r.deliverDue(t); n != 1 {
			t.Fatalf("attempted %d deliveries, want the invitation's email", n)
		}
		if got, n := r.emailStatus(t, inv.ID), len(smtp.Messages()); got != store.DeliveryPending || n != 0 {
			t.Fatalf("after SMTP 451: status %q, %d messages; want pending for a retry and none", got, n)
		}
		if n := r.deliverDue(t); n != 0 {
			t.Fatalf("attempted %d deliveries before the retry is due, want 0", n)
		}
		smtp.RejectRcpt("grace@example.com", 0, "")
		r.clock.Set(t0.Add(2 * time.Minute))
		if n := r.deliverDue(t); n != 1 {
			t.Fatalf("attempted %d deliveries once the retry was due, want 1", n)
		}
		m := smtp.Wait(t, 10*time.Second, mailtest.To("grace@example.com"))
		if got, want := m.Header.Get("Subject"), "Ada invited you to Acme on Errata"; got != want {
			t.Errorf("Subject = %q, want %q", got, want)
		}
		if !strings.Contains(m.Parts["text/plain"], inv.AcceptURL) || !strings.Contains(m.Parts["text/html"], `href="`+inv.AcceptURL+`"`) {
			t.Errorf("the email lacks the link %s:\n%s", inv.AcceptURL, m.Parts["text/plain"])
		}
		if m.Header.Get("List-Unsubscribe") != "" {
			t.Errorf("List-Unsubscribe = %q, want none", m.Header.Get("List-Unsubscribe"))
		}
		if got := r.emailStatus(t, inv.ID); got != store.DeliveryDelivered {
			t.Fatalf("email status = %q, want delivered", got)
		}
	})
}

// TestInvitationEmailEnds: a 5xx gives the email up; a revoked
// invitation's email is cancelled, not sent; without SMTP nothing is
// queued (the link is only in the answer, as before).
func TestInvitationEmailEnds(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		smtp, sender := smtpServer(t)
		r := newRig(t, db, notify.Options{Mail: sender})
		smtp.RejectRcpt("nobody@example.com", 550, "no such user")
		gone := r.invite(t, "nobody@example.com")
		revoked := r.invite(t, "late@example.com")
		orgs := org.New(db, org.Options{Now: r.clock.Now})
		if err := orgs.Revoke(ctx, revoked.ID); err != nil {
			t.Fatal(err)
		}
		r.deliverDue(t)
		if got := r.emailStatus(t, gone.ID); got != store.DeliveryFailed {
			t.Errorf("after SMTP 550: %q, want failed", got)
		}
		if got := r.emailStatus(t, revoked.ID); got != store.DeliveryCancelled {
			t.Errorf("revoked invitation's email: %q, want cancelled", got)
		}
		if n := len(smtp.Messages()); n != 0 {
			t.Errorf("%d emails sent, want none", n)
		}

		quiet := newRig(t, db, notify.Options{})
		inv := quiet.invite(t, "someone@example.com")
		if got := quiet.emailStatus(t, inv.ID); got != "" || inv.AcceptURL == "" {
			t.Errorf("without SMTP: email status %q, accept_url %q; want no email and the link in the answer", got, inv.AcceptURL)
		}
	})
}
