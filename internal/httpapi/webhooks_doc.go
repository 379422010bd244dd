package httpapi

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/notify"
)

// documentWebhooks publishes the webhook bodies of spec 6.1–6.3 as OpenAPI
// 3.1 `webhooks`, from the same types the deliveries are encoded from.
func (s *Server) documentWebhooks() {
	oapi := s.api.OpenAPI()
	reg := oapi.Components.Schemas
	header := func(name, doc string, enum ...any) *huma.Param {
		return &huma.Param{Name: name, In: "header", Required: true, Description: doc, Schema: &huma.Schema{Type: huma.TypeString, Enum: enum}}
	}
	hook := func(event, summary string, body any, idDoc string) *huma.PathItem {
		return &huma.PathItem{Post: &huma.Operation{
			OperationID: event + "-webhook", Summary: summary, Tags: []string{"Webhooks"},
			Description: "POSTed to a webhook channel's URL. Verify Service-Signature on the raw body before trusting it (docs/webhooks.md); " +
				"answer 2xx within 10 seconds. Unknown fields may be added at any time.",
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
				"2XX":     {Description: "Delivered"},
				"default": {Description: "408, 429, 5xx, a time-out, a network or TLS error: retried up to 8 attempts over about 22 hours; 3xx and other 4xx: given up at once"},
			},
		}}
	}
	oapi.Webhooks = map[string]*huma.PathItem{
		"ticket": hook("ticket", "A critical or high ticket was opened, regressed or spiked", notify.TicketBody{}, "dlv_ identifier"),
		"digest": hook("digest", "The project's scheduled digest", notify.DigestBody{}, "dlv_ identifier"),
		"test":   hook("test", "A test requested on the channel; not retried", notify.TestBody{}, "tst_ identifier"),
	}
}
