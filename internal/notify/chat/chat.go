// Package chat renders Errata's notifications (a ticket alert, a digest, a
// channel test) as the messages that chat tools' incoming webhooks take:
// Slack (Block Kit), Microsoft Teams (a Workflows message carrying an
// Adaptive Card), Discord, Mattermost, Google Chat and ntfy (CONTRACT 7).
//
// It is pure: no store and no network. Everything in a notice.Notification is
// treated as untrusted (ticket titles come from ingested events): each
// format escapes what its markup needs, mentions cannot be triggered, and
// every field is cut with "…" to the target's limits, counted in the unit
// the target counts (bytes, code points or UTF-16 code units). Render never
// fails for length. docs/notifications.md describes each format.
//
// The default format, errata, is the signed JSON body of the interface
// document; the delivery engine builds it, not this package.
package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/errata-dev/errata/internal/notify/notice"
)

// The webhook channel formats (CONTRACT 7).
const (
	Errata     = "errata" // the default: spec 6.1–6.3 bodies, not rendered here
	Slack      = "slack"
	Teams      = "teams"
	Discord    = "discord"
	Mattermost = "mattermost"
	GoogleChat = "google-chat"
	Ntfy       = "ntfy"
)

// Format is a webhook channel format: its name in the API, its name for
// people in the dashboard, and (but for errata) how it is rendered.
type Format struct {
	Name  string
	Label string
	r     *renderer // nil for errata
}

// registry is every webhook channel format, the default (Errata) first:
// the one list from which validation, the OpenAPI enums and the
// dashboard's choices come. A new format is one entry here and its build
// function (docs/architecture.md).
var registry = []Format{
	{Name: Errata, Label: "Errata JSON (signed, for your own receiver)"},
	{Name: Slack, Label: "Slack", r: &renderer{contentType: jsonType, max: slackTotal, build: buildSlack}},
	{Name: Teams, Label: "Microsoft Teams (Workflows)", r: &renderer{contentType: jsonType, max: teamsMax, build: buildTeams}},
	{Name: Discord, Label: "Discord", r: &renderer{contentType: jsonType, max: discordTotal, build: buildDiscord}},
	{Name: Mattermost, Label: "Mattermost", r: &renderer{contentType: jsonType, max: mattermostTotal, build: buildMattermost}},
	{Name: GoogleChat, Label: "Google Chat", r: &renderer{contentType: jsonType, max: googleChatMax, build: buildGoogleChat}},
	{Name: Ntfy, Label: "ntfy", r: &renderer{contentType: "text/plain; charset=utf-8", max: ntfyMax, build: buildNtfy}},
}

// Formats lists the names of every webhook channel format, the default
// (Errata) first.
func Formats() []string {
	out := make([]string, len(registry))
	for i, f := range registry {
		out[i] = f.Name
	}
	return out
}

// Lookup returns the format called name.
func Lookup(name string) (Format, bool) {
	i := slices.IndexFunc(registry, func(f Format) bool { return f.Name == name })
	if i < 0 {
		return Format{}, false
	}
	return registry[i], true
}

// Valid reports whether format is a webhook channel format, Errata included.
func Valid(format string) bool {
	_, ok := Lookup(format)
	return ok
}

// ErrErrataFormat is returned by Render for the errata format, whose bodies
// the delivery engine builds (spec 6.1–6.3).
var ErrErrataFormat = errors.New("chat: the errata format is not rendered by package chat")

// Rendered is a message ready to be POSTed to the channel's URL.
type Rendered struct {
	// Body is the request body; Service-Signature signs these bytes.
	Body []byte
	// ContentType is the Content-Type header to send.
	ContentType string
	// Headers are further request headers the format needs (ntfy's title,
	// priority, tags and click address), or nil.
	Headers map[string]string
}

// renderer builds one format at a level of detail: level 0 is the fullest,
// and each level up roughly halves every text budget. Render climbs until
// the message's size (in the target's own measure) is within max.
type renderer struct {
	contentType string
	max         int
	build       func(m *message, level int) built
}

// built is one attempt: the body, its headers, and its size as the
// target measures the limit that max stands for.
type built struct {
	body    []byte
	headers map[string]string
	size    int
}

// maxLevel is the last level tried; at it every text is a few dozen units
// long, so that even a digest of 100 hostile tickets fits every target.
const maxLevel = 8

const jsonType = "application/json"

// Render renders n in format. It fails only for the errata format
// (ErrErrataFormat), an unknown format, or a notification that is not
// exactly one of a ticket, a digest and a test; never for length.
func Render(format string, n notice.Notification) (Rendered, error) {
	f, ok := Lookup(format)
	r := f.r
	switch {
	case format == Errata:
		return Rendered{}, ErrErrataFormat
	case !ok || r == nil:
		return Rendered{}, fmt.Errorf("chat: unknown format %q", format)
	case n.Event() == "":
		return Rendered{}, errors.New("chat: a notification is exactly one of a ticket, a digest and a test")
	}
	m := newMessage(n)
	var b built
	for level := 0; level <= maxLevel; level++ {
		if b = r.build(m, level); b.size <= r.max {
			break
		}
	}
	return Rendered{Body: b.body, ContentType: r.contentType, Headers: b.headers}, nil
}

// encode writes v as JSON without HTML escaping (chat services take "<"
// as it is; "\u003c" would only cost bytes against their limits).
func encode(v any) []byte {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		// Only maps and structs of strings and numbers are encoded here.
		panic("chat: encode: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// scaled is n at a level of detail: halved per level, never below 24 units
// (or n, when n is smaller).
func scaled(n, level int) int {
	return max(n>>level, min(n, 24))
}

// meter counts the text a message carries, in one unit, for targets
// whose limit is on the sum of their texts rather than on the body.
type meter struct {
	u    unit
	used int
}

// add counts s and returns it.
func (m *meter) add(s string) string {
	m.used += m.u.count(s)
	return s
}
