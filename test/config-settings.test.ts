/**
 * docs/configuration.md: "A value it cannot use stops it with exit code 2 and a message naming the
 * variable." Every row of `SETTINGS` (the table of that page) gets a bad value here, and `assent serve`
 * is spawned with it; a row without one fails the first test, so a new setting must add its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/platform/config/settings.js';
import { runCli } from './helpers/cli.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'assent-config-'));
const aFile = path.join(scratch, 'not-a-directory');
writeFileSync(aFile, 'x');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A value Assent cannot use, per setting, with what the message must also say (besides the name). */
const BAD: Record<string, { value: string; says?: RegExp }> = {
  PORT: { value: '99999', says: /0 to 65535/ },
  HOST: { value: 'http://127.0.0.1', says: /IP address|host name/ },
  ASSENT_PUBLIC_URL: { value: 'ftp://id.example.org', says: /http/ },
  DATABASE_URL: { value: 'mysql://db.example.org/assent', says: /postgres/ },
  ASSENT_DB_POOL_SIZE: { value: '0' },
  ASSENT_DB_WRITE_SLOTS: { value: 'two' },
  ASSENT_DB_READ_SLOTS: { value: '1.5' },
  ASSENT_DATA_DIR: { value: aFile, says: /directory/ },
  ASSENT_SECRET: { value: 'too-short', says: /32 characters/ },
  ASSENT_ACCESS_TOKEN_TTL: { value: '1e3' },
  ASSENT_REFRESH_TOKEN_TTL: { value: '-1' },
  ASSENT_REFRESH_REUSE_GRACE_SECONDS: { value: 'five' },
  ASSENT_API_KEY_TTL_DAYS: { value: '0x10' },
  ASSENT_DEFAULT_CLIENT_ID: { value: 'my client', says: /spaces/ },
  ASSENT_ARGON2_MEMORY_KIB: { value: '1024', says: /19456/ },
  ASSENT_ARGON2_ITERATIONS: { value: '1' },
  ASSENT_ARGON2_PARALLELISM: { value: '0' },
  ASSENT_ACCOUNT_DELAY_AFTER: { value: 'x' },
  ASSENT_ACCOUNT_LOCK_AFTER: { value: `${Number.MAX_SAFE_INTEGER}0` },
  ASSENT_IP_DELAY_AFTER: { value: '-3' },
  ASSENT_IP_LOCK_AFTER: { value: '10.5' },
  ASSENT_LOCK_SECONDS: { value: '0' },
  ASSENT_FORGOT_PER_USERNAME: { value: 'three' },
  ASSENT_FORGOT_PER_IP: { value: '0' },
  ASSENT_FORGOT_WINDOW_SECONDS: { value: '15m' },
  ASSENT_INVITATION_TTL_SECONDS: { value: '7d' },
  ASSENT_ASKME_SWEEP_SECONDS: { value: '3000000', says: /2147483/ },
  ASSENT_PURGE_SECONDS: { value: '0' },
  SMTP_URL: { value: 'http://mail.example.org', says: /smtp/ },
  ASSENT_MAIL_FROM: { value: 'Assent\r\nBcc: x@example.org', says: /address/ },
  ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: { value: 'http://127.0.0.1', says: /without scheme/ },
  ASSENT_WALLET_PER_IP: { value: '0' },
  ASSENT_WALLET_ALLOW_HTTP_HOSTS: { value: '127.0.0.1:8080', says: /port/ },
  ASSENT_FEDERATION_ALLOW_HTTP_HOSTS: { value: '::1', says: /brackets/ },
  ASSENT_SAML_CLOCK_SKEW_SECONDS: { value: '601', says: /from 0 to 600/ },
  ASSENT_CORS_ORIGINS: { value: '*', says: /any page/ },
  ASSENT_DNS_SERVERS: { value: 'dns.example.org', says: /IP\[:PORT\]/ },
  ASSENT_NOTIFY_BATCH_SIZE: { value: '0' },
  ASSENT_ANONYMOUS_LIMIT: { value: 'many' },
  ASSENT_ANONYMOUS_WINDOW_SECONDS: { value: '0' },
  ASSENT_WEBHOOK_RETRIES: { value: '-1' },
  ASSENT_WEBHOOK_RETRY_DELAY_SECONDS: { value: '0' },
  ASSENT_EVENT_WEBHOOK_FIRST_RETRY_SECONDS: { value: '3601' },
  ASSENT_EVENT_WEBHOOK_RETRY_WINDOW_SECONDS: { value: '0' },
  ASSENT_EVENT_WEBHOOK_DISABLE_AFTER_SECONDS: { value: 'five days' },
  ASSENT_EVENT_WEBHOOK_DELIVERY: { value: 'worker', says: /thread, inline/ },
  ASSENT_FCM_URL: { value: 'ftp://fcm.example.org', says: /http/ },
  ASSENT_FCM_TOKEN_URL: { value: 'not a url', says: /absolute/ },
  ASSENT_APNS_HOST: { value: 'https://api.push.apple.com', says: /host\[:port\]/ },
  ASSENT_APNS_SANDBOX_HOST: { value: 'api.sandbox.push.apple.com:99999', says: /port/ },
  ASSENT_APNS_CA_FILE: { value: path.join(scratch, 'missing.pem'), says: /cannot be read/ },
  ASSENT_JOB_LEASE_SECONDS: { value: '0' },
  ASSENT_REQUEST_TIMEOUT_SECONDS: { value: '3000000', says: /2147483/ },
  ASSENT_SHUTDOWN_GRACE_SECONDS: { value: 'ten' },
  ASSENT_TRUST_PROXY: { value: 'yes', says: /true or false/ },
  LOG_LEVEL: { value: 'loud', says: /info/ },
  UV_THREADPOOL_SIZE: { value: '0', says: /1 to 1024/ },
};

/** Runs `assent serve` with one bad setting on a fresh data directory, so that nothing else can fail first. */
async function serveWith(name: string, value: string) {
  const dataDir = mkdtempSync(path.join(scratch, 'data-'));
  return runCli(['serve'], { ASSENT_DATA_DIR: dataDir, PORT: '0', [name]: value }, 30_000);
}

describe('every setting stops `assent serve` with exit 2 and a one-line message naming it when its value is unusable (docs/configuration.md)', () => {
  it('every SETTINGS row has a bad value in this table, and the table names no setting SETTINGS lacks', () => {
    expect(SETTINGS.map((s) => s.env).filter((env) => !(env in BAD))).toEqual([]);
    expect(Object.keys(BAD).filter((env) => !SETTINGS.some((s) => s.env === env))).toEqual([]);
  });

  // Concurrent: each case is one short-lived process that exits while reading its configuration.
  it.concurrent.each(Object.entries(BAD))('%s with an unusable value', async (name, { value, says }) => {
    const res = await serveWith(name, value);
    expect({ code: res.code, stderr: res.stderr }).toMatchObject({ code: 2, stderr: expect.stringContaining(name) });
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    if (says) expect(res.stderr).toMatch(says);
  });

  it.concurrent.each([
    ['HTTP://dashboard.example.org', /lower case \(write http:\/\/dashboard\.example\.org\)/],
    ['https://dashboard.example.org:443', /omit the default port \(write https:\/\/dashboard\.example\.org\)/],
    ['https://dashboard.example.org/', /no path|trailing slash \(write https:\/\/dashboard\.example\.org\)/],
  ])('ASSENT_CORS_ORIGINS=%s is refused with its real cause and the form to write', async (origin, cause) => {
    const res = await serveWith('ASSENT_CORS_ORIGINS', origin);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(cause);
  });
});
