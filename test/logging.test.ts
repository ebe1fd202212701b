/**
 * The logs of `assent serve` (LOG_LEVEL=info): every line of a request carries its request ID, and
 * no line carries a password, a token, an API key or an Authorization header (ASVS 5.0 V16.2.5).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { DEMO_FILE, freshStore, runCli, type ServeProcess, startServe, type TestStore } from './helpers/cli.js';

const PASSWORD = 'demo-alice-passphrase';
const WRONG_PASSWORD = 'wrong-but-private-passphrase';

let store: TestStore;
let server: ServeProcess;
/** Values that must never reach a log line. */
const secrets = new Map<string, string>();
/** Request IDs sent with the requests below. */
const sentIds: string[] = [];
let lines: string[] = [];

/** Sends a request with a known X-Request-Id and returns the response. */
async function send(id: string, path: string, init: Parameters<typeof call>[1] = {}) {
  sentIds.push(id);
  return call(`${server.url}${path}`, { ...init, headers: { ...init.headers, 'x-request-id': id } });
}

/** Remembers a secret, and each part of a JWT (a truncated token in a log is a leak too). */
function secret(label: string, value: string): void {
  expect(value, label).toBeTruthy();
  secrets.set(label, value);
  const parts = value.split('.');
  if (parts.length === 3) {
    secrets.set(`${label} payload`, parts[1]!);
    secrets.set(`${label} signature`, parts[2]!);
  }
}

beforeAll(async () => {
  store = await freshStore();
  const imported = await runCli(['import', DEMO_FILE], store.env);
  if (imported.code !== 0) throw new Error(imported.stderr);
  server = await startServe({ ...store.env, LOG_LEVEL: 'info' });
  secret('password', PASSWORD);
  secret('wrong password', WRONG_PASSWORD);

  const login = await send('log-login', '/v1/v1.1/users/login', {
    body: { username: 'alice@acme.example', password: PASSWORD, clientid: 'igrant-ios-app' },
  });
  expect(login.status).toBe(200);
  secret('access token', login.body.Token.access_token);
  secret('refresh token', login.body.Token.refresh_token);
  secret('API key', login.body.User.APIKey);

  const refresh = await send('log-refresh', '/v1/users/token', {
    body: { refreshtoken: login.body.Token.refresh_token, clientid: 'igrant-ios-app' },
  });
  expect(refresh.status).toBe(200);
  secret('refreshed access token', refresh.body.access_token);
  secret('refreshed refresh token', refresh.body.refresh_token);
  const access = secrets.get('refreshed access token')!;

  secret('Authorization header', `Bearer ${access}`);
  expect((await send('log-bearer', '/v1/user', { token: access })).status).toBe(200);
  secret('ApiKey Authorization header', `ApiKey ${login.body.User.APIKey}`);
  expect((await send('log-apikey', '/v1/user', { token: login.body.User.APIKey, scheme: 'ApiKey' })).status).toBe(200);

  const failed = await send('log-failed-login', '/v1/v1.1/users/login', {
    body: { username: 'alice@acme.example', password: WRONG_PASSWORD },
  });
  expect(failed.status).toBe(401);
  // Secrets where careless clients put them: a URL query, and a body that is not even valid JSON.
  await send('log-query-token', `/v1/user?access_token=${encodeURIComponent(access)}`);
  await send('log-broken-body', '/v1/v1.1/users/login', {
    body: `{"username":"alice@acme.example","password":"${PASSWORD}" x}`,
    headers: { 'content-type': 'application/json' },
  });
  const logout = await send('log-logout', '/v1/users/logout', {
    token: access,
    body: { refreshtoken: secrets.get('refreshed refresh token'), clientid: 'igrant-ios-app' },
  });
  expect(logout.status).toBe(204);

  expect((await server.stop()).code).toBe(0);
  lines = server
    .stdout()
    .split('\n')
    .filter((l) => l.trim() !== '');
}, 120_000);
afterAll(async () => {
  await server?.stop('SIGKILL');
  await store?.cleanup();
});

describe('logging', () => {
  it('assent serve logs JSON lines on stdout', () => {
    expect(lines.length).toBeGreaterThan(sentIds.length);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  });

  it('every log line that belongs to a request carries a requestId', () => {
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const ofRequests = entries.filter(
      (e) => 'req' in e || 'res' in e || 'responseTime' in e || 'reqId' in e || 'requestId' in e,
    );
    expect(ofRequests.length).toBeGreaterThanOrEqual(2 * sentIds.length);
    for (const entry of ofRequests)
      expect(entry.requestId, JSON.stringify(entry)).toEqual(expect.stringMatching(/^\S+$/));
    // The ID a caller sent is the one logged, on the line of its arrival and of its completion.
    for (const id of sentIds) {
      const mine = ofRequests.filter((e) => e.requestId === id);
      expect(
        mine.some((e) => 'req' in e),
        id,
      ).toBe(true);
      expect(
        mine.some((e) => 'res' in e),
        id,
      ).toBe(true);
    }
  });

  it('no log line contains the password, a token, the API key or an Authorization header value', () => {
    const output = `${server.stdout()}\n${server.stderr()}`;
    const leaked = [...secrets]
      .filter(([, value]) => output.includes(value) || output.includes(encodeURIComponent(value)))
      .map(([label]) => label);
    expect(leaked).toEqual([]);
  });
});
