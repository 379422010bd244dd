package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// Channel types and health values.
const (
	ChannelWebhook = "webhook"
	ChannelEmail   = "email"

	HealthOK      = "ok"
	HealthFailing = "failing"

	// An email channel to an address that is not a member's own is
	// pending until its recipient opens the confirmation link (CONTRACT 8).
	ConfirmationPending   = "pending"
	ConfirmationConfirmed = "confirmed"

	// FailingAfter is how many deliveries given up in a row mark a channel
	// failing (spec section 3).
	FailingAfter = 3
)

// Channel is where a project's notifications go: a webhook URL or an email
// address.
type Channel struct {
	ID        string
	ProjectID string
	MemberID  string
	Name      string
	Type      string
	URL       string
	Email     string
	Enabled   bool
	// Secret signs webhook bodies; OldSecret signs them too until
	// OldSecretUntil, so receivers can roll over.
	Secret         string
	OldSecret      string
	OldSecretUntil *time.Time
	// Format is a webhook channel's message format: errata or a chat
	// tool's (package chat); an email channel's is "errata" and unused.
	Format string
	// Filters choose the tickets sent at once; digests are not filtered.
	Filters             Filters
	Health              string
	ConsecutiveFailures int64
	LastDeliveryAt      *time.Time
	LastTestAt          *time.Time
	CreatedAt           time.Time
	UpdatedAt           time.Time
	// Confirmation is pending or confirmed (every webhook channel is).
	Confirmation string
	// UnsubscribedAt is when the recipient stopped the channel with an
	// email's one-click unsubscribe link; nil otherwise.
	UnsubscribedAt *time.Time
}

// Sends reports whether deliveries to the channel are made: it is enabled,
// confirmed and its recipient has not unsubscribed.
func (ch Channel) Sends() bool {
	return ch.Enabled && ch.Confirmation != ConfirmationPending && ch.UnsubscribedAt == nil
}

// Filters choose which tickets a channel is sent at once (CONTRACT 7).
type Filters struct {
	// MinSeverity is the lowest severity sent: critical, high or medium.
	MinSeverity string
	// Environments and Services list what is sent; empty means all.
	Environments []string
	Services     []string
}

// Secrets returns the secrets that sign at now, newest first.
func (ch Channel) Secrets(now time.Time) [][]byte {
	out := [][]byte{[]byte(ch.Secret)}
	if ch.OldSecret != "" && ch.OldSecretUntil != nil && now.Before(*ch.OldSecretUntil) {
		out = append(out, []byte(ch.OldSecret))
	}
	return out
}

const channelCols = `id, project_id, member_id, name, type, url, email, enabled, secret, old_secret, old_secret_until,
	health, consecutive_failures, last_delivery_at, last_test_at, created_at, updated_at, format, min_severity, environments, services,
	confirmation, unsubscribed_at`

func scanChannel(s interface{ Scan(...any) error }) (Channel, error) {
	var ch Channel
	var osu, ld, lt, us sql.NullInt64
	var cr, up int64
	var envs, svcs string
	if err := s.Scan(&ch.ID, &ch.ProjectID, &ch.MemberID, &ch.Name, &ch.Type, &ch.URL, &ch.Email, &ch.Enabled, &ch.Secret, &ch.OldSecret, &osu,
		&ch.Health, &ch.ConsecutiveFailures, &ld, &lt, &cr, &up, &ch.Format, &ch.Filters.MinSeverity, &envs, &svcs,
		&ch.Confirmation, &us); err != nil {
		return Channel{}, err
	}
	ch.UnsubscribedAt = fromNullMS(us)
	_ = json.Unmarshal([]byte(envs), &ch.Filters.Environments)
	_ = json.Unmarshal([]byte(svcs), &ch.Filters.Services)
	ch.OldSecretUntil, ch.LastDeliveryAt, ch.LastTestAt = fromNullMS(osu), fromNullMS(ld), fromNullMS(lt)
	ch.CreatedAt, ch.UpdatedAt = fromMS(cr), fromMS(up)
	return ch, nil
}

// Channel defaults: the errata format, and tickets of high severity and
// above (CONTRACT 7).
const (
	DefaultFormat      = "errata"
	DefaultMinSeverity = "high"
)

// withDefaults fills what a channel written without them takes.
func (ch Channel) withDefaults() Channel {
	if ch.Format == "" {
		ch.Format = DefaultFormat
	}
	if ch.Filters.MinSeverity == "" {
		ch.Filters.MinSeverity = DefaultMinSeverity
	}
	if ch.Confirmation == "" {
		ch.Confirmation = ConfirmationConfirmed
	}
	return ch
}

// CreateChannel inserts ch.
func (c *Conn) CreateChannel(ctx context.Context, ch Channel) error {
	ch = ch.withDefaults()
	_, err := c.exec(ctx, `INSERT INTO channels (`+channelCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		ch.ID, ch.ProjectID, ch.MemberID, ch.Name, ch.Type, ch.URL, ch.Email, ch.Enabled, ch.Secret, ch.OldSecret, nullMS(ch.OldSecretUntil),
		ch.Health, ch.ConsecutiveFailures, nullMS(ch.LastDeliveryAt), nullMS(ch.LastTestAt), ms(ch.CreatedAt), ms(ch.UpdatedAt),
		ch.Format, ch.Filters.MinSeverity, jsonList(ch.Filters.Environments), jsonList(ch.Filters.Services), ch.Confirmation, nullMS(ch.UnsubscribedAt))
	if err != nil {
		return fmt.Errorf("store: create channel: %w", translate(err))
	}
	return nil
}

// ChannelByID returns one channel.
// LockChannel returns one channel, locked until the end of the
// transaction on PostgreSQL (SQLite's transaction holds the writer), so that
// it cannot be disabled between a check and the write that follows it.
func (c *Conn) LockChannel(ctx context.Context, id string) (Channel, error) {
	ch, err := scanChannel(c.queryRow(ctx, `SELECT `+channelCols+` FROM channels WHERE id = ?`+c.drv.rowLock(), id))
	if err != nil {
		return Channel{}, fmt.Errorf("store: channel %s: %w", id, translate(err))
	}
	return ch, nil
}

// ChannelByID returns one channel.
func (c *Conn) ChannelByID(ctx context.Context, id string) (Channel, error) {
	ch, err := scanChannel(c.queryRow(ctx, `SELECT `+channelCols+` FROM channels WHERE id = ?`, id))
	if err != nil {
		return Channel{}, fmt.Errorf("store: channel %s: %w", id, translate(err))
	}
	return ch, nil
}

// ListChannels lists a project's channels, newest first.
func (c *Conn) ListChannels(ctx context.Context, projectID, before string, limit int) ([]Channel, error) {
	rows, err := c.query(ctx, `SELECT `+channelCols+` FROM channels WHERE project_id = ? AND (? = '' OR id < ?) ORDER BY id DESC LIMIT ?`,
		projectID, before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list channels: %w", err)
	}
	return collect(rows, scanChannel)
}

// EnabledChannels lists the enabled channels of a project, oldest first.
func (c *Conn) EnabledChannels(ctx context.Context, projectID string) ([]Channel, error) {
	rows, err := c.query(ctx, `SELECT `+channelCols+` FROM channels WHERE project_id = ? AND enabled = ? ORDER BY id`, projectID, true)
	if err != nil {
		return nil, fmt.Errorf("store: enabled channels: %w", err)
	}
	return collect(rows, scanChannel)
}

// FailingChannels lists a project's failing channels.
func (c *Conn) FailingChannels(ctx context.Context, projectID string) ([]Channel, error) {
	rows, err := c.query(ctx, `SELECT `+channelCols+` FROM channels WHERE project_id = ? AND health = ? ORDER BY id`, projectID, HealthFailing)
	if err != nil {
		return nil, fmt.Errorf("store: failing channels: %w", err)
	}
	return collect(rows, scanChannel)
}

// CountChannels counts a project's channels (for the plan limit).
func (c *Conn) CountChannels(ctx context.Context, projectID string) (int, error) {
	var n int
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM channels WHERE project_id = ?`, projectID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count channels: %w", err)
	}
	return n, nil
}

// UpdateChannel writes the editable fields and the secrets of ch (not its
// confirmation nor its unsubscription: those change only through their own
// methods, so that an edit read before a recipient's click cannot undo it).
func (c *Conn) UpdateChannel(ctx context.Context, ch Channel) error {
	ch = ch.withDefaults()
	if err := c.execOne(ctx, `UPDATE channels SET name = ?, url = ?, email = ?, enabled = ?, secret = ?, old_secret = ?, old_secret_until = ?, updated_at = ?,
		format = ?, min_severity = ?, environments = ?, services = ? WHERE id = ?`,
		ch.Name, ch.URL, ch.Email, ch.Enabled, ch.Secret, ch.OldSecret, nullMS(ch.OldSecretUntil), ms(ch.UpdatedAt),
		ch.Format, ch.Filters.MinSeverity, jsonList(ch.Filters.Environments), jsonList(ch.Filters.Services), ch.ID); err != nil {
		return fmt.Errorf("store: update channel %s: %w", ch.ID, err)
	}
	return nil
}

// DeleteChannel deletes a channel and its deliveries.
func (c *Conn) DeleteChannel(ctx context.Context, id string) error {
	if err := c.execOne(ctx, `DELETE FROM channels WHERE id = ?`, id); err != nil {
		return fmt.Errorf("store: delete channel %s: %w", id, err)
	}
	return nil
}

// ClaimChannelTest records a test at now unless the channel was tested less
// than every ago; then it returns ErrConflict and the time of the last test.
func (c *Conn) ClaimChannelTest(ctx context.Context, id string, now time.Time, every time.Duration) (time.Time, error) {
	err := c.execOne(ctx, `UPDATE channels SET last_test_at = ? WHERE id = ? AND (last_test_at IS NULL OR last_test_at <= ?)`,
		ms(now), id, ms(now.Add(-every)))
	if err == nil {
		return now, nil
	}
	ch, gerr := c.ChannelByID(ctx, id)
	if gerr != nil {
		return time.Time{}, gerr
	}
	if ch.LastTestAt == nil {
		return time.Time{}, err
	}
	return *ch.LastTestAt, fmt.Errorf("store: channel %s tested recently: %w", id, ErrConflict)
}

// recordHealth applies a finished delivery to its channel's health: a
// delivery given up counts towards failing, a delivered one clears it.
func (c *Conn) recordHealth(ctx context.Context, channelID string, delivered bool, at time.Time) error {
	var err error
	if delivered {
		_, err = c.exec(ctx, `UPDATE channels SET consecutive_failures = 0, health = ?, last_delivery_at = ? WHERE id = ?`, HealthOK, ms(at), channelID)
	} else {
		_, err = c.exec(ctx, `UPDATE channels SET consecutive_failures = consecutive_failures + 1,
			health = CASE WHEN consecutive_failures + 1 >= ? THEN ? ELSE health END, last_delivery_at = ? WHERE id = ?`,
			FailingAfter, HealthFailing, ms(at), channelID)
	}
	if err != nil {
		return fmt.Errorf("store: channel %s health: %w", channelID, err)
	}
	return nil
}
