/**
 * The privacy dashboard's sign-in through the organisation's external OpenID provider (docs/web.md
 * "Sign-in"), over HTTP against a real oidc-provider on 127.0.0.1: the organisation's sign-in page
 * offers it; the broker's flow returns to the dashboard's own callback (not a registered app
 * redirect URI) and opens a web session for the linked individual; the flow is bound to the
 * browser that began it, its code is single use, and no token pair is minted.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { Browser, configureOrgProvider, type TestProvider } from './helpers/oidc.js';

let t: TestAssent;
let op: TestProvider;
let orgId: string;
const CALLBACK = () => `${t.url}/dashboard/sign-in/idp/callback`;
const start = (next = '/dashboard/data') =>
  `${t.url}/dashboard/sign-in/idp?organisation=${orgId}&next=${encodeURIComponent(next)}`;

beforeAll(async () => {
  t = await startAssent({ ASSENT_FEDERATION_ALLOW_HTTP_HOSTS: '127.0.0.1' });
  orgId = t.ids.organisations.acme!.id;
  const owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  const idp = `${t.base}/organizations/${orgId}/idp/open-id`;
  const configured = await configureOrgProvider(
    t,
    orgId,
    owner,
    `${t.url}/v1/organizations/${orgId}/idp/open-id/callback`,
  );
  op = configured.op;
  const created = configured.created;
  expect(created.status).toBe(201);
  // No app redirect URI is registered: the dashboard's callback is Assent's own page.
  expect((await call(`${idp}/app-redirect-uris`, { token: owner })).body).toEqual({ RedirectURIs: [] });
});
afterAll(async () => {
  await op?.close();
  await t?.stop();
});

/** Signs in at the provider as `who`; returns the dashboard callback URL the broker sent the browser to (not fetched). */
async function toCallback(browser: Browser, who: string, next?: string): Promise<string> {
  const result = await browser.drive(start(next), CALLBACK(), { login: who, password: 'whatever' });
  expect(result.location, String(result.last?.body).slice(0, 300)).toBeTruthy();
  return result.location!;
}

/** The dashboard's data page as `browser` sees it: its status and HTML. */
async function dataPage(browser: Browser) {
  const res = await browser.request(`${t.url}/dashboard/data`);
  return { status: res.status, body: res.body };
}

const sessionCookie = (b: Browser) => b.cookies.get('assent-web');

describe('sign-in through the organisation’s external OpenID provider', () => {
  it('the organisation’s sign-in page offers its provider; an unknown or malformed organisation gets the plain page', async () => {
    const page = await fetch(`${t.url}/dashboard/sign-in?organisation=${orgId}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`Sign in with ${new URL(op.issuer).host}`);
    expect(html).toContain(`href="/dashboard/sign-in/idp?organisation=${orgId}&amp;next=%2Fdashboard"`);
    expect(html).not.toContain('sign-in-wallet');
    for (const other of [randomUUID(), 'not-an-id']) {
      const plain = await fetch(`${t.url}/dashboard/sign-in?organisation=${other}`);
      expect(plain.status).toBe(200);
      const body = await plain.text();
      expect(body).toContain('name="password"');
      // Neither the provider's way nor the wallet's (the passkey button is every page's).
      expect(body).not.toContain('id="sign-in-idp"');
      expect(body).not.toContain('id="sign-in-wallet"');
    }
    // A password error on the organisation's page shows its provider again.
    const wrong = await fetch(`${t.url}/dashboard/sign-in`, {
      method: 'POST',
      headers: { origin: t.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'nobody', password: 'x', organisation: orgId }).toString(),
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain(`Sign in with ${new URL(op.issuer).host}`);
  });

  it('PKCE, state and nonce at the provider; back at the dashboard signed in as the linked individual, on `next`', async () => {
    const browser = new Browser();
    const callback = await toCallback(browser, 'dana', '/dashboard/history');
    const toProvider = new URL(browser.visited.find((u) => u.startsWith(`${op.issuer}/auth?`))!);
    expect(toProvider.searchParams.get('code_challenge_method')).toBe('S256');
    expect(toProvider.searchParams.get('nonce')).toBeTruthy();
    expect(new URL(callback).searchParams.get('code')).toMatch(/^asc_/);
    const back = await browser.request(callback);
    expect(back.status).toBe(303);
    expect(back.location).toBe(`${t.url}/dashboard/history`);
    expect(sessionCookie(browser)).toBeTruthy();
    // The binding cookie is spent.
    expect(browser.cookies.has('assent-web-idp')).toBe(false);
    const consents = await browser.request(`${t.url}/dashboard/consents`);
    expect(consents.status).toBe(200);
    const data = await dataPage(browser);
    expect(data.status).toBe(200);
    expect(data.body).toContain('dana@idp.example');
    // A second sign-in of the same subject is the same individual (linked by issuer and sub).
    const again = new Browser();
    await again.request(await toCallback(again, 'dana'));
    const ids = rowsOf<{ user_id: string }>(
      await t.store.db.execute(sql`SELECT user_id FROM federated_identities WHERE subject = 'dana'`),
    );
    expect(ids).toHaveLength(1);
    // No token pair nobody holds: no federation session (ID token kept for an API logout) was opened.
    expect(rowsOf(await t.store.db.execute(sql`SELECT 1 FROM federation_sessions`))).toHaveLength(0);
  });

  it('login CSRF: the callback in a browser without the binding cookie opens no session; the right browser still can', async () => {
    const victim = new Browser();
    const attacker = new Browser();
    const callback = await toCallback(attacker, 'mallory');
    const res = await victim.request(callback);
    expect(res.status).toBe(400);
    expect(res.body).toContain('started in another browser');
    expect(sessionCookie(victim)).toBeUndefined();
    expect((await dataPage(victim)).status).toBe(303);
    // Nor in a browser that began a sign-in of its own: its binding does not hash to this `state`.
    await victim.request(start());
    expect(victim.cookies.get('assent-web-idp')).toBeTruthy();
    expect((await victim.request(callback)).status).toBe(400);
    expect(sessionCookie(victim)).toBeUndefined();
    // The refused attempt did not use up the code: the browser that began the flow finishes it.
    expect((await attacker.request(callback)).status).toBe(303);
    expect((await dataPage(attacker)).body).toContain('mallory@idp.example');
  });

  it('code replay: the callback a second time, even with the binding cookie restored, opens no session', async () => {
    const browser = new Browser();
    const callback = await toCallback(browser, 'erin');
    const binding = browser.cookies.get('assent-web-idp')!;
    expect((await browser.request(callback)).status).toBe(303);
    const replayer = new Browser();
    replayer.cookies.set('assent-web-idp', binding);
    const replay = await replayer.request(callback);
    expect(replay.status).toBe(400);
    expect(sessionCookie(replayer)).toBeUndefined();
  });

  it('a dashboard code cannot be exchanged for a token pair at the API', async () => {
    const browser = new Browser();
    const code = new URL(await toCallback(browser, 'frank')).searchParams.get('code')!;
    const url = `${t.base}/organizations/${orgId}/idp/open-id/exchange?redirect_uri=${encodeURIComponent(CALLBACK())}&code=${code}`;
    const res = await call(url, { method: 'POST' });
    expect(res.status).toBe(400);
    expect(res.body.Token).toBeUndefined();
  });

  it('open redirect: an off-site `next` ends on the dashboard', async () => {
    const browser = new Browser();
    const back = await browser.request(await toCallback(browser, 'gina', 'https://evil.example/x'));
    expect(back.status).toBe(303);
    expect(back.location).toBe(`${t.url}/dashboard`);
  });

  it('the provider’s refusal, or a forged state, shows the sign-in page with a message and no session', async () => {
    const browser = new Browser();
    await browser.request(start());
    const forged = await browser.request(`${CALLBACK()}?error=access_denied&state=forged`);
    expect(forged.status).toBe(400);
    expect(sessionCookie(browser)).toBeUndefined();
    // An organisation without a provider: 404 page, nothing started.
    const none = await browser.request(`${t.url}/dashboard/sign-in/idp?organisation=${randomUUID()}`);
    expect(none.status).toBe(404);
  });

  it('sign-out ends the session at once', async () => {
    const browser = new Browser();
    await browser.request(await toCallback(browser, 'hank'));
    const csrf = /name="_csrf" value="([^"]+)"/.exec((await dataPage(browser)).body)![1]!;
    const out = await browser.request(`${t.url}/dashboard/sign-out`, {
      form: { _csrf: csrf },
      headers: { origin: t.url },
    });
    expect(out.status).toBe(303);
    expect((await dataPage(browser)).status).toBe(303);
  });
});
