package org

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/slug"
	"github.com/errata-dev/errata/internal/store"
)

// Mailer queues the email of an invitation in the transaction that creates
// the invitation, for a durable sender to deliver and retry (the delivery
// engine, notify.Service).
type Mailer interface {
	QueueInvitation(ctx context.Context, c *store.Conn, m InvitationEmail) error
	// Wake tells the sender that an email was queued, after the commit.
	Wake()
}

// Service manages organizations, members, invitations and projects.
type Service struct {
	db          *store.DB
	now         func() time.Time
	defaultPlan string
	appURL      string
	mailer      Mailer // nil: invitations are not emailed
	log         *slog.Logger
}

// Options configure a Service.
type Options struct {
	DefaultPlan string
	AppURL      string
	Mailer      Mailer
	Logger      *slog.Logger
	Now         func() time.Time
}

// New returns a Service.
func New(db *store.DB, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.DefaultPlan == "" {
		opts.DefaultPlan = PlanTeam
	}
	return &Service{db: db, now: opts.Now, defaultPlan: opts.DefaultPlan, appURL: opts.AppURL, mailer: opts.Mailer, log: opts.Logger}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// Create makes an organization with creator as its owner.
func (s *Service) Create(ctx context.Context, creator store.User, name string) (store.Org, error) {
	if err := CheckName(name); err != nil {
		return store.Org{}, err
	}
	now := s.clock()
	o := store.Org{ID: id.New(id.Org), Name: strings.TrimSpace(name), Plan: s.defaultPlan, CreatedAt: now, UpdatedAt: now}
	for attempt := 1; ; attempt++ {
		err := s.createOrg(ctx, &o, creator, now)
		if errors.Is(err, store.ErrConflict) && attempt < slugAttempts {
			continue // another organization of the name took the free slug meanwhile
		}
		return o, err
	}
}

// createOrg inserts o, with the next free slug of its name, and its owner.
func (s *Service) createOrg(ctx context.Context, o *store.Org, creator store.User, now time.Time) error {
	return s.db.Tx(ctx, func(c *store.Conn) error {
		base := slug.Make(o.Name, "org")
		taken, err := c.OrgSlugsLike(ctx, base)
		if err != nil {
			return err
		}
		o.Slug = slug.Free(base, taken)
		if err := c.CreateOrg(ctx, *o); err != nil {
			return err
		}
		return c.CreateMember(ctx, store.Member{ID: id.New(id.Member), OrgID: o.ID, UserID: creator.ID, Role: Owner.String(), CreatedAt: now})
	})
}

// Rename changes an organization's name.
func (s *Service) Rename(ctx context.Context, orgID, name string) (store.Org, error) {
	return s.Update(ctx, orgID, Caller{}, Settings{Name: &name})
}

// Settings is a change of an organization: nil fields stay as they are.
type Settings struct {
	Name, Slug              *string
	Require2FA, SSORequired *bool
}

// Caller is who changes an organization's sign-in rules: requiring
// two-factor sign-in takes an account that has it, requiring single
// sign-on a session that signed in through it (nobody locks themselves out).
type Caller struct {
	User    store.User
	Session store.Session
}

// Update changes an organization's name and sign-in rules, each change
// recorded in its audit log.
func (s *Service) Update(ctx context.Context, orgID string, by Caller, in Settings) (store.Org, error) {
	if in == (Settings{}) {
		return store.Org{}, problem.New("validation-failed", "name: required, unless slug, require_2fa or sso_required is given")
	}
	if in.Name != nil || in.Slug != nil {
		if err := (Change{Name: in.Name, Slug: in.Slug}).check(); err != nil {
			return store.Org{}, err
		}
	}
	if in.Require2FA != nil && *in.Require2FA && !by.User.HasTOTP() {
		return store.Org{}, problem.New("2fa-required", "require_2fa: turn on two-factor sign-in for your own account first")
	}
	if in.SSORequired != nil && *in.SSORequired && by.Session.Method != store.SignInOIDC {
		return store.Org{}, problem.New("sso-required", "sso_required: sign in through single sign-on first, so that you keep access")
	}
	var o store.Org
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		var err error
		if o, err = c.OrgByID(ctx, orgID); err != nil {
			return err
		}
		before := o
		if in.Name != nil {
			o.Name = strings.TrimSpace(*in.Name)
		}
		if in.Slug != nil {
			o.Slug = *in.Slug
		}
		if in.Require2FA != nil {
			o.Require2FA = *in.Require2FA
		}
		if in.SSORequired != nil {
			o.SSORequired = *in.SSORequired
		}
		o.UpdatedAt = s.clock()
		if err := c.UpdateOrg(ctx, o); err != nil {
			return slugTaken(err, in.Slug)
		}
		return s.recordOrgChanges(ctx, c, before, o)
	})
	return o, err
}

// recordOrgChanges writes an audit entry for each setting that changed
// from a to b.
func (s *Service) recordOrgChanges(ctx context.Context, c *store.Conn, a, b store.Org) error {
	changes := []struct {
		action   string
		from, to any
		changed  bool
	}{
		{"org.renamed", a.Name, b.Name, a.Name != b.Name},
		{"org.slug_changed", a.Slug, b.Slug, a.Slug != b.Slug},
		{"org.require_2fa_changed", a.Require2FA, b.Require2FA, a.Require2FA != b.Require2FA},
		{"org.sso_required_changed", a.SSORequired, b.SSORequired, a.SSORequired != b.SSORequired},
	}
	for _, ch := range changes {
		if !ch.changed {
			continue
		}
		if err := s.record(ctx, c, b.ID, ch.action, b.ID, map[string]any{"from": ch.from, "to": ch.to}); err != nil {
			return err
		}
	}
	return nil
}

// record writes an audit entry dated by the service's clock in c's
// transaction.
func (s *Service) record(ctx context.Context, c *store.Conn, orgID, action, target string, data map[string]any) error {
	return audit.Record(ctx, c, audit.Entry{OrgID: orgID, Action: action, Target: target, Data: data, At: s.clock()})
}

// SetPlan moves an organization to plan.
func (s *Service) SetPlan(ctx context.Context, orgID, plan string) (store.Org, error) {
	if !ValidPlan(plan) {
		return store.Org{}, problem.Newf("validation-failed", "plan: %q is not a plan (want free or team)", plan)
	}
	o, err := s.db.Read().OrgByID(ctx, orgID)
	if err != nil {
		return store.Org{}, err
	}
	o.Plan, o.UpdatedAt = plan, s.clock()
	return o, s.db.Write().UpdateOrg(ctx, o)
}

// SetRole changes a member's role on behalf of actor. Only an owner may make
// or unmake an owner, and the last owner cannot be demoted.
func (s *Service) SetRole(ctx context.Context, actor store.Member, memberID string, role Role) (store.Member, error) {
	var out store.Member
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		m, actor, err := lockedPair(ctx, c, actor, memberID)
		if err != nil {
			return err
		}
		if err := s.mayChangeOwner(ctx, c, actor, m, role); err != nil {
			return err
		}
		if err := c.SetMemberRole(ctx, m.ID, role.String()); err != nil {
			return err
		}
		from := m.Role
		m.Role = role.String()
		out = m
		if from == m.Role { // nothing changed: nothing to audit
			return nil
		}
		return s.record(ctx, c, m.OrgID, "member.role_changed", m.ID, map[string]any{"email": m.Email, "from": from, "to": m.Role})
	})
	return out, err
}

// Remove takes a member out of an organization. Anyone may leave; removing
// someone else takes an admin, and removing an owner takes an owner.
func (s *Service) Remove(ctx context.Context, actor store.Member, memberID string) error {
	return s.db.Tx(ctx, func(c *store.Conn) error {
		m, actor, err := lockedPair(ctx, c, actor, memberID)
		if err != nil {
			return err
		}
		if m.ID != actor.ID {
			if r, _ := ParseRole(actor.Role); !r.AtLeast(Admin) {
				return problem.New("forbidden", "removing another member takes the admin role")
			}
		}
		if err := s.mayChangeOwner(ctx, c, actor, m, 0); err != nil {
			return err
		}
		unassigned, err := c.DeleteMember(ctx, m.ID)
		if err != nil {
			return err
		}
		// Each group it was assigned says so in its activity, by whoever
		// removed the member.
		data, _ := json.Marshal(map[string]string{"member_id": m.ID})
		now := s.clock()
		for _, g := range unassigned {
			if err := c.InsertActivity(ctx, store.Activity{ID: id.New(id.Activity), GroupID: g, Kind: store.ActivityUnassigned,
				ActorID: actor.ID, ActorName: actor.Name, Data: string(data), CreatedAt: now}); err != nil {
				return err
			}
		}
		return s.record(ctx, c, m.OrgID, "member.removed", m.ID, map[string]any{"email": m.Email, "role": m.Role})
	})
}

// lockedPair locks the organization of member memberID (the owner rules
// count its owners: two owners demoting each other at once must not both
// succeed) and reads that member and the actor again under the lock, so
// that neither decision rests on a role that has just changed. An actor
// who is no longer a member is forbidden.
func lockedPair(ctx context.Context, c *store.Conn, actor store.Member, memberID string) (store.Member, store.Member, error) {
	m, err := c.MemberByID(ctx, memberID)
	if err != nil {
		return m, actor, err
	}
	if err := c.LockOrg(ctx, m.OrgID); err != nil {
		return m, actor, err
	}
	if m, err = c.MemberByID(ctx, memberID); err != nil {
		return m, actor, err
	}
	a, err := c.MemberByID(ctx, actor.ID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && a.OrgID != m.OrgID) {
		return m, actor, problem.New("forbidden", "you are no longer a member of this organization")
	}
	return m, a, err
}

// mayChangeOwner checks the owner rules for giving m the role to (0: removal).
func (s *Service) mayChangeOwner(ctx context.Context, c *store.Conn, actor, m store.Member, to Role) error {
	isOwner := m.Role == Owner.String()
	if !isOwner && to != Owner {
		return nil
	}
	// No exception for actor's own membership: a non-owner touching an
	// owner's role can only be promoting themselves, which takes an owner.
	if actor.Role != Owner.String() {
		return problem.New("forbidden", "only an owner can promote to owner or change an owner")
	}
	if isOwner && to != Owner {
		n, err := c.CountOwners(ctx, m.OrgID)
		if err != nil {
			return err
		}
		if n <= 1 {
			return problem.New("last-owner", "the organization's last owner cannot leave or be demoted; promote another member first")
		}
	}
	return nil
}
