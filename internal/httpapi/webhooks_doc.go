package httpapi

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/notify/digest"
)

// createChannelPath is where webhook channels are created, and so where the
// deliveries are also documented as callbacks.
const createChannelPath = "/v1/projects/{project_id}/channels"

// documentWebhooks publishes the webhook bodies of spec 6.1–6.3 as OpenAPI
// 3.1 `webhooks`, from the same types the deliveries are encoded from. The
// same requests are also the callbacks of channel creation: the url of a
// created webhook channel receives them. Besides being true, the callbacks
// keep the body schemas in code generators that prune every component no
// path refers to (oapi-codegen v2.8.2 ignores `webhooks` when pruning, and
// its client then names types it has deleted).
func (s *Server) documentWebhooks() {
	oapi := s.api.OpenAPI()
	reg := oapi.Components.Schemas
	header := func(name, doc string, enum ...any) *huma.Param {
		return &huma.Param{Name: name, In: "header", Required: true, Description: doc, Schema: &huma.Schema{Type: huma.TypeString, Enum: enum}}
	}
	hook := func(id, event, summary string, body any, idDoc string) *huma.PathItem {
		return &huma.PathItem{Post: &huma.Operation{
			OperationID: id, Summary: summary, Tags: []string{"Webhooks"},
			Description: "POSTed to a webhook channel's URL. Verify Service-Signature on the raw body before trusting it (docs/webhooks.md); " +
				"answer 2xx within 10 seconds. Unknown fields may be added at any time.",
			// The receiver authenticates the sender by the signature, not
			// by a credential of this API.
			Security: []map[string][]string{},
			Parameters: []*huma.Param{
				header("User-Agent", "Service-Webhook/1", "Service-Webhook/1"),
				header("Service-Event", "The kind of body", event),
				header("Service-Delivery-Id", idDoc+"; the same on every retry of one delivery: de-duplicate on it"),
				header("Service-Signature", "t=<unix seconds>,v1=<64 lowercase hex HMAC-SHA256 of \"<t>.<raw body>\"> keyed with the signing secret; "+
					"a second v1 entry, signed with the previous secret, during the 24 hours after a rotation"),
			},
			RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
				"application/json": {Schema: reg.Schema(reflect.TypeOf(body), true, "")}}},
			Responses: map[string]*huma.Response{
				"2XX": {Description: "Delivered"},
				"3XX": {Description: "Given up at once: redirects are never followed"},
				"4XX": {Description: "408 and 429 are retried (429 and 503 after a longer Retry-After, up to 12 hours); any other 4xx is given up at once"},
				"5XX": {Description: "Retried, like a time-out, a network or a TLS error: up to 8 attempts over about 22 hours"},
			},
		}}
	}
	deliveries := []struct {
		event, summary string
		body           any
		idDoc          string
	}{
		{"ticket", "A critical or high ticket was opened, regressed or spiked", notify.TicketBody{}, "dlv_ identifier"},
		{"digest", "The project's scheduled digest", digest.DigestBody{}, "dlv_ identifier"},
		{"test", "A test requested on the channel; not retried", notify.TestBody{}, "tst_ identifier"},
	}
	oapi.Webhooks = map[string]*huma.PathItem{}
	callbacks := map[string]map[string]*huma.PathItem{}
	for _, d := range deliveries {
		oapi.Webhooks[d.event] = hook(d.event+"-webhook", d.event, d.summary, d.body, d.idDoc)
		// operationIds are unique across paths, webhooks and callbacks.
		callbacks[d.event] = map[string]*huma.PathItem{"{$request.body#/url}": hook(d.event+"-delivery", d.event, d.summary, d.body, d.idDoc)}
	}
	if item := oapi.Paths[createChannelPath]; item != nil && item.Post != nil {
		item.Post.Callbacks = callbacks
	}
}
