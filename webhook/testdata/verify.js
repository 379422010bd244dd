"use strict";
const crypto = require("node:crypto");

const TOLERANCE_SECONDS = 300;

class WebhookVerificationError extends Error {}

// verifyWebhook verifies an Errata delivery and throws
// WebhookVerificationError if it fails (answer 401).
//   body:    the raw request body as a Buffer, exactly as received
//            (Express: express.raw({ type: "application/json" })).
//   header:  the Service-Signature header, e.g. "t=1700000000,v1=5f3a...".
//   secrets: the signing secrets in use ("whsec_..."), two during a rotation.
//   now:     the receiver's clock in Unix seconds.
function verifyWebhook(body, header, secrets, now = Date.now() / 1000) {
  const keys = secrets.filter((s) => s);
  if (keys.length === 0) {
    throw new WebhookVerificationError("no signing secret configured");
  }
  if (!header || /^[ \t]*$/.test(header)) {
    throw new WebhookVerificationError("missing Service-Signature header");
  }
  let t = null;
  const signatures = [];
  for (const raw of header.split(",")) {
    const entry = raw.replace(/^[ \t]+|[ \t]+$/g, "");
    const eq = entry.indexOf("=");
    if (eq < 1) {
      throw new WebhookVerificationError("malformed header: entry is not key=value");
    }
    const key = entry.slice(0, eq);
    const value = entry.slice(eq + 1);
    if (key === "t") {
      if (t !== null) {
        throw new WebhookVerificationError("malformed header: more than one t");
      }
      if (!/^[0-9]{1,12}$/.test(value)) {
        throw new WebhookVerificationError("malformed header: t is not 1 to 12 digits");
      }
      t = value;
    } else if (key === "v1") {
      if (!/^[0-9a-f]{64}$/.test(value)) {
        throw new WebhookVerificationError("malformed header: v1 is not 64 lowercase hex characters");
      }
      signatures.push(Buffer.from(value, "hex"));
    }
    // Other keys (v0=...) are other schemes: ignored.
  }
  if (t === null || signatures.length === 0) {
    throw new WebhookVerificationError("malformed header: no t or no v1");
  }

  const matched = keys.some((secret) => {
    const expected = crypto.createHmac("sha256", secret).update(t + ".").update(body).digest();
    return signatures.some((sig) => crypto.timingSafeEqual(expected, sig));
  });
  if (!matched) {
    throw new WebhookVerificationError("signature mismatch");
  }

  if (Math.abs(now - parseInt(t, 10)) > TOLERANCE_SECONDS) {
    throw new WebhookVerificationError("timestamp out of range");
  }
}

module.exports = { verifyWebhook, WebhookVerificationError, TOLERANCE_SECONDS };
