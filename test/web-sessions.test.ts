/**
 * The privacy dashboard's sessions and defences over HTTP (docs/web.md "Sessions", "CSRF and other
 * browser threats"); the browser itself is test/web-dashboard-*.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { ALICE, BOB } from './helpers/session.js';
import { type WebClient, webClient, webSignIn } from './helpers/web-client.js';

let t: TestAssent;
beforeAll(async () => {
  t = await startAssent();
});
afterAll(() => t?.stop());

/** The first attribute form of the consents page: its path. */
async function firstAttribute(client: WebClient): Promise<string> {
  const html = await (await client.get('/dashboard/consents')).text();
  return /hx-post="([^"]+)"/.exec(html)![1]!;
}

/** The individual's value of the attribute at `path`, through the JSON API. */
async function apiValue(user: { username: string; password: string }, path: string) {
  const [, , , orgId, purposeId, attributeId] = path.split('/');
  const { User, Token } = await login(t, user.username, user.password);
  const res = await call(`${t.base}/organizations/${orgId}/users/${User.ID}/consents`, { token: Token.access_token });
  const purpose = res.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === purposeId);
  return purpose.Consents.find((a: any) => a.ID === attributeId).Status as { Consent: string; Days: number };
}

describe('web sessions', () => {
  it('a signed-out browser is sent to the sign-in page, then back to where it was going', async () => {
    const client = webClient(t);
    const res = await client.get('/dashboard/history');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fhistory');
    const signIn = await client.post('/dashboard/sign-in', { ...ALICE, next: '/dashboard/history' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/dashboard/history');
    expect((await client.get('/dashboard/history')).status).toBe(200);
  });

  it('the session cookie is HttpOnly, SameSite=Lax, Path=/, 256 random bits; a wrong password sets none and answers 401', async () => {
    const client = webClient(t);
    const bad = await client.post('/dashboard/sign-in', { username: ALICE.username, password: 'wrong' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('set-cookie')).toBeNull();
    expect(await bad.text()).toContain('Wrong username or password.');
    const res = await client.post('/dashboard/sign-in', ALICE);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^assent-web=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
  });

  it('open redirect: next pointing elsewhere lands on the dashboard', async () => {
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', '/v1/user']) {
      const res = await webClient(t).post('/dashboard/sign-in', { ...ALICE, next });
      expect(res.headers.get('location')).toBe('/dashboard');
    }
  });

  it('sign-out ends the session at once: the old cookie is sent to sign in again', async () => {
    const client = await webSignIn(t, ALICE);
    const kept = client.cookie;
    const out = await client.post('/dashboard/sign-out', { _csrf: await client.csrf() });
    expect(out.status).toBe(303);
    const old = await fetch(`${t.url}/dashboard/consents`, { redirect: 'manual', headers: { cookie: kept } });
    expect(old.status).toBe(303);
  });

  it('a password change through the API ends every web session of the user at once', async () => {
    const client = await webSignIn(t, BOB);
    expect((await client.get('/dashboard/consents')).status).toBe(200);
    const { Token } = await login(t, BOB.username, BOB.password);
    const changed = await call(`${t.base}/user/password/reset`, {
      token: Token.access_token,
      body: { password: 'bob-new-passphrase-2026', currentpassword: BOB.password },
    });
    expect(changed.status).toBeLessThan(300);
    expect((await client.get('/dashboard/consents')).status).toBe(303);
    await call(`${t.base}/user/password/reset`, {
      token: Token.access_token,
      body: { password: BOB.password, currentpassword: 'bob-new-passphrase-2026' },
    });
  });
});

describe('web CSRF and bad input', () => {
  it('CSRF: a post without the session’s token is refused with 403 and changes nothing', async () => {
    const client = await webSignIn(t, ALICE);
    const path = await firstAttribute(client);
    const before = await apiValue(ALICE, path);
    const res = await client.post(path, { consented: before.Consent === 'Allow' ? 'Disallow' : 'Allow' });
    expect(res.status).toBe(403);
    const wrong = await client.post(path, { consented: 'Allow', _csrf: 'x'.repeat(43) });
    expect(wrong.status).toBe(403);
    expect(await apiValue(ALICE, path)).toEqual(before);
  });

  it('CSRF: a post from another origin is refused with 403, the sign-in form included (login CSRF)', async () => {
    const client = await webSignIn(t, ALICE);
    const path = await firstAttribute(client);
    const before = await apiValue(ALICE, path);
    const token = await client.csrf();
    const res = await client.post(path, { consented: 'Allow', _csrf: token }, { origin: 'http://evil.example' });
    expect(res.status).toBe(403);
    const fetchMeta = await client.post(
      path,
      { consented: 'Allow', _csrf: token },
      { origin: null, headers: { 'sec-fetch-site': 'cross-site' } },
    );
    expect(fetchMeta.status).toBe(403);
    expect(await apiValue(ALICE, path)).toEqual(before);
    const login = await webClient(t).post('/dashboard/sign-in', ALICE, { origin: 'http://evil.example' });
    expect(login.status).toBe(403);
    expect(login.headers.get('set-cookie')).toBeNull();
  });

  it('a change with the token is made, recorded with the dashboard as its channel, and a bad value is a 400 that changes nothing', async () => {
    const client = await webSignIn(t, ALICE);
    const path = await firstAttribute(client);
    const _csrf = await client.csrf();
    const ok = await client.post(path, { consented: 'AskMe', days: '30', _csrf });
    expect(ok.status).toBe(303);
    expect(await apiValue(ALICE, path)).toMatchObject({ Consent: 'AskMe', Days: 30 });
    const bad = await client.post(path, { consented: 'Maybe', _csrf });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('text/html');
    const tooMany = await client.post(path, { consented: 'Allow', days: '99999', _csrf });
    expect(tooMany.status).toBe(400);
    expect(await apiValue(ALICE, path)).toMatchObject({ Consent: 'AskMe', Days: 30 });
    const history = await (await client.get('/dashboard/history')).text();
    expect(history).toContain('POST /dashboard/consents/:organizationID/:purposeID/:attributeID');
    expect(history).toContain('Verified:');
  });

  it('an organisation the individual is not subscribed to is a 404 page', async () => {
    const client = await webSignIn(t, ALICE);
    const path = (await firstAttribute(client)).split('/');
    path[3] = '01234567-89ab-7def-8123-456789abcdef';
    const res = await client.post(path.join('/'), { consented: 'Allow', _csrf: await client.csrf() });
    expect(res.status).toBe(404);
  });

  it('the JSON API still refuses form bodies (415): only the web front ends read them', async () => {
    const { Token } = await login(t, ALICE.username, ALICE.password);
    const res = await fetch(`${t.base}/user`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${Token.access_token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Mallory',
    });
    expect(res.status).toBe(415);
  });

  it('every page carries the CSP, no framing, no caching and no referrer to other origins; assets are hashed and immutable', async () => {
    const page = await webClient(t).get('/dashboard/sign-in');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    const html = await page.text();
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    const asset = /src="(\/web\/assets\/htmx\.[^"]+\.js)"/.exec(html)![1]!;
    const res = await webClient(t).get(asset);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await webClient(t).get('/web/assets/htmx.nope.js')).status).toBe(404);
  });
});
