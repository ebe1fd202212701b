/**
 * Signing secrets and signatures of event webhooks (docs/events.md "Verifying a delivery"), as Standard Webhooks
 * specifies them ("Standard Webhooks" specification, "Signature scheme" and "Signing secrets"): a secret is `whsec_`
 * and the base64 of 24 to 64 random bytes; a delivery carries `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`, one per live secret, separated by
 * spaces), made here by the `standardwebhooks` library, which a receiver verifies with.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** The prefix of a secret (Standard Webhooks "Signing secrets"). */
const PREFIX = 'whsec_';
/** Bytes of a generated secret (Standard Webhooks recommends 24 to 64). */
const SECRET_BYTES = 32;

/** The sealing purpose of event webhook secrets (HKDF label and AAD, see `platform/crypto/master-key.ts`). */
export const EVENT_WEBHOOK_SECRET_PURPOSE = 'event-webhook-secret';

/** A new secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * Why a secret given by an admin cannot be used, or null when it can.
 * @param secret - `whsec_` and the base64 of 24 to 64 bytes.
 */
export function webhookSecretProblem(secret: string): string | null {
  if (!secret.startsWith(PREFIX)) return 'must start with whsec_';
  const b64 = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) return 'must be whsec_ and base64';
  const bytes = Buffer.from(b64, 'base64').length;
  // Threat: a short secret can be guessed offline from one signed delivery.
  if (bytes < 24 || bytes > 64) return 'must hold 24 to 64 bytes of key (whsec_ and base64)';
  return null;
}

/** The Standard Webhooks headers of one attempt. */
export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs a body for sending.
 * @param secrets - the live secrets (the current one first; the previous one during its grace period), each `whsec_…`.
 * @param id - the event's ID, stable over attempts and redeliveries (the receiver's idempotency key).
 * @param at - the attempt's time; its Unix seconds are signed (the receiver checks them against replay).
 * @param body - the exact bytes sent.
 */
export function signDelivery(secrets: string[], id: string, at: Date, body: string): SignatureHeaders {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(id, at, body));
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
