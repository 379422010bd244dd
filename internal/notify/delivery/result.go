package delivery

import (
	"strconv"
	"time"
)

// Outcome is what an attempt decided (interface section 6.4).
type Outcome int

// Outcomes of an attempt. The zero value is not an outcome, so a forgotten
// Result never reads as delivered. Cancel and Drop are answers of a sender
// that made no attempt.
const (
	Delivered Outcome = iota + 1 // 2xx, or the email accepted
	Retry                        // time-out, network, TLS, blocked address, 408, 429, 5xx, SMTP 4xx
	GiveUp                       // 3xx, other 4xx, SMTP 5xx, a request that can never work
	Cancel                       // not attempted: the channel no longer takes deliveries
	Drop                         // not attempted: the channel is gone
)

// String returns "delivered", "retry", "give-up", "cancel" or "drop".
func (o Outcome) String() string {
	switch o {
	case Delivered:
		return "delivered"
	case Retry:
		return "retry"
	case GiveUp:
		return "give-up"
	case Cancel:
		return "cancel"
	case Drop:
		return "drop"
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// Result reports one attempt, by any transport (webhook, email).
type Result struct {
	Outcome    Outcome
	HTTPStatus int           // 0 when no answer was read
	ErrorClass string        // "" when delivered; else the transport's class (webhook.Class…, "smtp", "internal")
	Error      string        // short human text, e.g. "connect: connection refused", "HTTP 500"
	RetryAfter time.Duration // the receiver's Retry-After; the engine waits max(scheduled, RetryAfter), capped at MaxRetryAfter
	Duration   time.Duration // wall time of the attempt
}

// Failed is a Result of outcome o with an error class and text.
func Failed(o Outcome, class, msg string) Result {
	return Result{Outcome: o, ErrorClass: class, Error: msg}
}
