/**
 * The privacy dashboard's wallet sign-in (docs/web.md "Sign-in"; docs/api.md "Authorization endpoint"), over HTTP with the test
 * wallet and the real verifier: the organisation's sign-in page offers it; the page shows the QR
 * code and the deep link, its status area polls; cross-device (poll → complete) and same-device
 * (the wallet's redirect with `response_code` back to the dashboard) both end signed in; only the
 * browser holding the transaction's cookie completes; same-device-only organisations are honoured.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { Browser } from './helpers/oidc.js';
import { decodeSvgQr, type ProviderWorld, providerWorld, type TestOrg, WALLET_CLAIMS } from './helpers/provider.js';

let s: TestAssent;
let w: ProviderWorld;

beforeAll(async () => {
  s = await startAssent();
  w = await providerWorld(s);
}, 60_000);
afterAll(() => s?.stop());

const page = (org: TestOrg, next = '/dashboard/data') =>
  `${s.url}/dashboard/sign-in/wallet?organisation=${org.id}&next=${encodeURIComponent(next)}`;
const statusOf = (org: TestOrg) =>
  `${s.url}/dashboard/sign-in/wallet/status?organisation=${org.id}&next=%2Fdashboard%2Fdata`;
const COMPLETE = () => `${s.url}/dashboard/sign-in/wallet/complete`;
const signedIn = async (b: Browser) => (await b.request(`${s.url}/dashboard/data`)).status === 200;

/** Opens the wallet page in a browser; the wallet answers it. */
async function begin(org: TestOrg, browser = new Browser()) {
  const res = await browser.request(page(org));
  expect(res.status, res.body.slice(0, 300)).toBe(200);
  return { browser, html: res.body };
}

describe('wallet sign-in to the dashboard', () => {
  it('the organisation’s sign-in page offers the wallet; the wallet page shows the QR code and the link of one request', async () => {
    const signIn = await (await fetch(`${s.url}/dashboard/sign-in?organisation=${w.acme.id}`)).text();
    expect(signIn).toContain('Sign in with your wallet');
    expect(signIn).toContain(`href="/dashboard/sign-in/wallet?organisation=${w.acme.id}&amp;next=%2Fdashboard"`);
    const { html, browser } = await begin(w.acme);
    const deepLink = /id="open-wallet" href="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    expect(deepLink).toMatch(/^openid4vp:\/\//);
    expect(decodeSvgQr(html)).toBe(deepLink);
    expect(html).toContain('hx-trigger="every 2s"');
    expect(html).not.toMatch(/<script(?![^>]*src=)/);
    expect(browser.cookies.get('assent-web-wallet')).toBeTruthy();
  });

  it('cross-device: the status area polls, the wallet answers, the page completes and the individual is signed in', async () => {
    const { browser, html } = await begin(w.acme);
    const pending = await browser.request(statusOf(w.acme));
    expect(pending.body).toContain('hx-trigger="every 2s"');
    const answer = await w.present(w.acme, html);
    expect(answer.status).toBe(200);
    const verified = await browser.request(statusOf(w.acme));
    expect(verified.body).not.toContain('every 2s');
    expect(verified.body).toContain('hx-post="/dashboard/sign-in/wallet/complete"');
    const done = await browser.request(COMPLETE(), { form: { next: '/dashboard/data' }, headers: { origin: s.url } });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${s.url}/dashboard/data`);
    const data = await browser.request(`${s.url}/dashboard/data`);
    expect(data.status).toBe(200);
    expect(data.body).toContain(WALLET_CLAIMS.email);
    expect((await browser.request(`${s.url}/dashboard/consents`)).status).toBe(200);
    // Single use: completing again opens nothing new.
    const again = await browser.request(COMPLETE(), { form: { next: '/dashboard/data' }, headers: { origin: s.url } });
    expect(again.status).toBe(409);
  });

  it('same-device: the wallet’s redirect returns to the dashboard with its response_code and signs the browser in', async () => {
    const { browser, html } = await begin(w.acme);
    const answer = await w.present(w.acme, html);
    const redirect = answer.body.redirect_uri as string;
    expect(redirect.startsWith(`${s.url}/dashboard/sign-in/wallet/return/${w.acme.id}/`)).toBe(true);
    expect(new URL(redirect).searchParams.get('response_code')).toBeTruthy();
    const back = await browser.request(redirect);
    expect(back.status).toBe(303);
    expect(back.location).toBe(`${s.url}/dashboard/data`);
    expect(await signedIn(browser)).toBe(true);
  });

  it('another cookie jar can neither complete nor take the same-device return; the right browser still can', async () => {
    const { browser, html } = await begin(w.acme);
    const answer = await w.present(w.acme, html);
    const other = new Browser();
    const complete = await other.request(COMPLETE(), { form: { next: '/dashboard/data' }, headers: { origin: s.url } });
    expect(complete.status).toBe(409);
    const returned = await other.request(answer.body.redirect_uri as string);
    expect(returned.status).toBe(200);
    expect(returned.body).toContain('Continue on your other device');
    expect(await signedIn(other)).toBe(false);
    // Nor a browser with a transaction of its own at the same organisation: its binding is not this one's.
    await begin(w.acme, other);
    const own = await other.request(answer.body.redirect_uri as string);
    expect(own.body).toContain('Continue on your other device');
    expect(await signedIn(other)).toBe(false);
    // A forged binding for the same organisation does not match the transaction either.
    other.cookies.set('assent-web-wallet', `${w.acme.id}.${'A'.repeat(43)}`);
    expect(
      (await other.request(COMPLETE(), { form: { next: '/dashboard/data' }, headers: { origin: s.url } })).status,
    ).toBe(409);
    expect(await signedIn(other)).toBe(false);
    const done = await browser.request(COMPLETE(), { form: { next: '/dashboard/data' }, headers: { origin: s.url } });
    expect(done.status).toBe(303);
    expect(await signedIn(browser)).toBe(true);
  });

  it('a completion posted from another site is refused (CSRF)', async () => {
    const { browser, html } = await begin(w.acme);
    await w.present(w.acme, html);
    const res = await browser.request(COMPLETE(), {
      form: { next: '/dashboard/data' },
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(await signedIn(browser)).toBe(false);
  });

  it('a wallet that declines: the status says so and stops polling; nothing to complete', async () => {
    const { browser, html } = await begin(w.acme);
    await w.present(w.acme, html, { error: 'access_denied' });
    const status = await browser.request(statusOf(w.acme));
    expect(status.body).toContain('declined');
    expect(status.body).not.toContain('every 2s');
    expect(
      (await browser.request(COMPLETE(), { form: { next: '/dashboard/data' }, headers: { origin: s.url } })).status,
    ).toBe(409);
  });

  it('same-device-only organisation: no QR code, no cross-device completion; the wallet’s redirect in this browser signs in', async () => {
    const put = await call(`${s.base}/organizations/${w.beta.id}/wallet`, {
      method: 'PUT',
      token: w.beta.ownerToken,
      body: { ...w.beta.walletSettings, generateVerifierKey: false, sameDeviceOnly: true },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const { browser, html } = await begin(w.beta);
    expect(decodeSvgQr(html)).toBeNull();
    const answer = await w.present(w.beta, html);
    const status = await browser.request(statusOf(w.beta));
    expect(status.body).toContain('continues in the browser your wallet opened');
    expect(status.body).not.toContain('hx-post');
    expect(
      (await browser.request(COMPLETE(), { form: { next: '/dashboard/data' }, headers: { origin: s.url } })).status,
    ).toBe(409);
    const elsewhere = await new Browser().request(answer.body.redirect_uri as string);
    expect(elsewhere.body).toContain('Start again in this browser');
    const back = await browser.request(answer.body.redirect_uri as string);
    expect(back.status).toBe(303);
    expect(await signedIn(browser)).toBe(true);
  });

  it('sign-out ends the session at once', async () => {
    const { browser, html } = await begin(w.acme);
    await browser.request((await w.present(w.acme, html)).body.redirect_uri as string);
    const data = await browser.request(`${s.url}/dashboard/data`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(data.body)![1]!;
    const out = await browser.request(`${s.url}/dashboard/sign-out`, {
      form: { _csrf: csrf },
      headers: { origin: s.url },
    });
    expect(out.status).toBe(303);
    expect(await signedIn(browser)).toBe(false);
  });

  it('an organisation without wallet settings: the page is a 404 and starts nothing', async () => {
    const res = await new Browser().request(`${s.url}/dashboard/sign-in/wallet?organisation=${randomUUID()}`);
    expect(res.status).toBe(404);
  });
});
