/**
 * Notification transports of the special consent request (docs/api.md "Permissions and consents"). A transport delivers one
 * notification of one individual; the worker picks it per individual with `chooseTransport`.
 *
 * - `webhook`: an HTTPS POST of a JSON event to the organisation's endpoint, signed with
 *   HMAC-SHA256 (`Assent-Signature: t=<unix seconds>,v1=<hex>` over `<t>.<body>`), carrying the
 *   idempotency key `<jobID>.<userID>` in `Idempotency-Key`. The organisation's back end turns it
 *   into a push to the individual's device.
 * - `email`: a mail to the individual's address through SMTP or the outbox (`platform/mail/mailer.ts`).
 * - `fcm` and `apns`: a push straight to the individual's device (`User.Client.Token`) with the
 *   organisation's credentials (fcm.ts, apns.ts).
 */
import { createHmac } from 'node:crypto';
import { CLIENT_TYPE_ANDROID, CLIENT_TYPE_IOS } from '../../identity/index.js';
import type { Mail, Mailer } from '../../platform/mail/mailer.js';
import { OutboundError, type OutboundPolicy, postOutbound } from '../../platform/net/outbound.js';

/** What a notification is about. */
export interface NotificationContext {
  jobId: string;
  orgId: string;
  orgName: string;
  purposeId: string;
  purposeName: string;
  attributeIds: string[];
  attributeNames: string[];
}

/** One individual to notify. */
export interface Addressee {
  userId: string;
  email: string;
  /** `User.Client.Token`, "" when none. */
  token: string;
  /** `User.Client.Type` (identity/users/client-type.ts). */
  clientType: number;
}

/** A transport's name, as stored on a delivery row. */
export type TransportName = 'webhook' | 'email' | 'fcm' | 'apns';

/** How one delivery went. */
export interface DeliveryOutcome {
  ok: boolean;
  /** HTTP status of a webhook answer, when one came. */
  status?: number;
  /** Why it failed, in our words; never the remote answer's body. */
  error?: string;
  /** milliseconds */
  durationMs: number;
  /** The push service says the device token is gone: clear it and never retry. */
  gone?: boolean;
  /** The service's `Retry-After` (seconds): no retry before it. */
  retryAfterSeconds?: number;
}

/** Delivers notifications one individual at a time. */
export interface Transport {
  name: TransportName;
  /** Never throws: a failure is an outcome with `ok: false`. */
  deliver(ctx: NotificationContext, to: Addressee): Promise<DeliveryOutcome>;
}

/**
 * The idempotency key of one notification: the same for every attempt, in every process.
 * @returns `<jobID>.<userID>`.
 */
export function idempotencyKey(jobId: string, userId: string): string {
  return `${jobId}.${userId}`;
}

/**
 * `Assent-Signature` of a webhook body, Stripe's scheme: HMAC-SHA256 over `<t>.<body>`, so a
 * captured request cannot be replayed later with a fresh timestamp.
 * @param secret - the organisation's webhook secret.
 * @param timestamp - unix time (seconds).
 * @param body - the exact body bytes sent.
 */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The webhook transport to `url`, signing with `secret`. */
export function webhookTransport(url: string, secret: string, policy: OutboundPolicy): Transport {
  return {
    name: 'webhook',
    async deliver(ctx, to) {
      const started = performance.now();
      const key = idempotencyKey(ctx.jobId, to.userId);
      const body = JSON.stringify({
        type: 'consent.request',
        id: key,
        organisationId: ctx.orgId,
        purposeId: ctx.purposeId,
        attributeIds: ctx.attributeIds,
        userId: to.userId,
        jobId: ctx.jobId,
        createdAt: new Date().toISOString(),
      });
      const t = Math.floor(Date.now() / 1000);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'Assent-Webhook/1',
        'idempotency-key': key,
        'assent-signature': signWebhook(secret, t, body),
      };
      const durationMs = () => Math.round(performance.now() - started);
      try {
        const { status } = await postOutbound(url, body, headers, policy);
        if (status >= 200 && status < 300) return { ok: true, status, durationMs: durationMs() };
        return { ok: false, status, error: `answered HTTP ${status}`, durationMs: durationMs() };
      } catch (err) {
        return {
          ok: false,
          error: err instanceof OutboundError ? err.message : 'request failed',
          durationMs: durationMs(),
        };
      }
    },
  };
}

/** The e-mail transport through `mailer`. */
export function emailTransport(mailer: Mailer): Transport {
  return {
    name: 'email',
    async deliver(ctx, to) {
      const started = performance.now();
      const mail: Mail = {
        to: to.email,
        subject: `${ctx.orgName} asks you to review your consent: ${ctx.purposeName}`,
        text: [
          `${ctx.orgName} asks you to review your consent for "${ctx.purposeName}".`,
          '',
          `You have not allowed the use of: ${ctx.attributeNames.join(', ')}.`,
          'Open the privacy dashboard of your app to review your choices. You may leave them as they are.',
        ].join('\n'),
        messageId: `${idempotencyKey(ctx.jobId, to.userId)}@assent`,
        headers: { 'X-Assent-Idempotency-Key': idempotencyKey(ctx.jobId, to.userId) },
      };
      try {
        await mailer.send(mail);
        return { ok: true, durationMs: Math.round(performance.now() - started) };
      } catch (err) {
        const code =
          (err as { responseCode?: number; code?: string }).responseCode ??
          (err as { code?: string }).code ??
          'unknown';
        return { ok: false, error: `mail not accepted (${code})`, durationMs: Math.round(performance.now() - started) };
      }
    },
  };
}

/**
 * Which transport reaches an individual (docs/notifications.md "Mobile push"): a push to their
 * device when the organisation has the matching push transport (`devicePush`), else the
 * organisation's webhook (its back end reaches the device), else e-mail when enabled and the
 * individual has an address, else none.
 */
export function chooseTransport(
  available: Record<TransportName, boolean>,
  to: Pick<Addressee, 'email' | 'token' | 'clientType'>,
): TransportName | 'none' {
  const push = devicePush(to.clientType, to.token);
  if (push === 'apns' && available.apns) return 'apns';
  if (push === 'fcm' && available.fcm) return 'fcm';
  if (available.webhook) return 'webhook';
  if (available.email && to.email !== '') return 'email';
  return 'none';
}

/**
 * The push service a device token belongs to: an Android device (`Client.Type` 2) has an FCM
 * registration token; an iOS device (1) has an APNs device token (hexadecimal) when the app
 * registers with APNs itself, or an FCM token (never all hexadecimal) when it uses the Firebase SDK,
 * which FCM forwards to APNs. A raw APNs token cannot go through FCM.
 * @returns `apns`, `fcm`, or null when there is no token or the type names no mobile device.
 */
export function devicePush(clientType: number, token: string): 'apns' | 'fcm' | null {
  if (token === '') return null;
  if (clientType === CLIENT_TYPE_ANDROID) return 'fcm';
  if (clientType === CLIENT_TYPE_IOS) return /^[0-9a-fA-F]{64,200}$/.test(token) ? 'apns' : 'fcm';
  return null;
}
