/**
 * The ID token checks of the callback and the exchange (OpenID Connect Core §3.1.3.7), against a
 * fake IdP on 127.0.0.1 whose token endpoint answers forged tokens; and a provider that does not
 * answer (a clear 502 within the 5 s limit). Every refusal is a redirect to the app with `error`
 * (callback) or a JSON error with `error`/`error_description` (exchange), never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { configureFakeIdp, type FakeIdp, startFakeIdp, startSilentServer } from './helpers/oidc.js';

const APP = 'https://app.example/cb';
let t: TestAssent;
let fake: FakeIdp;
let owner: string;
let orgId: string;
const idp = () => `${t.base}/organizations/${orgId}/idp/open-id`;
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

async function configure(patch: Record<string, unknown>) {
  const res = await call(idp(), { method: 'PUT', token: owner, body: patch });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Runs authorize → callback with the fake IdP's token; returns the app redirect's query. */
async function signIn(mint: FakeIdp['mint']) {
  fake.mint = mint;
  const start = await fetch(`${idp()}/authorize?redirect_uri=${encodeURIComponent(APP)}&state=app`, {
    redirect: 'manual',
  });
  expect(start.status).toBe(302);
  const toIdp = new URL(start.headers.get('location')!);
  fake.nonce = toIdp.searchParams.get('nonce')!;
  const back = await fetch(`${idp()}/callback?code=fake-code&state=${toIdp.searchParams.get('state')}`, {
    redirect: 'manual',
  });
  expect(back.status).toBe(303);
  return new URL(back.headers.get('location')!).searchParams;
}

function expectRefused(params: URLSearchParams, reason: RegExp) {
  expect(params.get('code')).toBeNull();
  expect(params.get('error')).toBe('access_denied');
  expect(params.get('error_description')).toMatch(reason);
  expect(params.get('state')).toBe('app');
}

beforeAll(async () => {
  t = await startAssent({
    ASSENT_FEDERATION_ALLOW_HTTP_HOSTS: '127.0.0.1',
    ASSENT_IP_DELAY_AFTER: '5',
    ASSENT_IP_LOCK_AFTER: '8',
  });
  orgId = t.ids.organisations.acme!.id;
  owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  fake = await startFakeIdp('assent-client');
  await configureFakeIdp(idp(), owner, fake, APP, 'openid profile');
});
afterAll(async () => {
  await fake?.close();
  await t?.stop();
});

describe('ID token validation at the callback', () => {
  it('a valid, signed ID token signs in (control case)', async () => {
    const params = await signIn(({ nonce, sign }) => sign({ nonce }));
    expect(params.get('code')).toMatch(/^asc_/);
  });

  it('wrong issuer is refused', async () => {
    expectRefused(await signIn(({ nonce, sign }) => sign({ nonce, iss: 'https://other-issuer.example' })), /issuer/);
  });

  it('wrong audience is refused', async () => {
    expectRefused(await signIn(({ nonce, sign }) => sign({ nonce, aud: 'another-client' })), /audience/);
  });

  it('expired ID token is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    expectRefused(await signIn(({ nonce, sign }) => sign({ nonce, iat: now - 900, exp: now - 600 })), /expired/);
  });

  it('bad signature is refused (validateSignature true: checked against jwksUrl)', async () => {
    const params = await signIn(async ({ nonce, sign }) => {
      const token = await sign({ nonce });
      const [h, p] = token.split('.');
      return `${h}.${p}.${Buffer.alloc(256, 7).toString('base64url')}`;
    });
    expectRefused(params, /signature/);
  });

  it('alg: none is refused, even with validateSignature false', async () => {
    await configure({ validateSignature: false });
    try {
      const now = Math.floor(Date.now() / 1000);
      const params = await signIn(
        async ({ nonce }) =>
          `${b64({ alg: 'none', typ: 'JWT' })}.${b64({
            iss: fake.url,
            aud: 'assent-client',
            sub: 'fake-subject',
            iat: now,
            exp: now + 300,
            nonce,
          })}.`,
      );
      expectRefused(params, /algorithm/);
    } finally {
      await configure({ validateSignature: true });
    }
  });

  it('missing nonce is refused', async () => {
    expectRefused(await signIn(({ sign }) => sign({ nonce: undefined })), /nonce/);
  });

  it('wrong nonce is refused', async () => {
    expectRefused(await signIn(({ sign }) => sign({ nonce: 'a-nonce-of-another-sign-in' })), /nonce/);
  });
});

describe('claims', () => {
  it('userinfo enabled: claims come from userinfo', async () => {
    const before = fake.userinfoCalls;
    const code = (await signIn(({ nonce, sign }) => sign({ nonce }))).get('code')!;
    const res = await call(`${idp()}/exchange?redirect_uri=${encodeURIComponent(APP)}&code=${code}`, {
      method: 'POST',
    });
    expect(res.status).toBe(200);
    expect(res.body.User.Name).toBe('From Userinfo');
    expect(fake.userinfoCalls).toBe(before + 1);
  });

  it('userinfo disabled: claims come from the ID token, and userinfo is not called', async () => {
    await configure({ disableUserInfo: true, userInfoUrl: '' });
    try {
      const before = fake.userinfoCalls;
      const code = (
        await signIn(({ nonce, sign }) => sign({ nonce, sub: 'subject-two', name: 'Only In ID Token' }))
      ).get('code')!;
      const res = await call(`${idp()}/exchange?redirect_uri=${encodeURIComponent(APP)}&code=${code}`, {
        method: 'POST',
      });
      expect(res.status).toBe(200);
      expect(res.body.User.Name).toBe('Only In ID Token');
      expect(fake.userinfoCalls).toBe(before);
    } finally {
      await configure({ disableUserInfo: false, userInfoUrl: `${fake.url}/userinfo` });
    }
  });
});

describe('a code the app obtained straight from the provider', () => {
  it('is exchanged with the same validation (here: no nonce, since Assent issued none)', async () => {
    fake.nonce = undefined;
    fake.mint = ({ sign }) => sign({ nonce: undefined });
    const res = await call(`${idp()}/exchange?redirect_uri=${encodeURIComponent(APP)}&code=provider-code`, {
      method: 'POST',
    });
    expect(res.status).toBe(200);
    expect(res.body.Token.access_token).toBeTruthy();
    fake.mint = ({ sign }) => sign({ iss: 'https://other-issuer.example' });
    const bad = await call(`${idp()}/exchange?redirect_uri=${encodeURIComponent(APP)}&code=provider-code`, {
      method: 'POST',
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid_grant', Code: 400 });
    expect(bad.body.error_description).toMatch(/issuer/);
  });
});

describe('provider down', () => {
  it('a token endpoint that never answers: a clear 502 within the timeout (exchange), temporarily_unavailable (callback)', async () => {
    const silent = await startSilentServer();
    await configure({ tokenUrl: `${silent.url}/token` });
    try {
      const started = Date.now();
      const res = await call(`${idp()}/exchange?redirect_uri=${encodeURIComponent(APP)}&code=provider-code`, {
        method: 'POST',
      });
      const elapsed = Date.now() - started;
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ Code: 502, error: 'temporarily_unavailable' });
      expect(res.body.Message).toMatch(/did not answer|could not be reached/);
      expect(elapsed).toBeGreaterThanOrEqual(4500);
      expect(elapsed).toBeLessThan(7000);
      const params = await signIn(({ nonce, sign }) => sign({ nonce }));
      expect(params.get('error')).toBe('temporarily_unavailable');
      // A closed port: refused at once, also a 502.
      await configure({ tokenUrl: 'http://127.0.0.1:9/token' });
      expect(
        (await call(`${idp()}/exchange?redirect_uri=${encodeURIComponent(APP)}&code=provider-code`, { method: 'POST' }))
          .status,
      ).toBe(502);
    } finally {
      await configure({ tokenUrl: `${fake.url}/token` });
      await silent.close();
    }
  }, 20000);
});

describe('the exchange is throttled like a login', () => {
  it('failed exchanges from one IP lead to 429 with Retry-After', async () => {
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 6; i++)
      last = await call(`${idp()}/exchange?redirect_uri=${encodeURIComponent(APP)}&code=asc_guess${i}`, {
        method: 'POST',
      });
    expect(last!.status).toBe(429);
    expect(last!.headers.get('retry-after')).toBeTruthy();
    expect(last!.body.error).toBe('temporarily_unavailable');
  });
});
