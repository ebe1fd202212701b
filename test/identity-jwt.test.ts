import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { b64url, decode, fetchJwks, hs256, jwkToPem, mintLike, strangerKey, unsigned } from './helpers/jwt.js';
import { ALICE, BOB, me, meStatus, signIn } from './helpers/session.js';

let t: TestAssent;
let alice: Awaited<ReturnType<typeof signIn>>;
let bobId: string;
beforeAll(async () => {
  t = await startAssent();
  alice = await signIn(t, ALICE);
  bobId = (await signIn(t, BOB)).User.ID;
});
afterAll(() => t?.stop());

/** GET {base}/user is refused with a 401 JSON error body. */
async function expectRefused(token: string, scheme = 'Bearer') {
  const res = await me(t, token, scheme);
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  expect(res.body).toMatchObject({ Code: 401 });
}

describe('docs/api.md "Authentication" bearer tokens: hostile JWTs are refused', () => {
  it('control: a token built by the test helper with the server key and correct claims is accepted', async () => {
    const token = await mintLike(t, alice.Token.access_token);
    const res = await me(t, token);
    expect(res.status).toBe(200);
    expect(res.body.User.ID).toBe(alice.User.ID);
    // The same helper can impersonate another user when the claims are right: it truly signs like the server.
    const asBob = await me(t, await mintLike(t, alice.Token.access_token, { claims: { sub: bobId } }));
    expect(asBob.body.User.ID).toBe(bobId);
  });

  it('alg "none" (an unsigned token with valid-looking claims) is refused', async () => {
    const real = decode(alice.Token.access_token);
    const payload = { ...real.payload, jti: crypto.randomUUID() };
    await expectRefused(unsigned(real.header, payload));
    await expectRefused(unsigned({ ...real.header, alg: 'None' }, payload));
    // The server's own signature pasted after an alg:none header does not help either.
    await expectRefused(unsigned(real.header, real.payload, alice.Token.access_token.split('.')[2]));
  });

  it('HS256 signed with the server public key (JWK JSON or PEM as the HMAC secret) is refused', async () => {
    const { keys } = await fetchJwks(t.url);
    expect(keys.length).toBeGreaterThan(0);
    const real = decode(alice.Token.access_token);
    for (const jwk of keys) {
      const { kty, crv, x, y } = jwk;
      const secrets = [JSON.stringify(jwk), JSON.stringify({ kty, crv, x, y }), jwkToPem(jwk), jwkToPem(jwk).trim()];
      for (const secret of secrets) {
        await expectRefused(
          await hs256({ kid: jwk.kid, typ: 'at+jwt' }, { ...real.payload, jti: crypto.randomUUID() }, secret),
        );
      }
    }
  });

  it('a token signed by a fresh ES256 key (unknown kid or the real kid), or one without a kid, is refused', async () => {
    const key = await strangerKey();
    await expectRefused(await mintLike(t, alice.Token.access_token, { key, header: { kid: crypto.randomUUID() } }));
    await expectRefused(await mintLike(t, alice.Token.access_token, { key }));
    await expectRefused(await mintLike(t, alice.Token.access_token, { header: { kid: undefined } }));
  });

  it('an expired token is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(await mintLike(t, alice.Token.access_token, { iat: now - 3600, exp: now - 600 }));
  });

  it('a token with a wrong aud is refused', async () => {
    await expectRefused(await mintLike(t, alice.Token.access_token, { claims: { aud: 'https://elsewhere.example' } }));
  });

  it('a token with a wrong iss is refused', async () => {
    await expectRefused(await mintLike(t, alice.Token.access_token, { claims: { iss: 'https://elsewhere.example' } }));
  });

  it('a token with a wrong typ, or an access token without sid, is refused', async () => {
    for (const typ of ['JWT', 'refresh+jwt', undefined]) {
      await expectRefused(await mintLike(t, alice.Token.access_token, { header: { typ } }));
    }
    await expectRefused(await mintLike(t, alice.Token.access_token, { claims: { sid: undefined } }));
    await expectRefused(await mintLike(t, alice.Token.access_token, { claims: { sid: crypto.randomUUID() } }));
  });

  it('a refresh token used as an access token is refused', async () => {
    await expectRefused(alice.Token.refresh_token);
  });

  it('a tampered payload (sub changed to another user) is refused', async () => {
    const [header, , signature] = alice.Token.access_token.split('.');
    const payload = { ...decode(alice.Token.access_token).payload, sub: bobId };
    await expectRefused(`${header}.${b64url(payload)}.${signature}`);
    // A flipped signature byte is refused as well, while the untouched token works.
    const sig = Buffer.from(signature!, 'base64url');
    sig[0] = sig[0]! ^ 1;
    await expectRefused(`${header}.${alice.Token.access_token.split('.')[1]}.${sig.toString('base64url')}`);
    expect(await meStatus(t, alice.Token.access_token)).toBe(200);
  });
});

describe('docs/api.md "Authentication" Authorization header schemes', () => {
  it('the API key is accepted as "Bearer <APIKey>" and as "ApiKey <APIKey>"', async () => {
    for (const scheme of ['Bearer', 'ApiKey', 'apikey', 'bearer']) {
      const res = await me(t, alice.User.APIKey, scheme);
      expect(res.status, scheme).toBe(200);
      expect(res.body.User.ID).toBe(alice.User.ID);
    }
  });

  it('an access token sent with the ApiKey scheme is refused', async () => {
    await expectRefused(alice.Token.access_token, 'ApiKey');
  });

  it('an API key of an unknown or forged kind is refused', async () => {
    // Signed by the server key, typ apikey+jwt, but no such api_keys row.
    await expectRefused(await mintLike(t, alice.Token.access_token, { header: { typ: 'apikey+jwt' } }), 'ApiKey');
  });

  it('a missing or malformed Authorization header is a 401 JSON error', async () => {
    const headers = [
      '',
      'Bearer',
      'Bearer ',
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      `Bearer ${alice.Token.access_token} extra`,
      `Token ${alice.Token.access_token}`,
      'Bearer not a jwt',
      'Bearer ###',
    ];
    for (const authorization of headers) {
      const res = await call(`${t.base}/user`, { headers: authorization ? { authorization } : {} });
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get('content-type'), authorization).toMatch(/application\/json/);
      expect(res.body, authorization).toMatchObject({ Code: 401, Message: expect.any(String) });
    }
  });
});
