/**
 * docs/api.md "CORS and security headers", through the public HTTP API on a server whose
 * ASSENT_PUBLIC_URL is https and which allows one dashboard origin (ASSENT_CORS_ORIGINS):
 * - `Cache-Control: no-store` and `Pragma: no-cache` on every answer carrying a token or an API key
 *   (RFC 6749 §5.1); `nosniff`, `X-Frame-Options: DENY` and HSTS on every answer, errors, 404s and
 *   /docs included; no HSTS when the public URL is plain http;
 * - CORS: preflights of allowed origins (configured, or the origin of an app redirect URI, which
 *   takes effect without a restart) pass without a credential and echo the origin; other origins,
 *   `null` included, get no CORS header and no 500; every answer varies on Origin; a setting that
 *   is not a list of exact origins (`*`, `null`, a path) stops `assent serve` before it starts.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { runCli } from './helpers/cli.js';

const DASHBOARD = 'https://dashboard.example.org';
const APP_ORIGIN = 'https://app.example';
let t: TestAssent;
let owner: string;
let orgId: string;

beforeAll(async () => {
  t = await startAssent({
    ASSENT_PUBLIC_URL: 'https://id.example.org',
    ASSENT_CORS_ORIGINS: `${DASHBOARD}, http://localhost:3000`,
  });
  orgId = t.ids.organisations.acme!.id;
  owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
});
afterAll(async () => {
  await t?.stop();
});

const preflight = (path: string, origin: string, method = 'GET') =>
  fetch(`${t.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type',
    },
  });

function expectNoStore(headers: Headers, what: string) {
  expect(headers.get('cache-control'), what).toBe('no-store');
  expect(headers.get('pragma'), what).toBe('no-cache');
}

describe('token answers are never stored (RFC 6749 §5.1)', () => {
  it('every login path, both refresh paths, the code exchange and the User record with its API key', async () => {
    const creds = { username: 'owner@acme.example', password: 'owner-passphrase' };
    for (const path of ['/v1.1/users/login', '/v1/v1.1/users/login', '/v1/users/login', '/v1/users/admin/login']) {
      const res = await call(`${t.url}${path}`, { body: creds });
      expect(res.status, path).toBe(200);
      expectNoStore(res.headers, path);
    }
    let refresh = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.refresh_token;
    for (const path of ['/v1/users/token', '/v1/user/token']) {
      const res = await call(`${t.url}${path}`, { body: { refreshtoken: refresh, clientid: 'igrant-ios-app' } });
      expect(res.status, path).toBe(200);
      expectNoStore(res.headers, path);
      refresh = res.body.refresh_token;
    }
    const me = await call(`${t.base}/user`, { token: owner });
    expect(me.body.User.APIKey).toBeTruthy();
    expectNoStore(me.headers, 'GET /user');
    const exchange = await call(
      `${t.base}/organizations/${orgId}/idp/open-id/exchange?redirect_uri=${encodeURIComponent(`${APP_ORIGIN}/cb`)}&code=asc_unknown`,
      { method: 'POST' },
    );
    expect(exchange.status).toBe(400);
    expectNoStore(exchange.headers, 'exchange');
    // A failed login carries no token, but is the same endpoint: the same header.
    expectNoStore(
      (await call(`${t.base}/users/login`, { body: { ...creds, password: 'wrong' } })).headers,
      'failed login',
    );
  });
});

describe('security headers on every answer', () => {
  it('nosniff, X-Frame-Options DENY and HSTS on 200s, errors, 404s, /docs and /openapi.json', async () => {
    const answers = {
      health: await fetch(`${t.url}/health/live`),
      '404': await fetch(`${t.url}/no/such/path`),
      '401': await fetch(`${t.base}/user`),
      '400': await fetch(`${t.base}/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{',
      }),
      docs: await fetch(`${t.url}/docs/`),
      openapi: await fetch(`${t.url}/openapi.json`),
    };
    for (const [what, res] of Object.entries(answers)) {
      expect(res.status, what).toBeLessThan(500);
      expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), what).toBe('DENY');
      expect(res.headers.get('strict-transport-security'), what).toBe('max-age=31536000; includeSubDomains');
      // Read each body: an unread one (openapi.json is large) keeps its connection busy, and the
      // server's close would wait for it until the client's garbage collector drops the response.
      await res.arrayBuffer();
    }
    expect(answers['404'].status).toBe(404);
    expect(answers.docs.status).toBe(200);
  });

  it('no HSTS when ASSENT_PUBLIC_URL is plain http (RFC 6797 §7.2)', async () => {
    const plain = await startAssent();
    try {
      const res = await fetch(`${plain.url}/health/live`);
      expect(res.headers.get('strict-transport-security')).toBeNull();
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    } finally {
      await plain.stop();
    }
  });
});

describe('CORS', () => {
  it('a preflight from a configured origin is answered without a credential and echoes that origin', async () => {
    const res = await preflight('/v1/user', DASHBOARD, 'PATCH');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Content-Type/);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('vary')).toMatch(/Origin/);
    expect(
      (await preflight('/v1.1/users/login', 'http://localhost:3000', 'POST')).headers.get(
        'access-control-allow-origin',
      ),
    ).toBe('http://localhost:3000');
  });

  it('answers to an allowed origin, errors included, carry the origin and expose Retry-After and X-Request-Id', async () => {
    for (const token of [owner, undefined]) {
      const res = await call(`${t.base}/user`, { token, headers: { origin: DASHBOARD } });
      expect(res.status).toBe(token ? 200 : 401);
      expect(res.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
      expect(res.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
      expect(res.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);
      expect(res.headers.get('vary')).toMatch(/Origin/);
    }
  });

  it('other origins, and the origin "null", get no CORS header: a 404 preflight, never a 500, never *', async () => {
    for (const origin of [
      'https://evil.example',
      'null',
      'https://dashboard.example.org.evil.example',
      'http://dashboard.example.org',
    ]) {
      const res = await preflight('/v1/user', origin);
      expect(res.status, origin).toBe(404);
      expect(await res.json()).toEqual({ Code: 404, Message: 'Not found' });
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull();
      const get = await call(`${t.base}/user`, { token: owner, headers: { origin } });
      expect(get.status).toBe(200);
      expect(get.headers.get('access-control-allow-origin'), origin).toBeNull();
      expect(get.headers.get('vary')).toMatch(/Origin/);
    }
  });

  it('the origin of an app redirect URI is allowed once registered and refused once removed, without a restart', async () => {
    const uris = `${t.base}/organizations/${orgId}/idp/open-id/app-redirect-uris`;
    const allowed = async () =>
      (await preflight('/v1/user', APP_ORIGIN)).headers.get('access-control-allow-origin') === APP_ORIGIN;
    const eventually = async (want: boolean) => {
      const until = Date.now() + 10_000;
      while ((await allowed()) !== want && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
      return allowed();
    };
    expect(await allowed()).toBe(false);
    expect(
      (
        await call(uris, {
          method: 'PUT',
          token: owner,
          body: { RedirectURIs: [`${APP_ORIGIN}/cb`, 'com.example.app:/cb'] },
        })
      ).status,
    ).toBe(200);
    expect(await eventually(true)).toBe(true);
    expect((await call(uris, { method: 'PUT', token: owner, body: { RedirectURIs: [] } })).status).toBe(200);
    expect(await eventually(false)).toBe(false);
  }, 30_000);
});

describe('ASSENT_CORS_ORIGINS', () => {
  it('anything but exact origins (*, null, a path, a trailing slash, another scheme) stops assent serve with exit 2 naming the setting', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'assent-cors-'));
    try {
      for (const value of [
        '*',
        'null',
        'https://dashboard.example.org/app',
        'https://dashboard.example.org/',
        'ftp://files.example.org',
        `${DASHBOARD},*`,
      ]) {
        const res = await runCli(
          ['serve'],
          { ASSENT_DATA_DIR: dataDir, PORT: '0', ASSENT_CORS_ORIGINS: value },
          30_000,
        );
        expect(res.code, value).toBe(2);
        expect(res.stderr, value).toContain('ASSENT_CORS_ORIGINS');
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
