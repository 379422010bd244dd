package httpserver

import "github.com/danielgtaylor/huma/v2"

// tags declares, in reading order, the groups of operations the document's
// readers see; every tag an operation uses is declared here.
func tags() []*huma.Tag {
	return []*huma.Tag{
		{Name: "Auth", Description: "Sign up, sign in and sessions."},
		{Name: "Organizations", Description: "Organizations own projects and have members; their plan sets limits."},
		{Name: "Members", Description: "People in an organization and their roles: viewer, member, admin, owner."},
		{Name: "Invitations", Description: "Inviting people into an organization by email."},
		{Name: "Projects", Description: "A project receives the events of one application or system."},
		{Name: "API keys", Description: "Project API keys (svc_live_…): the credential of the ingestion endpoints."},
		{Name: "Releases", Description: "Versions of a project's code with their events, new groups, uploaded source maps and deploys; sentry-cli makes them (docs/sourcemaps.md)."},
		{Name: "Ingestion", Description: "Sending events: POST /v1/ingest, and OpenTelemetry logs over OTLP/HTTP."},
		{Name: "Tickets", Description: "Critical and high problems that need a person: opened, regressed, spiked, resolved."},
		{Name: "Error groups", Description: "Events grouped by fingerprint."},
		{Name: "INFO summaries", Description: "Info and debug events counted per window and message template."},
		{Name: "Channels", Description: "Where notifications go (webhooks, email), and their deliveries."},
		{Name: "Notifications", Description: "The digest schedule and the digests sent."},
		{Name: "Webhooks", Description: "The signed requests Errata POSTs to webhook channels."},
	}
}
