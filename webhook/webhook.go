// Package webhook verifies the webhook deliveries Errata sends, for the
// services that receive them.
//
// Every delivery is an HTTP POST with a JSON body and these headers:
//
//	Service-Event:       ticket, digest or test
//	Service-Delivery-Id: dlv_… or tst_…, the same on every retry of one delivery
//	Service-Signature:   t=<unix seconds>,v1=<64 lowercase hex characters>
//
// v1 is the HMAC-SHA256 of "<t>.<raw body>" keyed with the channel's signing
// secret: the whole string "whsec_…", prefix included, used as it is (it is
// not base64-decoded). During the 24 hours after a secret is rotated the
// header carries two signatures, t=…,v1=<new>,v1=<old>; either one matching
// is enough.
//
// A receiver verifies the signature on the body exactly as it arrived, before
// decoding it, with [VerifyRequest] (or [Verify] when the body is already in
// hand), then reads the envelope with [ParseEvent]. Delivery is at least
// once: de-duplicate on the delivery id. [Sign] builds a header for a
// receiver's own tests.
//
// The header is read strictly, as the interface prescribes:
//   - entries are separated by commas; spaces and tabs around an entry are
//     ignored, whitespace inside one is not (t= 1 is malformed);
//   - every entry is key=value; keys are case-sensitive; keys other than t
//     and v1 (v0=…, a future v2=…) are ignored;
//   - there is exactly one t: 1 to 12 ASCII digits;
//   - there is at least one v1 and every v1 is exactly 64 lowercase hex
//     characters (uppercase hex is malformed, not a mismatch).
//
// The signature is checked before the time, so [ErrTimestampOutOfRange]
// means an authentic delivery that is too old or too new (a replay, or a
// clock that is off), never a forgery.
package webhook

import (
	"errors"
	"time"
)

// Header names of a delivery (spec section 6).
const (
	// HeaderSignature carries t=<unix seconds>,v1=<signature>[,v1=<signature>].
	HeaderSignature = "Service-Signature"
	// HeaderEvent names the kind of body: EventTicket, EventDigest or EventTest.
	HeaderEvent = "Service-Event"
	// HeaderDeliveryID is the delivery's identifier, identical on every retry:
	// the key to de-duplicate on.
	HeaderDeliveryID = "Service-Delivery-Id"
)

// Event kinds: the `type` of a body and the value of HeaderEvent. New kinds
// may be added; a receiver answers 2xx to a kind it does not know.
const (
	EventTicket = "ticket"
	EventDigest = "digest"
	EventTest   = "test"
)

// Tolerance is how far the signed time t may be from the receiver's clock, in
// either direction, and still be accepted. Exactly Tolerance is accepted.
const Tolerance = 300 * time.Second

// DefaultMaxBody is the body limit VerifyRequest applies when given a
// maxBody of zero or less. Deliveries are usually a few kilobytes; the
// digest of a busy project can reach hundreds, and this leaves room to spare.
const DefaultMaxBody = 5 << 20

// Errors of Verify and VerifyRequest. The errors returned wrap one of these,
// with detail, so test them with errors.Is.
var (
	// ErrMissingHeader: there is no Service-Signature header, or it is blank.
	ErrMissingHeader = errors.New("webhook: missing " + HeaderSignature + " header")
	// ErrMalformedHeader: the header breaks the format (see the package
	// documentation): no t, two t, a t that is not 1 to 12 digits, no v1, a
	// v1 that is not 64 lowercase hex characters, an entry without '='.
	ErrMalformedHeader = errors.New("webhook: malformed " + HeaderSignature + " header")
	// ErrSignatureMismatch: no v1 matches any of the secrets. The body was
	// changed (re-encoded JSON counts), or the secret is wrong.
	ErrSignatureMismatch = errors.New("webhook: signature mismatch")
	// ErrTimestampOutOfRange: the signature is authentic but t is more than
	// Tolerance away from the receiver's clock: a replay, or a clock that is off.
	ErrTimestampOutOfRange = errors.New("webhook: timestamp out of range")
	// ErrNoSecret: no secret, or only empty ones, was given. This is the
	// receiver's configuration, not the request: an empty HMAC key is one
	// anybody can sign with, so it is refused rather than used.
	ErrNoSecret = errors.New("webhook: no signing secret configured")
	// ErrBodyTooLarge: VerifyRequest met a body longer than its limit.
	ErrBodyTooLarge = errors.New("webhook: body too large")
)
