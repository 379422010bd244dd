package httpapi

import (
	"context"

	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
)

// ChannelView is a channel (spec section 2, CONTRACT 5). Its signing secret
// is never shown again after creation or rotation.
type ChannelView struct {
	ID                  string          `json:"id" doc:"chn_ identifier"`
	ProjectID           string          `json:"project_id"`
	MemberID            string          `json:"member_id" doc:"Member the channel belongs to"`
	Name                string          `json:"name"`
	Type                string          `json:"type" enum:"email,webhook"`
	Email               string          `json:"email,omitempty" doc:"Present for email channels"`
	URL                 string          `json:"url,omitempty" doc:"Present for webhook channels: whole for admins and owners; viewers and members see scheme://host[:port]/… (chat webhooks carry their secret in the URL)"`
	Format              ChannelFormat   `json:"format,omitempty" doc:"Webhook channels: the shape of what is sent. errata: the signed JSON bodies of the webhooks; the others: the chat tool's own message (docs/notifications.md). Deliveries keep the format they were queued in."`
	Filters             Filters         `json:"filters" doc:"Which tickets are sent at once; digests are not filtered"`
	Enabled             bool            `json:"enabled"`
	Health              string          `json:"health" enum:"ok,failing" doc:"failing after three deliveries in a row were given up; ok again after the next delivered one"`
	ConsecutiveFailures int64           `json:"consecutive_failures" doc:"Deliveries given up in a row"`
	LastDeliveryAt      *Timestamp      `json:"last_delivery_at" nullable:"true" doc:"When a delivery to this channel last ended, delivered or given up"`
	AllowedByPlan       bool            `json:"allowed_by_plan" doc:"false for a webhook channel kept after a downgrade to a plan without webhooks: it receives nothing"`
	PreviousSecretUntil *Timestamp      `json:"previous_secret_until" nullable:"true" doc:"Until then, after a rotation, the previous secret also signs (a second v1 entry)"`
	Confirmation        string          `json:"confirmation" enum:"pending,confirmed" doc:"pending: an email channel whose address is not the email of a member of the organization sends nothing (no ticket, digest or test) until the owner of the address opens the link of the confirmation email; confirmed: at once for a member's address, and for every webhook channel. Changing the address makes it pending again."`
	UnsubscribedAt      *Timestamp      `json:"unsubscribed_at" nullable:"true" doc:"When the owner of the address stopped the channel with the one-click unsubscribe link of one of its emails; the channel is then disabled until an admin enables it again, which asks for a new confirmation unless the address is a member's"`
	CreatedAt           Timestamp       `json:"created_at"`
	UpdatedAt           Timestamp       `json:"updated_at"`
	FilterWarnings      []FilterWarning `json:"filter_warnings" nullable:"false" doc:"Filter values no event of the project has had in the last 30 days: filters match exactly, so such a value takes no ticket (environment Production when the events say production); empty when every value was seen"`
}

// FilterWarning is a channel filter value no event of the project has had
// in the last 30 days (CONTRACT 8).
type FilterWarning struct {
	Filter  string `json:"filter" enum:"environments,services"`
	Value   string `json:"value"`
	Message string `json:"message" doc:"Why, naming the values the events carried that differ only by case or spaces, when there are"`
}

// warnedView is channelView with the channel's filter warnings.
func (s *Server) warnedView(ctx context.Context, ch store.Channel, plan string) (ChannelView, error) {
	views := []ChannelView{s.channelView(ctx, ch, plan)}
	err := s.warn(ctx, ch.ProjectID, views)
	return views[0], err
}

// warn fills in the filter warnings of views, channels of projectID, with
// one read per kind of filter for them all.
func (s *Server) warn(ctx context.Context, projectID string, views []ChannelView) error {
	fs := make([]store.Filters, len(views))
	for i, v := range views {
		fs[i] = store.Filters{Environments: v.Filters.Environments, Services: v.Filters.Services}
	}
	ws, err := s.notify.FilterWarnings(ctx, projectID, fs)
	if err != nil {
		return err
	}
	for i := range views {
		views[i].FilterWarnings = make([]FilterWarning, len(ws[i]))
		for j, w := range ws[i] {
			views[i].FilterWarnings[j] = FilterWarning{Filter: w.Filter, Value: w.Value, Message: w.Message}
		}
	}
	return nil
}

// Filters choose which tickets a channel is sent at once (CONTRACT 7).
type Filters struct {
	MinSeverity  string   `json:"min_severity" enum:"critical,high,medium" doc:"The lowest severity sent at once; lower ones wait for the digest"`
	Environments []string `json:"environments" nullable:"false" maxItems:"50" doc:"Tickets whose events come from one of these environments; empty: every environment"`
	Services     []string `json:"services" nullable:"false" maxItems:"50" doc:"Tickets of one of these services; empty: every service"`
}

// FiltersInput sets filters; an absent field keeps its value (the default
// at creation: high, every environment, every service).
type FiltersInput struct {
	MinSeverity  *string   `json:"min_severity,omitempty" enum:"critical,high,medium" doc:"The lowest severity sent at once (default high)"`
	Environments *[]string `json:"environments,omitempty" maxItems:"50" doc:"Environments sent; empty: all (default)"`
	Services     *[]string `json:"services,omitempty" maxItems:"50" doc:"Services sent; empty: all (default)"`
}

func (f *FiltersInput) patch() *notify.FiltersPatch {
	if f == nil {
		return nil
	}
	return &notify.FiltersPatch{MinSeverity: f.MinSeverity, Environments: f.Environments, Services: f.Services}
}

// ChannelWithSecret is a channel with its signing secret, shown once.
type ChannelWithSecret struct {
	ChannelView
	SigningSecret string `json:"signing_secret,omitempty" doc:"Webhook channels only: whsec_ and 32 random bytes in base64; the HMAC key is the whole string. Shown only in this answer."`
}

// channelView is ch as the caller of ctx may see it: a webhook's URL whole
// only for admins and owners (CONTRACT 7).
func (s *Server) channelView(ctx context.Context, ch store.Channel, plan string) ChannelView {
	role, _ := org.ParseRole(principal(ctx).Member.Role)
	v := ChannelView{ID: ch.ID, ProjectID: ch.ProjectID, MemberID: ch.MemberID, Name: ch.Name, Type: ch.Type, Email: ch.Email,
		URL: notify.ShownURL(ch.URL, role.AtLeast(org.Admin)), Filters: filtersView(ch.Filters),
		Enabled: ch.Enabled, Health: ch.Health, ConsecutiveFailures: ch.ConsecutiveFailures, LastDeliveryAt: tsPtr(ch.LastDeliveryAt),
		AllowedByPlan: notify.AllowedByPlan(plan, ch.Type), Confirmation: ch.Confirmation, UnsubscribedAt: tsPtr(ch.UnsubscribedAt),
		CreatedAt: ts(ch.CreatedAt), UpdatedAt: ts(ch.UpdatedAt)}
	if ch.Type == store.ChannelWebhook {
		v.Format = ChannelFormat(ch.Format)
	}
	if ch.OldSecretUntil != nil && ch.OldSecretUntil.After(s.now()) {
		v.PreviousSecretUntil = tsPtr(ch.OldSecretUntil)
	}
	return v
}

func filtersView(f store.Filters) Filters {
	v := Filters{MinSeverity: f.MinSeverity, Environments: f.Environments, Services: f.Services}
	if v.Environments == nil {
		v.Environments = []string{}
	}
	if v.Services == nil {
		v.Services = []string{}
	}
	return v
}

// planOf is the plan of the organization that owns a project.
func (s *Server) planOf(ctx context.Context, projectID string) (string, error) {
	orgID, err := s.projectOrg(ctx, projectID)
	if err != nil {
		return "", err
	}
	o, err := s.db.Read().OrgByID(ctx, orgID)
	return o.Plan, err
}

// ChannelPath names a channel.
type ChannelPath struct {
	ChannelID string `path:"channel_id" doc:"chn_ identifier"`
}

// ChannelOutput is one channel.
type ChannelOutput struct{ Body ChannelView }

// ChannelSecretOutput is one channel with its secret.
type ChannelSecretOutput struct{ Body ChannelWithSecret }

func (s *Server) listChannels(ctx context.Context, in *struct {
	ProjectPath
	ListParams
}) (*struct{ Body *Page[ChannelView] }, error) {
	plan, err := s.planOf(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	page, err := list(s, "channels:"+in.ProjectID, in.ListParams, func(before string, limit int) ([]store.Channel, error) {
		return s.db.Read().ListChannels(ctx, in.ProjectID, before, limit)
	}, func(ch store.Channel) string { return ch.ID }, func(ch store.Channel) ChannelView { return s.channelView(ctx, ch, plan) })
	if err == nil {
		err = s.warn(ctx, in.ProjectID, page.Data)
	}
	return &struct{ Body *Page[ChannelView] }{page}, err
}

func (s *Server) createChannel(ctx context.Context, in *struct {
	ProjectPath
	Body struct {
		MemberID string        `json:"member_id" minLength:"1" doc:"mem_ identifier of the member the channel belongs to"`
		Name     string        `json:"name" minLength:"1" maxLength:"100"`
		Type     string        `json:"type" enum:"email,webhook"`
		URL      string        `json:"url,omitempty" maxLength:"2048" doc:"Webhook channels: the https URL deliveries are POSTed to (spec section 2 rules)"`
		Email    string        `json:"email,omitempty" maxLength:"254" doc:"Email channels: the address (default: the member's), normalised (docs/decisions.md). Not a member's address: the channel is pending until the address confirms through the link emailed to it (at most 20 such emails per organization an hour, 100 a day: 429)."`
		Format   ChannelFormat `json:"format,omitempty" doc:"Webhook channels: the shape of what is sent (default errata; docs/notifications.md)"`
		Filters  *FiltersInput `json:"filters,omitempty" doc:"Which tickets are sent at once (default: high and critical, every environment and service)"`
	}
}) (*ChannelSecretOutput, error) {
	b := in.Body
	ch, err := s.notify.CreateChannel(ctx, in.ProjectID, notify.ChannelInput{MemberID: b.MemberID, Name: b.Name, Type: b.Type, URL: b.URL, Email: b.Email,
		Format: string(b.Format), Filters: b.Filters.patch()})
	if err != nil {
		return nil, err
	}
	return s.withSecret(ctx, ch)
}

func (s *Server) withSecret(ctx context.Context, ch store.Channel) (*ChannelSecretOutput, error) {
	plan, err := s.planOf(ctx, ch.ProjectID)
	if err != nil {
		return nil, err
	}
	v, err := s.warnedView(ctx, ch, plan)
	if err != nil {
		return nil, err
	}
	return &ChannelSecretOutput{ChannelWithSecret{v, ch.Secret}}, nil
}

func (s *Server) getChannel(ctx context.Context, in *ChannelPath) (*ChannelOutput, error) {
	ch, err := s.db.Read().ChannelByID(ctx, in.ChannelID)
	if err != nil {
		return nil, err
	}
	plan, err := s.planOf(ctx, ch.ProjectID)
	if err != nil {
		return nil, err
	}
	v, err := s.warnedView(ctx, ch, plan)
	if err != nil {
		return nil, err
	}
	return &ChannelOutput{v}, nil
}

func (s *Server) updateChannel(ctx context.Context, in *struct {
	ChannelPath
	Body struct {
		Name    *string        `json:"name,omitempty" minLength:"1" maxLength:"100"`
		Enabled *bool          `json:"enabled,omitempty" doc:"Disabling cancels the channel's pending deliveries. Enabling a channel its recipient unsubscribed from asks the address to confirm again, unless it is a member's."`
		URL     *string        `json:"url,omitempty" maxLength:"2048" doc:"Webhook channels only; checked by the rules of spec section 2"`
		Email   *string        `json:"email,omitempty" maxLength:"254" doc:"Email channels only; a new address that is not a member's makes the channel pending until it confirms"`
		Format  *ChannelFormat `json:"format,omitempty" doc:"Webhook channels only; deliveries already queued keep their format"`
		Filters *FiltersInput  `json:"filters,omitempty" doc:"Fields given replace the channel's; deliveries already queued are not touched"`
	}
}) (*ChannelOutput, error) {
	b := in.Body
	if _, err := s.notify.UpdateChannel(ctx, in.ChannelID, notify.ChannelPatch{Name: b.Name, Enabled: b.Enabled, URL: b.URL, Email: b.Email,
		Format: (*string)(b.Format), Filters: b.Filters.patch()}); err != nil {
		return nil, err
	}
	return s.getChannel(ctx, &in.ChannelPath)
}

func (s *Server) deleteChannel(ctx context.Context, in *ChannelPath) (*struct{}, error) {
	return nil, s.notify.DeleteChannel(ctx, in.ChannelID)
}

func (s *Server) rotateSecret(ctx context.Context, in *ChannelPath) (*ChannelSecretOutput, error) {
	ch, err := s.notify.RotateSecret(ctx, in.ChannelID)
	if err != nil {
		return nil, err
	}
	return s.withSecret(ctx, ch)
}

func (s *Server) resendConfirmation(ctx context.Context, in *ChannelPath) (*ChannelOutput, error) {
	if _, err := s.notify.ResendConfirmation(ctx, in.ChannelID); err != nil {
		return nil, err
	}
	return s.getChannel(ctx, in)
}

// TestOutcome answers a channel test (CONTRACT 5).
type TestOutcome struct {
	ID         string `json:"id" doc:"tst_ identifier of the test delivery, also in the delivery log"`
	Status     string `json:"status" enum:"delivered,failed"`
	HTTPStatus *int   `json:"http_status" nullable:"true" doc:"The receiver's status; null for email and when no answer came"`
	Error      string `json:"error" doc:"Why it failed; empty when delivered"`
	DurationMS int64  `json:"duration_ms"`
}

func (s *Server) testChannel(ctx context.Context, in *ChannelPath) (*struct{ Body TestOutcome }, error) {
	r, err := s.notify.TestChannel(ctx, in.ChannelID)
	if err != nil {
		return nil, err
	}
	out := TestOutcome{ID: r.ID, Status: store.DeliveryFailed, Error: r.Error, DurationMS: r.Duration.Milliseconds()}
	if r.Delivered {
		out.Status = store.DeliveryDelivered
	}
	if r.HTTPStatus != 0 {
		out.HTTPStatus = &r.HTTPStatus
	}
	return &struct{ Body TestOutcome }{out}, nil
}
