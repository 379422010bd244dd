package web

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
