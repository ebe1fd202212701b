/**
 * Firebase Cloud Messaging HTTP v1 (docs/notifications.md "Mobile push"): an access token from the
 * organisation's service-account key through the OAuth 2.0 JWT-bearer grant (RFC 7523 §2.1;
 * google-auth-library signs the RS256 assertion and caches the token until shortly before it
 * expires), then `POST {ASSENT_FCM_URL}/v1/projects/{project}/messages:send` per device.
 *
 * - 2xx: delivered.
 * - 404, or an error whose `details` name `UNREGISTERED`: the token is gone (`gone`), never retried.
 * - 429 and 5xx: retried; a `Retry-After` (seconds or an HTTP date) sets the earliest retry.
 * - anything else: retried like a webhook.
 */
import { createPrivateKey } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { JWT } from 'google-auth-library';
import { pushText } from './push-text.js';
import { type DeliveryOutcome, idempotencyKey, type Transport } from './transports.js';

/** The fields of a service-account key that FCM needs. */
export interface ServiceAccount {
  projectId: string;
  clientEmail: string;
  /** PKCS#8 PEM of the RSA key. */
  privateKey: string;
  /** `private_key_id`, the `kid` of the assertion, when the key file has one. */
  keyId?: string;
}

/** Google's token endpoint, which google-auth-library posts to and names in `aud`. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** The scope FCM's send API requires. */
export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** Whole-request time limit of one send (milliseconds), as a webhook's. */
const TIMEOUT_MS = 5000;
/** Largest FCM answer read (bytes): an error body is small. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Reads a service-account key file (the JSON that the Firebase console downloads).
 * @returns its fields, or a reason to refuse it (never quoting the key).
 */
export function parseServiceAccount(json: string): ServiceAccount | string {
  let key: Record<string, unknown>;
  try {
    key = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return 'is not JSON';
  }
  if (typeof key !== 'object' || key === null || key.type !== 'service_account')
    return 'is not a service-account key (type must be "service_account")';
  const { project_id: projectId, client_email: clientEmail, private_key: privateKey } = key;
  if (typeof projectId !== 'string' || !/^[a-z][a-z0-9-]{4,61}[a-z0-9]$/.test(projectId))
    return 'has no valid project_id';
  if (typeof clientEmail !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(clientEmail)) return 'has no valid client_email';
  if (typeof privateKey !== 'string') return 'has no private_key';
  try {
    if (createPrivateKey(privateKey).asymmetricKeyType !== 'rsa') return 'private_key is not an RSA key';
  } catch {
    return 'private_key is not a PEM private key';
  }
  const keyId = typeof key.private_key_id === 'string' ? key.private_key_id : undefined;
  return { projectId, clientEmail, privateKey, ...(keyId ? { keyId } : {}) };
}

/**
 * The FCM transport of one organisation.
 * @param account - its service-account key.
 * @param endpoints - `fcmUrl` (origin of the send API) and `fcmTokenUrl` (where the grant is posted).
 * @returns the transport, and `close` to drop its kept-alive connections.
 */
export function fcmTransport(
  account: ServiceAccount,
  endpoints: { fcmUrl: string; fcmTokenUrl: string },
): Transport & { close(): void } {
  const jwt = new JWT({
    email: account.clientEmail,
    key: account.privateKey,
    ...(account.keyId ? { keyId: account.keyId } : {}),
    scopes: [FCM_SCOPE],
  });
  // google-auth-library posts the grant to Google's URL; the operator's setting replaces only where it goes.
  jwt.transporter.interceptors.request.add({
    resolved: async (opts) => {
      if (opts.url.toString() === GOOGLE_TOKEN_URL) opts.url = new URL(endpoints.fcmTokenUrl);
      return opts;
    },
  });
  const url = new URL(`${endpoints.fcmUrl}/v1/projects/${encodeURIComponent(account.projectId)}/messages:send`);
  const agent =
    url.protocol === 'https:'
      ? new https.Agent({ keepAlive: true, maxSockets: 64 })
      : new http.Agent({ keepAlive: true, maxSockets: 64 });
  return {
    name: 'fcm',
    close: () => agent.destroy(),
    async deliver(ctx, to) {
      const started = performance.now();
      // Cleared (a service reported it gone) or replaced by a non-push device since the claim.
      if (to.token === '') return { ok: false, gone: true, error: 'the device token was removed', durationMs: 0 };
      const durationMs = () => Math.round(performance.now() - started);
      let bearer: string;
      try {
        const { token } = await jwt.getAccessToken();
        if (!token) throw new Error('no token');
        bearer = token;
      } catch {
        return { ok: false, error: 'the FCM service-account grant failed', durationMs: durationMs() };
      }
      const words = pushText(ctx, to.userId);
      const key = idempotencyKey(ctx.jobId, to.userId);
      const body = JSON.stringify({
        message: {
          token: to.token,
          notification: { title: words.title, body: words.body },
          data: {
            type: 'consent.request',
            id: key,
            jobId: ctx.jobId,
            organisationId: ctx.orgId,
            purposeId: ctx.purposeId,
          },
          // A notification sent again after a crash replaces the first on the device.
          android: { collapse_key: words.collapseId },
          apns: { headers: { 'apns-collapse-id': words.collapseId } },
        },
      });
      try {
        const answer = await post(url, agent, body, bearer);
        // The access token was revoked or expired early: the next attempt makes the grant again.
        if (answer.status === 401) jwt.credentials = {};
        return { ...fcmOutcome(answer), durationMs: durationMs() };
      } catch {
        return { ok: false, error: 'FCM request failed', durationMs: durationMs() };
      }
    },
  };
}

interface Answer {
  status: number;
  body: string;
  retryAfter: string | undefined;
}

/** What an FCM answer means (its body is read for the error code and never stored). */
function fcmOutcome(answer: Answer): Omit<DeliveryOutcome, 'durationMs'> {
  const { status } = answer;
  if (status >= 200 && status < 300) return { ok: true, status };
  let code = '';
  try {
    const details = (JSON.parse(answer.body) as { error?: { details?: Array<{ errorCode?: string }> } }).error?.details;
    code = details?.find((d) => d.errorCode)?.errorCode ?? '';
  } catch {}
  if (status === 404 || code === 'UNREGISTERED')
    return { ok: false, status, gone: true, error: 'FCM: the device token is no longer registered' };
  const retryAfterSeconds = retryAfter(answer.retryAfter);
  return {
    ok: false,
    status,
    error: `FCM answered HTTP ${status}${code ? ` ${code}` : ''}`,
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  };
}

/** The longest `Retry-After` obeyed (seconds): a longer one is cut to this. */
const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * A `Retry-After` value (RFC 9110 §10.2.3): delay seconds or an HTTP date.
 * @returns seconds from now, at most MAX_RETRY_AFTER_SECONDS, or undefined when absent or unreadable.
 */
export function retryAfter(raw: string | undefined): number | undefined {
  if (!raw) return undefined;
  const at = /^\d+$/.test(raw.trim()) ? Date.now() + Number(raw.trim()) * 1000 : Date.parse(raw);
  return Number.isNaN(at)
    ? undefined
    : Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, Math.ceil((at - Date.now()) / 1000)));
}

function post(url: URL, agent: http.Agent, body: string, bearer: string): Promise<Answer> {
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        timeout: TIMEOUT_MS,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: `Bearer ${bearer}`,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < MAX_ANSWER_BYTES) text += chunk;
        });
        res.on('error', reject);
        res.on('end', () => {
          const header = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, body: text, retryAfter: Array.isArray(header) ? header[0] : header });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}
