/**
 * Operational surface: health, readiness, JWKS, OpenAPI and the docs page, errors of unknown
 * paths, request IDs, and `GET {base}/organizations/roles`.
 */
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;
beforeAll(async () => {
  t = await startAssent();
});
afterAll(() => t?.stop());

/**
 * Absolute http(s) URLs that HTML, CSS or JS text would load:
 * src/href attributes and assignments, CSS url() and @import.
 */
function loadedUrls(text: string): string[] {
  const patterns = [
    /\b(?:src|href)\s*[=:]\s*["'`]?((?:https?:)?\/\/[^"'`\s)>]+)/gi,
    /url\(\s*["']?((?:https?:)?\/\/[^"')\s]+)/gi,
    /@import\s+(?:url\()?\s*["']?((?:https?:)?\/\/[^"')\s;]+)/gi,
  ];
  return patterns.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]!));
}

describe('operations', () => {
  it('GET /healthz answers 200 {"status":"ok"}', async () => {
    const res = await call(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 while the database answers', async () => {
    const res = await call(`${t.url}/readyz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
  });

  it('GET /.well-known/jwks.json publishes EC P-256 ES256 public keys with a kid and no private part, and they verify issued tokens', async () => {
    const res = await call(`${t.url}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.body.keys.length).toBeGreaterThan(0);
    for (const key of res.body.keys) {
      expect(key).toMatchObject({
        kty: 'EC',
        crv: 'P-256',
        alg: 'ES256',
        kid: expect.stringMatching(/.+/),
        x: expect.any(String),
        y: expect.any(String),
      });
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(secret);
    }
    const { Token } = await login(t, 'alice@acme.example', 'alice-passphrase');
    expect(res.body.keys.map((k: { kid: string }) => k.kid)).toContain(decodeProtectedHeader(Token.access_token).kid);
    await expect(jwtVerify(Token.access_token, createLocalJWKSet(res.body))).resolves.toBeTruthy();
  });

  it('GET /openapi.json is an OpenAPI 3 document with the login, token, logout, roles and user paths', async () => {
    const res = await call(`${t.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    const expected: Array<[string, string]> = [
      ['/v1/v1.1/users/login', 'post'],
      ['/v1.1/users/login', 'post'],
      ['/v1/users/login', 'post'],
      ['/v1/users/admin/login', 'post'],
      ['/v1/users/token', 'post'],
      ['/v1/users/logout', 'post'],
      ['/v1/organizations/roles', 'get'],
      ['/v1/user', 'get'],
    ];
    for (const [path, method] of expected) expect(res.body.paths?.[path], path).toHaveProperty(method);
  });

  it('GET /docs answers HTML, and neither the page nor the scripts and styles it links load anything from another origin', async () => {
    // The scanner itself must see an external reference when there is one.
    expect(
      loadedUrls(
        '<script src="https://cdn.example/x.js"></script> a{background:url(//cdn.example/i.png)} img.src = "http://x.example/i"',
      ),
    ).toHaveLength(3);
    const page = await fetch(`${t.url}/docs`, { redirect: 'follow' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    const origin = new URL(t.url).origin;
    const assets = [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => new URL(m[1]!, page.url));
    expect(assets.length).toBeGreaterThan(0);
    const foreign = assets.filter((u) => /^https?:$/.test(u.protocol) && u.origin !== origin).map(String);
    const texts: Array<[string, string]> = [['/docs', html]];
    for (const asset of assets.filter((u) => u.origin === origin && /\.(js|css)$/.test(u.pathname))) {
      const res = await fetch(asset);
      expect(res.status, String(asset)).toBe(200);
      texts.push([asset.pathname, await res.text()]);
    }
    expect(texts.some(([p]) => p.endsWith('.js'))).toBe(true);
    for (const [where, text] of texts)
      for (const url of loadedUrls(text)) if (new URL(url, origin).origin !== origin) foreign.push(`${where}: ${url}`);
    expect(foreign).toEqual([]);
    // Swagger UI fetches a validator badge from validator.swagger.io unless the configuration turns it off.
    const initialiser = texts.find(([, text]) => text.includes('SwaggerUIBundle('))?.[1] ?? '';
    expect(initialiser).toMatch(/["']?validatorUrl["']?\s*:\s*null/);
  });

  it('an unknown path answers 404 with a JSON {Code: 404, Message}', async () => {
    const res = await call(`${t.url}/no/such/path`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toEqual({ Code: 404, Message: expect.any(String) });
    expect(res.body.Message.length).toBeGreaterThan(0);
  });

  it('every response carries an X-Request-Id; a short-token X-Request-Id sent is echoed, anything else is replaced', async () => {
    const responses = [
      await call(`${t.url}/healthz`),
      await call(`${t.url}/readyz`),
      await call(`${t.url}/.well-known/jwks.json`),
      await call(`${t.url}/openapi.json`),
      await call(`${t.url}/docs`),
      await call(`${t.url}/no/such/path`),
      await call(`${t.base}/organizations/roles`),
      await call(`${t.base}/v1.1/users/login`, {
        body: '{"username":',
        headers: { 'content-type': 'application/json' },
      }),
      await call(`${t.base}/v1.1/users/login`, {
        body: { username: 'alice@acme.example', password: 'alice-passphrase' },
      }),
    ];
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    for (const [i, id] of ids.entries()) expect(id, `response ${i} (${responses[i]!.status})`).toMatch(/^\S+$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (const sent of ['trace-4711', 'a1B2.c3_d4-e5']) {
      expect((await call(`${t.url}/healthz`, { headers: { 'x-request-id': sent } })).headers.get('x-request-id')).toBe(
        sent,
      );
      expect(
        (await call(`${t.url}/no/such/path`, { headers: { 'x-request-id': sent } })).headers.get('x-request-id'),
      ).toBe(sent);
    }
    for (const sent of ['x'.repeat(300), 'two words', 'a"b{c}']) {
      const echoed = (await call(`${t.url}/healthz`, { headers: { 'x-request-id': sent } })).headers.get(
        'x-request-id',
      );
      expect(echoed).toMatch(/^\S+$/);
      expect(echoed).not.toBe(sent);
    }
  });

  it('GET {base}/organizations/roles with a token lists Admin, Dpo, Developer and Owner', async () => {
    const { Token } = await login(t, 'alice@acme.example', 'alice-passphrase');
    const res = await call(`${t.base}/organizations/roles`, { token: Token.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      Roles: [
        { ID: 1, Role: 'Admin' },
        { ID: 2, Role: 'Dpo' },
        { ID: 3, Role: 'Developer' },
        { ID: 4, Role: 'Owner' },
      ],
    });
  });

  it('GET {base}/organizations/roles without a valid token answers 401 JSON', async () => {
    for (const token of [undefined, 'not-a-token']) {
      const res = await call(`${t.base}/organizations/roles`, { token });
      expect(res.status, String(token)).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(res.body).toMatchObject({ Code: 401, Message: expect.any(String) });
      expect(res.body).not.toHaveProperty('Roles');
    }
  });
});
