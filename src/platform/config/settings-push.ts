/**
 * The push services' endpoints (docs/notifications.md "Mobile push"; docs/configuration.md):
 * operator settings that default to the real services, so that a deployment can use a relay and the
 * tests can point them at loopback stand-ins. Declared once (src/platform/config/declare.ts) in
 * `PUSH_SETTINGS`, which `loadConfig` reads and the configuration table is written from.
 */
import { readFileSync } from 'node:fs';
import { type Setting, type Settings, text } from './declare.js';
import { ConfigError, httpUrl } from './parse.js';

/** Where push notifications go. */
export interface PushEndpoints {
  /** Origin of the FCM HTTP v1 API (`ASSENT_FCM_URL`); messages go to `{origin}/v1/projects/{project}/messages:send`. */
  fcmUrl: string;
  /** The OAuth 2.0 token endpoint of the service-account grant (`ASSENT_FCM_TOKEN_URL`, RFC 7523). */
  fcmTokenUrl: string;
  /** `host[:port]` of APNs production (`ASSENT_APNS_HOST`). */
  apnsHost: string;
  /** `host[:port]` of the APNs sandbox (`ASSENT_APNS_SANDBOX_HOST`). */
  apnsSandboxHost: string;
  /** PEM of the CAs that APNs connections trust instead of the system's (`ASSENT_APNS_CA_FILE`); undefined: the system's. */
  apnsCa: string | undefined;
}

/** An http(s) URL setting without credentials, query or fragment (`httpUrl`), `fallback` when unset. */
const url = (env: string, fallback: string, meaning: string): Setting<string> =>
  text({ env, default: fallback, unit: 'URL', meaning, parse: (raw) => httpUrl(env, raw ?? fallback) });

/** A `host[:port]` setting (port 1 to 65535), `fallback` when unset. */
const host = (env: string, fallback: string, meaning: string): Setting<string> =>
  text({
    env,
    default: fallback,
    unit: 'host[:port]',
    meaning,
    parse: (value) => {
      const raw = (value ?? fallback).trim();
      const m = /^[A-Za-z0-9.-]+(?::(\d{1,5}))?$/.exec(raw);
      if (!m || (m[1] !== undefined && (Number(m[1]) < 1 || Number(m[1]) > 65535)))
        throw new ConfigError(`${env} must be host[:port] (port 1 to 65535), got ${JSON.stringify(raw)}`);
      return raw;
    },
  });

/** The push settings, in the configuration table's order; their values are the `PushEndpoints`. */
export const PUSH_SETTINGS = {
  fcmUrl: url(
    'ASSENT_FCM_URL',
    'https://fcm.googleapis.com',
    'origin of the Firebase Cloud Messaging HTTP v1 API (a relay or a test stand-in)',
  ),
  fcmTokenUrl: url(
    'ASSENT_FCM_TOKEN_URL',
    'https://oauth2.googleapis.com/token',
    'where the FCM service-account grant (RFC 7523 JWT bearer) is posted; the assertion’s `aud` stays ' +
      'Google’s token URL',
  ),
  apnsHost: host('ASSENT_APNS_HOST', 'api.push.apple.com', 'APNs production server (HTTP/2 over TLS)'),
  apnsSandboxHost: host('ASSENT_APNS_SANDBOX_HOST', 'api.sandbox.push.apple.com', 'APNs development (sandbox) server'),
  apnsCa: text({
    env: 'ASSENT_APNS_CA_FILE',
    default: 'unset',
    unit: 'path',
    meaning: 'PEM file of the CAs that APNs connections trust instead of the system’s (a relay, tests)',
    parse: (file) => {
      if (file === undefined) return undefined;
      try {
        return readFileSync(file, 'utf8');
      } catch {
        throw new ConfigError(`ASSENT_APNS_CA_FILE cannot be read: ${file}`);
      }
    },
  }),
} satisfies Settings;
