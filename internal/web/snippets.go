package web

import (
	"net/url"

	"github.com/errata-dev/errata/internal/sentry"
	"github.com/errata-dev/errata/internal/store"
)

// snippetData fills the "ingest-snippets" partial: how to send events to a
// project, with curl against POST /v1/ingest and with any OpenTelemetry SDK
// exporting OTLP/HTTP logs to POST /v1/logs.
type snippetData struct {
	// BaseURL is the API's public URL.
	BaseURL string
	// Key is a freshly created key to paste in, or "" for a placeholder.
	Key string
}

// snippetsFor returns the snippets' data; key may be "".
func (d *Dashboard) snippetsFor(key string) snippetData {
	return snippetData{BaseURL: d.baseURL, Key: key}
}

// sentrySnippetData fills the "sentry-snippets" partial: how an application
// that already has a Sentry SDK reports to Errata, with the key's DSN.
type sentrySnippetData struct {
	// DSN is the key as a Sentry DSN: shown only with a new key.
	DSN string
}

// sentrySnippetsFor returns the DSN of key for project prj, as the API's
// key creation answers it (sentry.FormatDSN over the base URL).
func (d *Dashboard) sentrySnippetsFor(prj store.Project, key string) sentrySnippetData {
	base, err := url.Parse(d.baseURL)
	if err != nil { // validated at start: never
		return sentrySnippetData{}
	}
	return sentrySnippetData{DSN: sentry.FormatDSN(base, key, prj.Number)}
}
