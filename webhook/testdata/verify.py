import hashlib
import hmac
import time

TOLERANCE_SECONDS = 300
_DIGITS = "0123456789"
_LOWER_HEX = "0123456789abcdef"


class WebhookVerificationError(Exception):
    """The delivery is not authentic, or not fresh: answer 401."""


def verify_webhook(body, header, secrets, now=None):
    """Verify an Errata delivery; raise WebhookVerificationError if it fails.

    body:    the raw request body as bytes, exactly as received
             (Flask: request.get_data(); Django: request.body).
    header:  the Service-Signature header, e.g. "t=1700000000,v1=5f3a...".
    secrets: the signing secrets in use ("whsec_..."), two during a rotation.
    now:     the receiver's clock in Unix seconds (default: time.time()).
    """
    secrets = [s for s in secrets if s]
    if not secrets:
        raise WebhookVerificationError("no signing secret configured")
    if not header or not header.strip(" \t"):
        raise WebhookVerificationError("missing Service-Signature header")
    t, signatures = None, []
    for entry in header.split(","):
        key, sep, value = entry.strip(" \t").partition("=")
        if not sep or not key:
            raise WebhookVerificationError("malformed header: entry is not key=value")
        if key == "t":
            if t is not None:
                raise WebhookVerificationError("malformed header: more than one t")
            if not 1 <= len(value) <= 12 or any(c not in _DIGITS for c in value):
                raise WebhookVerificationError("malformed header: t is not 1 to 12 digits")
            t = value
        elif key == "v1":
            if len(value) != 64 or any(c not in _LOWER_HEX for c in value):
                raise WebhookVerificationError("malformed header: v1 is not 64 lowercase hex characters")
            signatures.append(value)
        # Other keys (v0=...) are other schemes: ignored.
    if t is None or not signatures:
        raise WebhookVerificationError("malformed header: no t or no v1")

    signed = t.encode("ascii") + b"." + body
    expected = [
        hmac.new(s.encode("utf-8"), signed, hashlib.sha256).hexdigest() for s in secrets
    ]
    if not any(hmac.compare_digest(e, v) for e in expected for v in signatures):
        raise WebhookVerificationError("signature mismatch")

    if now is None:
        now = time.time()
    if abs(now - int(t)) > TOLERANCE_SECONDS:
        raise WebhookVerificationError("timestamp out of range")
