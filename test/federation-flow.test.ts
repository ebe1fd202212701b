/**
 * Federation against a real OpenID provider (panva's oidc-provider on 127.0.0.1), through
 * Assent's HTTP API and a browser with a cookie jar: configure → authorize → provider login →
 * callback → exchange → API call with the Assent token → logout; codes are single-use and bound
 * to their redirect_uri; users are linked by (organisation, issuer, sub), never by e-mail.
 */
import { sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { Browser, configureOrgProvider, type TestProvider } from './helpers/oidc.js';

const APP = 'https://app.example/cb';
const OTHER_APP = 'https://app.example/other';
let t: TestAssent;
let op: TestProvider;
let owner: string;
let orgId: string;
const idp = () => `${t.base}/organizations/${orgId}/idp/open-id`;
const authorize = (state: string, redirect = APP) =>
  `${idp()}/authorize?redirect_uri=${encodeURIComponent(redirect)}&state=${state}`;
const exchange = (code: string, redirect = APP) =>
  call(`${idp()}/exchange?redirect_uri=${encodeURIComponent(redirect)}&code=${encodeURIComponent(code)}`, {
    method: 'POST',
  });

/** Signs in through the provider with `browser`; returns the app redirect's query. */
async function signIn(browser: Browser, who: string, state = 'app-state') {
  const result = await browser.drive(authorize(state), APP, { login: who, password: 'whatever' });
  expect(result.location, JSON.stringify(result.last?.body ?? '').slice(0, 300)).toBeTruthy();
  return { params: new URL(result.location!).searchParams, sawLogin: result.sawLogin };
}

beforeAll(async () => {
  t = await startAssent({ ASSENT_FEDERATION_ALLOW_HTTP_HOSTS: '127.0.0.1' });
  orgId = t.ids.organisations.acme!.id;
  owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  const redirect = await call(`${idp()}/redirect-uri`, { token: owner });
  expect(redirect.status).toBe(200);
  expect(redirect.body).toEqual({ RedirectURI: `${t.url}/v1/organizations/${orgId}/idp/open-id/callback` });
  const configured = await configureOrgProvider(t, orgId, owner, redirect.body.RedirectURI);
  op = configured.op;
  const created = configured.created;
  expect(created.status).toBe(201);
  expect(created.body.validateSignature).toBe(true);
  expect(
    (
      await call(`${idp()}/app-redirect-uris`, {
        method: 'PUT',
        token: owner,
        body: { RedirectURIs: [APP, OTHER_APP] },
      })
    ).status,
  ).toBe(200);
});
afterAll(async () => {
  await op?.close();
  await t?.stop();
});

describe('the whole flow against oidc-provider', () => {
  it('configure → authorize → provider login → callback → exchange → API call → logout (local session ends at once)', async () => {
    const browser = new Browser();
    const { params, sawLogin } = await signIn(browser, 'jdoe', 'xyz-123');
    expect(sawLogin).toBe(true);
    expect(params.get('state')).toBe('xyz-123');
    const code = params.get('code')!;
    expect(code).toMatch(/^asc_[A-Za-z0-9_-]{43}$/);
    // The authorization request carried PKCE S256, a state and a nonce (the provider requires PKCE).
    const toProvider = new URL(browser.visited.find((u) => u.startsWith(`${op.issuer}/auth?`))!);
    expect(toProvider.searchParams.get('code_challenge_method')).toBe('S256');
    expect(toProvider.searchParams.get('nonce')).toBeTruthy();
    expect(toProvider.searchParams.get('state')).not.toBe('xyz-123');
    expect(toProvider.searchParams.get('redirect_uri')).toBe(`${t.url}/v1/organizations/${orgId}/idp/open-id/callback`);

    const res = await exchange(code);
    expect(res.status).toBe(200);
    expect(res.body.User).toMatchObject({ Name: 'User jdoe', Email: 'jdoe@idp.example' });
    expect(res.body.User.APIKey).toBeTruthy();
    expect(res.body.Token).toMatchObject({ token_type: 'bearer' });
    const access = res.body.Token.access_token;
    const me = await call(`${t.base}/user`, { token: access });
    expect(me.status).toBe(200);
    expect(me.body.ID ?? me.body.User?.ID).toBe(res.body.User.ID);
    // Subscribed to the organisation, so it has a consent record there.
    const records = rowsOf<{ n: number }>(
      await t.store.db.execute(
        sql`SELECT count(*)::int AS n FROM consent_records WHERE user_id = ${res.body.User.ID} AND org_id = ${orgId}`,
      ),
    );
    expect(records[0]!.n).toBe(1);
    // The ID token is kept only sealed, tied to the session.
    const kept = rowsOf<{ id_token_sealed: string }>(
      await t.store.db.execute(sql`SELECT id_token_sealed FROM federation_sessions`),
    );
    expect(kept).toHaveLength(1);
    expect(kept[0]!.id_token_sealed).toMatch(/^v1\./);

    const out = await call(`${idp()}/logout`, { method: 'POST', token: access });
    expect(out.status).toBe(204);
    expect((await call(`${t.base}/user`, { token: access })).status).toBe(401);
    expect(rowsOf(await t.store.db.execute(sql`SELECT 1 FROM federation_sessions`))).toHaveLength(0);
    // The RP-initiated logout request reached the provider from the server, with the ID token as hint.
    expect(op.endSessionRequests).toHaveLength(1);
    const hint = decodeJwt(op.endSessionRequests[0]!.get('id_token_hint')!);
    expect(hint).toMatchObject({ sub: 'jdoe', aud: 'assent', iss: op.issuer });

    // What a server-side request can end: not the browser's provider session, which lives in the
    // browser's cookie. The same browser is still signed in at the provider (no login form)…
    const again = await signIn(browser, 'jdoe', 's2');
    expect(again.sawLogin).toBe(false);
    // …until the browser opens the logout URL the answer names and confirms; then it must log in again.
    const link = /^<([^>]+)>; rel="end-session"$/.exec(out.headers.get('link') ?? '');
    expect(link).toBeTruthy();
    await browser.drive(link![1]!, 'https://never.example', { login: '', password: '' });
    const third = await signIn(browser, 'jdoe', 's3');
    expect(third.sawLogin).toBe(true);
  });

  it('links by (organisation, issuer, sub): the same subject gets the same user; an e-mail of a local user links nothing', async () => {
    const first = await exchange((await signIn(new Browser(), 'sam')).params.get('code')!);
    const second = await exchange((await signIn(new Browser(), 'sam')).params.get('code')!);
    expect(first.status).toBe(200);
    expect(second.body.User.ID).toBe(first.body.User.ID);
    // The provider says this user's e-mail is alice@acme.example, Alice's address at Assent.
    const mallory = await exchange((await signIn(new Browser(), 'alice')).params.get('code')!);
    expect(mallory.status).toBe(200);
    expect(mallory.body.User.ID).not.toBe(t.ids.organisations.acme!.users['alice@acme.example']);
  });

  it('replayed Assent code: the second exchange is refused (single use)', async () => {
    const code = (await signIn(new Browser(), 'replay')).params.get('code')!;
    expect((await exchange(code)).status).toBe(200);
    const again = await exchange(code);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      error: 'invalid_grant',
      error_description: 'Invalid, expired or already used code',
    });
  });

  it('redirect_uri mismatch: an exchange with another redirect_uri is refused, and the code is spent', async () => {
    const code = (await signIn(new Browser(), 'mismatch')).params.get('code')!;
    const wrong = await exchange(code, OTHER_APP);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({
      error: 'invalid_grant',
      error_description: 'redirect_uri does not match the sign-in',
    });
    expect((await exchange(code)).status).toBe(400);
  });

  it('redirect_uri mismatch: authorize with an unregistered redirect_uri is a 400, never a redirect', async () => {
    const res = await new Browser().request(authorize('s', 'https://evil.example/cb'));
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(JSON.parse(res.body).Message).toBe('redirect_uri is not registered for this organisation');
  });

  it('an Assent code expires within 60 s', async () => {
    const code = (await signIn(new Browser(), 'late')).params.get('code')!;
    const rows = rowsOf<{ s: number }>(
      await t.store.db.execute(sql`SELECT extract(epoch FROM expires_at - now())::float AS s FROM federation_codes`),
    );
    expect(Math.max(...rows.map((r) => r.s))).toBeLessThanOrEqual(60);
    await t.store.db.execute(sql`UPDATE federation_codes SET expires_at = now() - interval '1 second'`);
    expect((await exchange(code)).status).toBe(400);
  });

  it('a callback with an unknown or reused state is a 400', async () => {
    const res = await call(`${idp()}/callback?code=abc&state=not-a-pending-state`);
    expect(res.status).toBe(400);
    expect((await call(`${idp()}/callback?code=abc`)).status).toBe(400);
  });

  it('a provider error at the callback goes back to the app with error and its state', async () => {
    const start = await new Browser().request(authorize('denied-state'));
    const state = new URL(start.location!).searchParams.get('state')!;
    const res = await new Browser().request(
      `${idp()}/callback?error=access_denied&error_description=no&state=${state}`,
    );
    expect(res.status).toBe(303);
    const back = new URL(res.location!);
    expect(back.origin + back.pathname).toBe(APP);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The identity provider answered access_denied',
      state: 'denied-state',
    });
  });
});
