package process

import (
	"bytes"

	"github.com/mileusna/useragent"

	"github.com/errata-dev/errata/internal/ingest"
)

// agentKeys are the attributes that may carry a user agent, most specific
// first: OpenTelemetry's user_agent.original and http.user_agent, a plain
// user_agent, and the Sentry request's User-Agent header (mapped to
// user_agent).
var agentKeys = [...]string{"user_agent.original", "http.user_agent", "user_agent"}

// deriveAgent adds browser and os, the names of the browser and the
// operating system a user agent names (CONTRACT 8), when the event has no
// such attribute and carries a user agent. The parsing is
// github.com/mileusna/useragent's, not regular expressions of our own.
func deriveAgent(kvs []facetKV) []facetKV {
	var agent string
	hasBrowser, hasOS := false, false
	for _, want := range agentKeys {
		for _, kv := range kvs {
			if kv.key == want && agent == "" {
				agent = kv.value
			}
		}
	}
	for _, kv := range kvs {
		hasBrowser = hasBrowser || kv.key == "browser"
		hasOS = hasOS || kv.key == "os"
	}
	if agent == "" || (hasBrowser && hasOS) {
		return kvs
	}
	ua := useragent.Parse(agent)
	if !hasBrowser && ua.Name != "" {
		kvs = append(kvs, facetKV{"browser", cutRunes(ua.Name, maxFacetValue)})
	}
	if !hasOS && ua.OS != "" {
		kvs = append(kvs, facetKV{"os", cutRunes(ua.OS, maxFacetValue)})
	}
	return kvs
}

// sampleAgent is the browser and operating system of an event kept as a
// sample, derived from its user agent when it has one (ingest.Agent): the
// group's events list finds the sample by them, as the group list does
// through the counts. Only samples pay for it.
func sampleAgent(e *ingest.Event) ingest.Agent {
	if !bytes.Contains(e.Attributes, []byte("user_agent")) { // every key of agentKeys has it
		return ingest.Agent{}
	}
	kvs, _, _ := facets(e, nil)
	var a ingest.Agent
	for _, kv := range kvs {
		switch kv.key {
		case "browser":
			a.Browser = kv.value
		case "os":
			a.OS = kv.value
		}
	}
	return a
}
