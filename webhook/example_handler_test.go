package webhook_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/errata-dev/errata/webhook"
)

// ---- quoted in docs/webhooks.md: begin ----

// Receiver answers Errata's webhook deliveries.
type Receiver struct {
	// Secrets are the channel's signing secrets: one, or the new and the
	// old one while a rotation is under way. Read them from your secret
	// store; never from the request.
	Secrets []string

	mu   sync.Mutex
	seen map[string]bool // handled delivery ids; in production, a table with a unique key, kept a week
}

// ServeHTTP verifies, de-duplicates and handles one delivery.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}

	// 1. Verify the raw bytes before anything else reads them.
	body, err := webhook.VerifyRequest(r, webhook.DefaultMaxBody, rc.Secrets...)
	switch {
	case errors.Is(err, webhook.ErrNoSecret):
		// Our configuration is broken, not the delivery: a 5xx makes
		// Errata retry while we fix it.
		http.Error(w, "receiver not configured", http.StatusInternalServerError)
		return
	case errors.Is(err, webhook.ErrBodyTooLarge):
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		// Forged, altered, replayed or malformed. Log err if you like;
		// don't tell the sender which check failed.
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return
	}

	// 2. Now the body can be trusted: decode it.
	ev, err := webhook.ParseEvent(body)
	if err != nil {
		http.Error(w, "malformed body", http.StatusBadRequest)
		return
	}
	// Headers are not signed; the body's copy of the id is.
	id := r.Header.Get(webhook.HeaderDeliveryID)
	if id != ev.DeliveryID {
		http.Error(w, "Service-Delivery-Id does not match the body", http.StatusBadRequest)
		return
	}

	// 3. Delivery is at least once: do each delivery's work once.
	if !rc.claim(id) {
		w.WriteHeader(http.StatusOK) // a retry of something already handled
		return
	}

	// 4. Act on the kind. Answer within 10 seconds: queue slow work.
	if err := handle(ev); err != nil {
		rc.release(id)
		http.Error(w, "try again later", http.StatusServiceUnavailable) // retried
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func handle(ev webhook.Event) error {
	switch ev.Type {
	case webhook.EventTicket:
		var b struct {
			Ticket struct {
				ID       string `json:"id"`
				Severity string `json:"severity"`
				Title    string `json:"title"`
			} `json:"ticket"`
			TicketURL string `json:"ticket_url"`
		}
		if err := json.Unmarshal(ev.Raw, &b); err != nil {
			return err
		}
		fmt.Printf("%s ticket in %s: %s %s\n", b.Ticket.Severity, ev.Project.Name, b.Ticket.Title, b.TicketURL)
	case webhook.EventDigest:
		var b struct {
			Digest struct {
				TicketCount int `json:"ticket_count"`
			} `json:"digest"`
		}
		if err := json.Unmarshal(ev.Raw, &b); err != nil {
			return err
		}
		fmt.Printf("digest of %s: %d tickets\n", ev.Project.Name, b.Digest.TicketCount)
	case webhook.EventTest:
		fmt.Printf("test delivery %s for %s\n", ev.DeliveryID, ev.Project.Name)
	default:
		// A kind added after this code was written: accept it.
	}
	return nil
}

// claim marks id as handled, or reports that it already was.
func (rc *Receiver) claim(id string) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.seen[id] {
		return false
	}
	if rc.seen == nil {
		rc.seen = map[string]bool{}
	}
	rc.seen[id] = true
	return true
}

// release forgets id, so that the retry of a failed delivery is handled.
func (rc *Receiver) release(id string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	delete(rc.seen, id)
}

// ---- quoted in docs/webhooks.md: end ----

// A receiver: verify, de-duplicate on the delivery id, switch on the kind.
func Example_handler() {
	const secret = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	rc := &Receiver{Secrets: []string{secret}}

	deliver := func(kind, id, body, signature string) {
		r := httptest.NewRequest(http.MethodPost, "https://hooks.example.com/errata", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("User-Agent", "Service-Webhook/1")
		r.Header.Set(webhook.HeaderEvent, kind)
		r.Header.Set(webhook.HeaderDeliveryID, id)
		r.Header.Set(webhook.HeaderSignature, signature)
		w := httptest.NewRecorder()
		rc.ServeHTTP(w, r)
		fmt.Println("->", w.Code)
	}
	signed := func(body string) string { return webhook.Sign([]byte(body), time.Now(), secret) }

	ticket := `{"type":"ticket","delivery_id":"dlv_01jd8x3v7c0000000000000004","organization_id":"org_01jd8x3v7c0000000000000001",` +
		`"project":{"id":"prj_01jd8x3v7c0000000000000002","name":"checkout"},` +
		`"ticket":{"id":"tkt_01jd8x3v7c0000000000000005","severity":"critical","title":"NullPointerException in CartService.total"},` +
		`"ticket_url":"https://errata.example.com/tickets/tkt_01jd8x3v7c0000000000000005"}`
	deliver("ticket", "dlv_01jd8x3v7c0000000000000004", ticket, signed(ticket))
	deliver("ticket", "dlv_01jd8x3v7c0000000000000004", ticket, signed(ticket)) // a retry

	digest := `{"type":"digest","delivery_id":"dlv_01jd8x3v7c0000000000000006","organization_id":"org_01jd8x3v7c0000000000000001",` +
		`"project":{"id":"prj_01jd8x3v7c0000000000000002","name":"checkout"},"digest":{"id":"dig_01jd8x3v7c0000000000000007","ticket_count":3}}`
	deliver("digest", "dlv_01jd8x3v7c0000000000000006", digest, signed(digest))

	test := `{"type":"test","delivery_id":"tst_01jd8x3v7c0000000000000000","organization_id":"org_01jd8x3v7c0000000000000001",` +
		`"project":{"id":"prj_01jd8x3v7c0000000000000002","name":"checkout"},"channel":{"id":"chn_01jd8x3v7c0000000000000003","name":"ops"}}`
	deliver("test", "tst_01jd8x3v7c0000000000000000", test, signed(test))

	forged := strings.Replace(ticket, "critical", "medium", 1)
	deliver("ticket", "dlv_01jd8x3v7c0000000000000008", forged, signed(ticket))

	// Output:
	// critical ticket in checkout: NullPointerException in CartService.total https://errata.example.com/tickets/tkt_01jd8x3v7c0000000000000005
	// -> 204
	// -> 200
	// digest of checkout: 3 tickets
	// -> 204
	// test delivery tst_01jd8x3v7c0000000000000000 for checkout
	// -> 204
	// -> 401
}
