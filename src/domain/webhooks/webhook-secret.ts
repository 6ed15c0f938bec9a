import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Secrets and signatures as the Standard Webhooks specification writes them: a secret is
 * `whsec_` + base64 of its bytes; a signature is `v1,` + base64 of HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<body>` (computed by the `standardwebhooks` library, which
 * receivers use to verify). While a rotated-out secret still counts, each message carries one
 * signature per secret, space-separated, so receivers holding either verify it.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The `webhook-signature` header value for a message, one `v1,` signature per secret. */
export function webhookSignature(
  secrets: readonly string[],
  messageId: string,
  timestamp: Date,
  body: string,
): string {
  return secrets.map((s) => new Webhook(s).sign(messageId, timestamp, body)).join(' ');
}

/** `msg_` + 16 random bytes in base64url: the webhook-id of one event to one endpoint. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}
