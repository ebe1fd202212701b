/**
 * Apple Push Notification service with token-based authentication (docs/notifications.md "Mobile
 * push"): HTTP/2 over TLS to `ASSENT_APNS_HOST` (or the sandbox host), `authorization: bearer` an
 * ES256 provider token signed with the organisation's `.p8` key (`kid` the key ID, `iss` the team
 * ID; @parse/node-apn signs it and renews it before its hour runs out), `apns-topic` the bundle ID,
 * `apns-push-type: alert`, `apns-collapse-id` derived from the idempotency key.
 *
 * - 200: delivered.
 * - 410 (`Unregistered`): the token is gone (`gone`), never retried.
 * - anything else, or no answer: retried with the backoff of every transport (APNs sends no
 *   `Retry-After`, and the library does not pass one on).
 */
import { createPrivateKey } from 'node:crypto';
import apn from '@parse/node-apn';
import { pushText } from './push-text.js';
import type { Transport } from './transports.js';

/** An organisation's APNs credentials. */
export interface ApnsCredentials {
  /** PKCS#8 PEM of the P-256 signing key (the `.p8` file). */
  key: string;
  /** 10-character key ID. */
  keyId: string;
  /** 10-character team ID. */
  teamId: string;
  /** The app's bundle ID, the `apns-topic`. */
  bundleId: string;
  /** api.push.apple.com when true, the sandbox when false. */
  production: boolean;
}

/** Whole-request time limit of one send (milliseconds), as a webhook's. */
const TIMEOUT_MS = 5000;

/**
 * Why a `.p8` key, key ID, team ID or bundle ID would be refused, or null when they are acceptable.
 * Never quotes the key.
 */
export function apnsProblem(c: Omit<ApnsCredentials, 'production'>): string | null {
  try {
    const key = createPrivateKey(c.key);
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
      return 'apns.key must be a P-256 (ES256) private key';
  } catch {
    return 'apns.key must be the PEM of the .p8 file';
  }
  if (!/^[A-Z0-9]{10}$/.test(c.keyId)) return 'apns.keyid must be 10 upper-case letters or digits';
  if (!/^[A-Z0-9]{10}$/.test(c.teamId)) return 'apns.teamid must be 10 upper-case letters or digits';
  if (!/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(c.bundleId) || c.bundleId.length > 155)
    return 'apns.bundleid must be a reverse-DNS bundle ID';
  return null;
}

/**
 * The APNs transport of one organisation: one HTTP/2 session, opened on first use.
 * @param endpoints - `host[:port]` of production and sandbox, and the CAs to trust (undefined: the system's).
 * @returns the transport, and `close` to end its session.
 */
export function apnsTransport(
  c: ApnsCredentials,
  endpoints: { apnsHost: string; apnsSandboxHost: string; apnsCa: string | undefined },
): Transport & { close(): void } {
  const [address, port] = (c.production ? endpoints.apnsHost : endpoints.apnsSandboxHost).split(':');
  const provider = new apn.Provider({
    token: { key: c.key, keyId: c.keyId, teamId: c.teamId },
    address: address!,
    port: port ? Number(port) : 443,
    production: c.production,
    // Retries are the queue's (backoff, crash-safe), not the library's in-process sleep.
    connectionRetryLimit: 0,
    requestTimeout: TIMEOUT_MS,
    ...(endpoints.apnsCa ? { ca: [endpoints.apnsCa] } : {}),
  });
  return {
    name: 'apns',
    close: () => void Promise.resolve(provider.shutdown()).catch(() => {}),
    async deliver(ctx, to) {
      const started = performance.now();
      // Cleared (a service reported it gone) or replaced by a non-push device since the claim.
      if (to.token === '') return { ok: false, gone: true, error: 'the device token was removed', durationMs: 0 };
      const words = pushText(ctx, to.userId);
      const note = new apn.Notification();
      note.topic = c.bundleId;
      note.pushType = 'alert';
      note.collapseId = words.collapseId;
      note.alert = { title: words.title, body: words.body };
      note.payload = { type: 'consent.request', jobId: ctx.jobId, organisationId: ctx.orgId, purposeId: ctx.purposeId };
      let result: Awaited<ReturnType<typeof provider.send>>;
      try {
        result = await provider.send(note, to.token);
      } catch {
        return { ok: false, error: 'APNs request failed', durationMs: Math.round(performance.now() - started) };
      }
      const durationMs = Math.round(performance.now() - started);
      const failure = result.failed[0];
      if (!failure) return { ok: true, status: 200, durationMs };
      const status = typeof failure.status === 'number' ? failure.status : Number(failure.status) || undefined;
      const reason = failure.response?.reason;
      if (status === 410)
        return { ok: false, status, gone: true, error: 'APNs: the device token is no longer active', durationMs };
      return {
        ok: false,
        ...(status ? { status } : {}),
        error: status ? `APNs answered HTTP ${status}${reason ? ` ${reason}` : ''}` : 'APNs request failed',
        durationMs,
      };
    },
  };
}
