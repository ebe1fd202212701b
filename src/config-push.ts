/**
 * The push services' endpoints (docs/notifications.md "Mobile push"; docs/configuration.md):
 * operator settings that default to the real services, so that a deployment can use a relay and the
 * tests can point them at loopback stand-ins. Parsed apart from `config.ts` and listed in
 * `PUSH_SETTINGS` for the configuration table.
 */
import { readFileSync } from 'node:fs';
import { httpUrl } from './config-parse.js';
import type { Setting } from './config-settings.js';

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

/** The push settings of the configuration table (docs/configuration.md). */
export const PUSH_SETTINGS: readonly Setting[] = [
  {
    env: 'ASSENT_FCM_URL',
    default: 'https://fcm.googleapis.com',
    unit: 'URL',
    meaning: 'origin of the Firebase Cloud Messaging HTTP v1 API (a relay or a test stand-in)',
  },
  {
    env: 'ASSENT_FCM_TOKEN_URL',
    default: 'https://oauth2.googleapis.com/token',
    unit: 'URL',
    meaning:
      'where the FCM service-account grant (RFC 7523 JWT bearer) is posted; the assertion’s `aud` stays ' +
      'Google’s token URL',
  },
  {
    env: 'ASSENT_APNS_HOST',
    default: 'api.push.apple.com',
    unit: 'host[:port]',
    meaning: 'APNs production server (HTTP/2 over TLS)',
  },
  {
    env: 'ASSENT_APNS_SANDBOX_HOST',
    default: 'api.sandbox.push.apple.com',
    unit: 'host[:port]',
    meaning: 'APNs development (sandbox) server',
  },
  {
    env: 'ASSENT_APNS_CA_FILE',
    default: 'unset',
    unit: 'path',
    meaning: 'PEM file of the CAs that APNs connections trust instead of the system’s (a relay, tests)',
  },
];

/**
 * Reads the push settings.
 * @param fail - builds the error thrown for a bad value (`ConfigError` in config.ts).
 * @throws what `fail` builds when a URL is not an http(s) URL without credentials, query or fragment, a host is not host[:port] or the CA file cannot be read.
 */
export function pushEndpoints(env: NodeJS.ProcessEnv, fail: (message: string) => Error): PushEndpoints {
  const url = (name: string, fallback: string) => {
    try {
      return httpUrl(name, env[name] || fallback);
    } catch (err) {
      throw fail((err as Error).message);
    }
  };
  const host = (name: string, fallback: string) => {
    const raw = (env[name] || fallback).trim();
    const m = /^[A-Za-z0-9.-]+(?::(\d{1,5}))?$/.exec(raw);
    if (!m || (m[1] !== undefined && (Number(m[1]) < 1 || Number(m[1]) > 65535)))
      throw fail(`${name} must be host[:port] (port 1 to 65535), got ${JSON.stringify(raw)}`);
    return raw;
  };
  let apnsCa: string | undefined;
  if (env.ASSENT_APNS_CA_FILE) {
    try {
      apnsCa = readFileSync(env.ASSENT_APNS_CA_FILE, 'utf8');
    } catch {
      throw fail(`ASSENT_APNS_CA_FILE cannot be read: ${env.ASSENT_APNS_CA_FILE}`);
    }
  }
  return {
    fcmUrl: url('ASSENT_FCM_URL', 'https://fcm.googleapis.com'),
    fcmTokenUrl: url('ASSENT_FCM_TOKEN_URL', 'https://oauth2.googleapis.com/token'),
    apnsHost: host('ASSENT_APNS_HOST', 'api.push.apple.com'),
    apnsSandboxHost: host('ASSENT_APNS_SANDBOX_HOST', 'api.sandbox.push.apple.com'),
    apnsCa,
  };
}
