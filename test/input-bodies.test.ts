/**
 * Request bodies as the deployed clients send them (docs/api.md "Bodies", "Requests") and as an
 * attacker may: nesting deeper than MAX_INPUT_DEPTH is a 400 (never a 500), a caller without
 * credentials is refused with 401 before its body is validated, an empty body is an empty body
 * whatever its Content-Type, and the logins and token endpoints accept form-encoded bodies
 * (RFC 6749 §4.3.2, §6).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;

beforeAll(async () => {
  t = await startAssent();
});
afterAll(() => t?.stop());

/** JSON arrays nested `depth` levels around a string. */
const nested = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;

/** Sends a raw body with the given Content-Type (POST unless `method` says otherwise). */
async function post(path: string, body: string, contentType: string, token?: string, method = 'POST') {
  const res = await fetch(`${t.base}${path}`, {
    method,
    body,
    headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

function expectError(res: { status: number; headers: Headers; body: any }, status: number): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body.Code).toBe(status);
  expect(typeof res.body.Message).toBe('string');
}

describe('deeply nested bodies', () => {
  it('a body nested 4,000 levels (8 KB) is a 400 on a route open to anyone', async () => {
    const res = await post(
      '/v1.1/users/login',
      `{"username":"a","password":"b","extra":${nested(4000)}}`,
      'application/json',
    );
    expectError(res, 400);
    expect(res.body.Message).toMatch(/nested deeper than 64/);
  });

  it('a body nested 4,000 levels is a 400 on an authenticated route, and nothing changes', async () => {
    const { Token } = await login(t, 'alice@acme.example', 'alice-passphrase');
    const res = await call(`${t.base}/user`, {
      method: 'PATCH',
      token: Token.access_token,
      body: `{"name":"Mallory","x":${nested(4000)}}`,
    });
    expectError(res, 400);
    expect((await call(`${t.base}/user`, { token: Token.access_token })).body.User.Name).toBe('Alice');
  });

  it('nesting up to the limit is accepted as before', async () => {
    const res = await post(
      '/v1.1/users/login',
      `{"username":"alice@acme.example","password":"alice-passphrase","extra":${nested(63)}}`,
      'application/json',
    );
    expect(res.status).toBe(200);
  });
});

describe('401 before body validation', () => {
  it('logout without credentials and with an invalid body is a 401', async () => {
    const res = await call(`${t.base}/users/logout`, { body: { nonsense: 1 } });
    expectError(res, 401);
  });

  it('a profile change without credentials and with a malformed JSON body is a 401', async () => {
    const res = await call(`${t.base}/user`, { method: 'PATCH', body: '{"name":' });
    expectError(res, 401);
  });
});

describe('empty bodies', () => {
  for (const contentType of ['application/x-www-form-urlencoded', 'application/json', 'application/octet-stream']) {
    it(`an empty body labelled ${contentType} is no body`, async () => {
      const { Token } = await login(t, 'bob@acme.example', 'bob-passphrase');
      const res = await post('/user/apikey/revoke', '', contentType, Token.access_token);
      expect(res.status).toBe(204);
    });
  }

  it('a non-empty body of a type no route reads is still a 415', async () => {
    const { Token } = await login(t, 'bob@acme.example', 'bob-passphrase');
    expectError(await post('/user/apikey/revoke', 'abc', 'application/octet-stream', Token.access_token), 415);
  });
});

describe('form-encoded bodies on the OAuth endpoints', () => {
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const FORM = 'application/x-www-form-urlencoded';

  it('the v1.1 login accepts a form', async () => {
    const res = await post(
      '/v1.1/users/login',
      form({ username: 'alice@acme.example', password: 'alice-passphrase' }),
      FORM,
    );
    expect(res.status).toBe(200);
    expect(res.body.Token.access_token).toBeTruthy();
  });

  it('both token endpoints refresh from a form, keys matched without regard to case', async () => {
    const { Token } = await login(t, 'alice@acme.example', 'alice-passphrase');
    const first = await post(
      '/users/token',
      form({ refreshToken: Token.refresh_token, clientId: 'igrant-ios-app' }),
      FORM,
    );
    expect(first.status).toBe(200);
    const second = await post(
      '/user/token',
      form({ refreshtoken: first.body.refresh_token, clientid: 'igrant-ios-app' }),
      FORM,
    );
    expect(second.status).toBe(200);
    expect(second.body.access_token).toBeTruthy();
  });

  it('logout accepts a form', async () => {
    const { Token } = await login(t, 'alice@acme.example', 'alice-passphrase');
    const res = await post(
      '/users/logout',
      form({ refreshtoken: Token.refresh_token, clientid: 'igrant-ios-app' }),
      FORM,
      Token.access_token,
    );
    expect(res.status).toBe(204);
    expect((await call(`${t.base}/user`, { token: Token.access_token })).status).toBe(401);
  });

  it('a form with a missing field is a 400 with the OAuth error fields', async () => {
    const res = await post('/users/token', form({ clientid: 'igrant-ios-app' }), FORM);
    expectError(res, 400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('a form carrying __proto__ is a 400, as in JSON', async () => {
    const res = await post('/users/token', 'refreshtoken=a&clientid=b&__proto__=c&__proto__=d', FORM);
    expectError(res, 400);
    expect(res.body.Message).toMatch(/__proto__/);
  });

  it('other routes do not read forms: 415', async () => {
    const { Token } = await login(t, 'alice@acme.example', 'alice-passphrase');
    const res = await post('/user', form({ name: 'Mallory' }), FORM, Token.access_token, 'PATCH');
    expectError(res, 415);
  });
});
