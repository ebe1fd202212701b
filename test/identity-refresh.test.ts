import { createSecretKey, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFRESH_MAC_PURPOSE } from '../src/identity/tokens/tokens.js';
import { startAssent, type TestAssent } from './helpers/assent.js';
import { decode, fetchJwks, hs256, jwkToPem, mintLike, unsigned } from './helpers/jwt.js';
import {
  ALICE,
  BOB,
  DEFAULT_CLIENT,
  meStatus,
  OTHER_CLIENT,
  refresh,
  signIn,
  type TokenBody,
} from './helpers/session.js';

let t: TestAssent;
beforeAll(async () => {
  // No reuse grace period: every reuse of a rotated token revokes at once (the grace period is
  // tested in test/identity-refresh-grace.test.ts).
  t = await startAssent({ ASSENT_REFRESH_REUSE_GRACE_SECONDS: '0' });
});
afterAll(() => t?.stop());

const TOKEN_KEYS = ['access_token', 'expires_in', 'refresh_expires_in', 'refresh_token', 'token_type'];

function expectTokenShape(body: TokenBody) {
  expect(Object.keys(body).sort()).toEqual(TOKEN_KEYS);
  expect(body).toMatchObject({ token_type: 'bearer', expires_in: 900, refresh_expires_in: 36000 });
  expect(typeof body.access_token).toBe('string');
  expect(typeof body.refresh_token).toBe('string');
}

describe('docs/api.md "Identity management" refresh access token', () => {
  it('rotation answers a new Token (docs/api.md "Resources") whose access token works on GET /user', async () => {
    const { User, Token } = await signIn(t, ALICE);
    const res = await refresh(t, { refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT });
    expect(res.status).toBe(200);
    expectTokenShape(res.body);
    expect(res.body.refresh_token).not.toBe(Token.refresh_token);
    expect(res.body.access_token).not.toBe(Token.access_token);
    // The new tokens continue the same session (token family) for the same user and client.
    const next = decode(res.body.access_token);
    expect(next.header.typ).toBe('at+jwt');
    expect(next.payload).toMatchObject({
      sub: User.ID,
      sid: decode(Token.access_token).payload.sid,
      client_id: DEFAULT_CLIENT,
    });
    expect(decode(res.body.refresh_token).header.typ).toBe('refresh+jwt');
    const user = await (
      await fetch(`${t.base}/user`, { headers: { authorization: `Bearer ${res.body.access_token}` } })
    ).json();
    expect(user.User.ID).toBe(User.ID);
  });

  it('the alias POST {base}/user/token rotates too', async () => {
    const { Token } = await signIn(t, ALICE);
    const res = await refresh(t, { refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT }, '/user/token');
    expect(res.status).toBe(200);
    expectTokenShape(res.body);
    expect(await meStatus(t, res.body.access_token)).toBe(200);
  });

  it('body keys are matched without regard to case (refreshToken, clientId)', async () => {
    const { Token } = await signIn(t, ALICE);
    const res = await refresh(t, { refreshToken: Token.refresh_token, clientId: DEFAULT_CLIENT });
    expect(res.status).toBe(200);
    expectTokenShape(res.body);
    const again = await refresh(t, { RefreshToken: res.body.refresh_token, ClientID: DEFAULT_CLIENT }, '/user/token');
    expect(again.status).toBe(200);
  });

  it('a rotated refresh token chain keeps working: each new refresh token rotates once', async () => {
    const { Token } = await signIn(t, ALICE);
    let current = Token.refresh_token;
    for (let i = 0; i < 3; i++) {
      const res = await refresh(t, { refreshtoken: current, clientid: DEFAULT_CLIENT });
      expect(res.status, `rotation ${i}`).toBe(200);
      current = res.body.refresh_token;
    }
  });

  it('reusing a consumed refresh token is refused with invalid_grant and revokes the whole session', async () => {
    const { Token } = await signIn(t, ALICE);
    const first = await refresh(t, { refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT });
    expect(first.status).toBe(200);
    const second = await refresh(t, { refreshtoken: first.body.refresh_token, clientid: DEFAULT_CLIENT });
    expect(second.status).toBe(200);
    const newest: TokenBody = second.body;
    // Before the reuse, every access token of the session works.
    for (const access of [Token.access_token, first.body.access_token, newest.access_token])
      expect(await meStatus(t, access)).toBe(200);

    const reuse = await refresh(t, { refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT });
    expect(reuse.status).toBe(400);
    expect(reuse.body).toMatchObject({ Code: 400, error: 'invalid_grant' });

    // The family is revoked: the newest refresh token and all access tokens of the session are dead.
    const newestRefresh = await refresh(t, { refreshtoken: newest.refresh_token, clientid: DEFAULT_CLIENT });
    expect(newestRefresh.status).toBe(400);
    expect(newestRefresh.body.error).toBe('invalid_grant');
    for (const access of [Token.access_token, first.body.access_token, newest.access_token])
      expect(await meStatus(t, access)).toBe(401);
  });

  it('reuse revokes only that session: another session of the same user keeps working', async () => {
    const a = await signIn(t, ALICE);
    const b = await signIn(t, ALICE);
    expect((await refresh(t, { refreshtoken: a.Token.refresh_token, clientid: DEFAULT_CLIENT })).status).toBe(200);
    expect((await refresh(t, { refreshtoken: a.Token.refresh_token, clientid: DEFAULT_CLIENT })).status).toBe(400);
    expect(await meStatus(t, a.Token.access_token)).toBe(401);
    expect(await meStatus(t, b.Token.access_token)).toBe(200);
    expect((await refresh(t, { refreshtoken: b.Token.refresh_token, clientid: DEFAULT_CLIENT })).status).toBe(200);
  });

  it('concurrent refreshes of one token give exactly one 200; the rest are invalid_grant', async () => {
    const { Token } = await signIn(t, BOB);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => refresh(t, { refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(9);
    for (const r of results.filter((x) => x.status === 400)) expect(r.body.error).toBe('invalid_grant');
  });

  it('an unregistered clientid is 400 invalid_client', async () => {
    const { Token } = await signIn(t, ALICE);
    const res = await refresh(t, { refreshtoken: Token.refresh_token, clientid: 'no-such-client' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ Code: 400, error: 'invalid_client' });
  });

  it('a registered client other than the one the token was issued to is 400 invalid_grant', async () => {
    const { Token } = await signIn(t, ALICE);
    expect(decode(Token.refresh_token).payload.client_id).toBe(DEFAULT_CLIENT);
    const res = await refresh(t, { refreshtoken: Token.refresh_token, clientid: OTHER_CLIENT });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ Code: 400, error: 'invalid_grant' });
  });

  it('a login with clientid binds the session to that client', async () => {
    const res = await fetch(`${t.base}/v1.1/users/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ALICE, clientid: OTHER_CLIENT }),
    });
    const { Token } = await res.json();
    expect((await refresh(t, { refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT })).body.error).toBe(
      'invalid_grant',
    );
    expect((await refresh(t, { refreshtoken: Token.refresh_token, clientid: OTHER_CLIENT })).status).toBe(200);
  });

  it('a garbage refresh token is a 400 JSON body {Code, Message, error, error_description}', async () => {
    for (const refreshtoken of ['garbage', 'a.b.c', 'eyJhbGciOiJFUzI1NiJ9.e30.AAAA']) {
      const res = await refresh(t, { refreshtoken, clientid: DEFAULT_CLIENT });
      expect(res.status, refreshtoken).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(Object.keys(res.body).sort()).toEqual(['Code', 'Message', 'error', 'error_description']);
      expect(res.body).toMatchObject({ Code: 400, error: 'invalid_grant' });
      expect(res.body.error_description).toBe(res.body.Message);
    }
  });

  it('a missing field is 400 invalid_request', async () => {
    const res = await refresh(t, { clientid: DEFAULT_CLIENT });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ Code: 400, error: 'invalid_request' });
  });

  it('an access token or an API key sent as a refresh token is refused (typ pinning)', async () => {
    const { User, Token } = await signIn(t, ALICE);
    for (const refreshtoken of [Token.access_token, User.APIKey]) {
      const res = await refresh(t, { refreshtoken, clientid: DEFAULT_CLIENT });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    }
    // The same claims and jti as the real refresh token, MACed with the refresh key: only `typ` decides.
    const jti = decode(Token.refresh_token).payload.jti;
    const asAccess = await mintLike(t, Token.refresh_token, {
      claims: { jti },
      key: refreshKey(),
      header: { alg: 'HS256', kid: undefined },
    });
    expect((await refresh(t, { refreshtoken: asAccess, clientid: DEFAULT_CLIENT })).status).toBe(400);
    const asRefresh = await mintLike(t, Token.refresh_token, {
      claims: { jti },
      key: refreshKey(),
      header: { alg: 'HS256', kid: undefined, typ: 'refresh+jwt' },
    });
    expect((await refresh(t, { refreshtoken: asRefresh, clientid: DEFAULT_CLIENT })).status).toBe(200);
  });

  it('RFC 8725 §3.1: refresh tokens are HS256 under a master-derived key; ES256 (even by the server key), alg none and a MAC with the public key are refused', async () => {
    const { Token } = await signIn(t, ALICE);
    const real = decode(Token.refresh_token);
    expect(real.header).toEqual({ alg: 'HS256', typ: 'refresh+jwt' });
    // Every hostile token carries the real, unconsumed jti: were one accepted, it would rotate (200)
    // and consume the jti, so the positive control at the end would fail too.
    const fresh = () => ({ ...real.payload });
    const refused = async (refreshtoken: string) => {
      const res = await refresh(t, { refreshtoken, clientid: DEFAULT_CLIENT });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    };
    await refused(await mintLike(t, Token.refresh_token, { claims: fresh(), header: { typ: 'refresh+jwt' } }));
    await refused(unsigned({ alg: 'none', typ: 'refresh+jwt' }, fresh()));
    for (const jwk of (await fetchJwks(t.url)).keys) {
      await refused(await hs256({ typ: 'refresh+jwt' }, fresh(), jwkToPem(jwk)));
      await refused(await hs256({ typ: 'refresh+jwt' }, fresh(), JSON.stringify(jwk)));
    }
    await refused(
      await mintLike(t, Token.refresh_token, {
        claims: fresh(),
        key: createSecretKey(randomBytes(32)),
        header: { alg: 'HS256', kid: undefined, typ: 'refresh+jwt' },
      }),
    );
    // Positive control: the real key and the real jti rotate.
    const genuine = await mintLike(t, Token.refresh_token, {
      claims: { jti: real.payload.jti },
      key: refreshKey(),
      header: { alg: 'HS256', kid: undefined, typ: 'refresh+jwt' },
    });
    expect((await refresh(t, { refreshtoken: genuine, clientid: DEFAULT_CLIENT })).status).toBe(200);
  });
});

/** The server's refresh-token MAC key, as the server derives it from its master key. */
function refreshKey() {
  return createSecretKey(t.ctx.master.derivedKey(REFRESH_MAC_PURPOSE));
}
