/**
 * The wallet sign-in page and its interaction endpoints (docs/wallet.md "The sign-in page",
 * "Headers"), with the test wallet of test/helpers/wallet/ answering the page's request and the
 * real verifier behind the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import {
  authParams,
  authUrl,
  Browser,
  decodeSvgQr,
  expectPageHeaders,
  fetchWithJar,
  followToRp,
  openWalletPage,
  type ProviderWorld,
  parsePage,
  providerWorld,
  responseCodeOf,
} from './helpers/provider.js';

let s: TestAssent;
let w: ProviderWorld;

beforeAll(async () => {
  s = await startAssent();
  w = await providerWorld(s);
}, 60_000);

/** The request_uri of a page's deep link: 200 while its transaction is the interaction's current one. */
const requestUriOf = (html: string) => new URL(parsePage(html).deepLink!).searchParams.get('request_uri')!;
afterAll(() => s?.stop());

describe('the wallet page', () => {
  it("shows the organisation's and the relying party's names, the QR code as inline SVG and the deep link", async () => {
    const { res } = await openWalletPage(new Browser(), w.acme, authParams());
    expect(res.status).toBe(200);
    expectPageHeaders(res.headers);
    const page = parsePage(res.body);
    expect(res.body).toContain('Acme');
    expect(res.body).toContain('Web shop');
    expect(res.body).toMatch(/<svg[^>]*viewBox=/);
    expect(page.deepLink).toMatch(/^openid4vp:\/\/\?client_id=/);
    expect(page.openHref).toBe(page.deepLink);
    expect(decodeSvgQr(res.body)).toBe(page.deepLink);
    expect(Date.parse(page.expiresAt!)).toBeGreaterThan(Date.now());
    expect(page.statusUrl).toMatch(/\/interaction\/[^/]+\/status$/);
    expect(page.refreshAction).toMatch(/\/interaction\/[^/]+\/refresh$/);
  });

  it('has no inline script: one script, from a same-origin file with a content hash in its name, cached for a year', async () => {
    const { res } = await openWalletPage(new Browser(), w.acme, authParams());
    const scripts = [...res.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]![2]).toBe('');
    const src = /src="([^"]+)"/.exec(scripts[0]![1]!)![1]!;
    expect(src).toMatch(/^\/assets\/wallet-sign-in\.[A-Za-z0-9_-]{16}\.js$/);
    const css = /<link rel="stylesheet" href="([^"]+)"/.exec(res.body)![1]!;
    for (const path of [src, css]) {
      const asset = await fetch(`${s.url}${path}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await asset.text()).not.toBe('');
    }
    expect((await fetch(`${s.url}/assets/wallet-sign-in.0000000000000000.js`)).status).toBe(404);
    // The script parses, and reads what the page puts in its data attributes.
    const script = await (await fetch(`${s.url}${src}`)).text();
    expect(() => new Function(script)).not.toThrow();
    expect(script).toContain("getAttribute('data-status-url')");
    expect(script).toContain("getAttribute('data-expires-at')");
  });

  it("escapes the relying party's name", async () => {
    const { res } = await openWalletPage(
      new Browser(),
      w.acme,
      authParams({
        client_id: 'app',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }),
    );
    expect(res.body).toContain('Mobile &lt;app&gt;');
    expect(res.body).not.toContain('Mobile <app>');
  });

  it('without the interaction cookie the page is an error page, and no transaction starts', async () => {
    const { pageUrl, res: page } = await openWalletPage(new Browser(), w.acme, authParams());
    const res = await fetchWithJar(new Browser(), pageUrl);
    expect(res.status).toBe(400);
    expectPageHeaders(res.headers);
    // A new transaction would have replaced the page's: its request object still answers.
    expect((await fetch(requestUriOf(page.body))).status).toBe(200);
  });

  it('an organisation without wallet settings gets an error page (404) instead of a QR code', async () => {
    const settings = `${s.url}/v1/organizations/${w.beta.id}/wallet`;
    expect((await call(settings, { method: 'DELETE', token: w.beta.ownerToken })).status).toBe(204);
    try {
      const { res } = await openWalletPage(new Browser(), w.beta, authParams());
      expect(res.status).toBe(404);
      expectPageHeaders(res.headers);
      expect(res.body).toContain('Wallet sign-in unavailable');
      expect(res.body).not.toContain('<svg');
    } finally {
      const put = await call(settings, { method: 'PUT', token: w.beta.ownerToken, body: w.beta.walletSettings });
      expect(put.status).toBe(200);
    }
  });

  it('"new code" starts a new transaction: 303 to the page, which shows another request', async () => {
    const browser = new Browser();
    const { pageUrl, res } = await openWalletPage(browser, w.acme, authParams());
    const refreshed = await fetchWithJar(browser, `${s.url}${parsePage(res.body).refreshAction}`, { method: 'POST' });
    expect(refreshed.status).toBe(303);
    expect(refreshed.location).toBe(pageUrl);
    const again = await fetchWithJar(browser, pageUrl);
    expect(again.status).toBe(200);
    expect(parsePage(again.body).deepLink).not.toBe(parsePage(res.body).deepLink);
    // The first code stopped working: its transaction is gone.
    expect((await fetch(requestUriOf(res.body))).status).toBe(404);
    expect((await w.present(w.acme, again.body)).status).toBe(200);
  });
});

describe('N24: status and complete need the interaction cookie and answer no personal data', () => {
  it('status: 400 JSON without the cookie, {status} with it', async () => {
    const browser = new Browser();
    const { res } = await openWalletPage(browser, w.acme, authParams());
    const statusUrl = `${s.url}${parsePage(res.body).statusUrl}`;
    const anonymous = await fetchWithJar(new Browser(), statusUrl);
    expect(anonymous.status).toBe(400);
    expect(JSON.parse(anonymous.body)).toMatchObject({ Code: 400 });
    const pending = await fetchWithJar(browser, statusUrl);
    expect(pending.status).toBe(200);
    expect(pending.headers.get('cache-control')).toBe('no-store');
    expect(JSON.parse(pending.body)).toEqual({ status: 'pending' });
    expect((await w.present(w.acme, res.body)).status).toBe(200);
    const verified = JSON.parse((await fetchWithJar(browser, statusUrl)).body);
    expect(verified).toEqual({ status: 'verified', next: expect.stringMatching(/\/interaction\/[^/]+\/complete$/) });
    expect(JSON.stringify(verified)).not.toContain('alice');
    expect((await fetchWithJar(new Browser(), statusUrl)).status).toBe(400);
  });

  it('N23: complete from another cookie jar while the transaction is verified: refused, no code; the right browser then gets the code', async () => {
    const browser = new Browser();
    const { uid, res: page } = await openWalletPage(browser, w.acme, authParams());
    expect((await w.present(w.acme, page.body)).status).toBe(200);
    const completeUrl = `${w.acme.issuer}/interaction/${uid}/complete`;
    const intruder = await fetchWithJar(new Browser(), completeUrl);
    expect(intruder.status).toBe(400);
    expect(intruder.location).toBeNull();
    expectPageHeaders(intruder.headers);
    const rp = await followToRp(browser, completeUrl);
    expect(rp.searchParams.get('code')).toBeTruthy();
    expect(rp.searchParams.get('state')).toBe('st-123');
    expect(rp.searchParams.get('iss')).toBe(w.acme.issuer);
  });

  it("another interaction's cookie does not open this one", async () => {
    const browser = new Browser();
    const { uid: mine } = await openWalletPage(browser, w.acme, authParams());
    const other = new Browser();
    const { uid: theirs, res: page } = await openWalletPage(other, w.acme, authParams());
    expect((await w.present(w.acme, page.body)).status).toBe(200);
    expect(mine).not.toBe(theirs);
    const res = await fetchWithJar(browser, `${w.acme.issuer}/interaction/${theirs}/complete`);
    expect(res.status).toBe(400);
  });

  it('complete while the wallet has not answered: 409, no code', async () => {
    const browser = new Browser();
    const { uid } = await openWalletPage(browser, w.acme, authParams());
    const res = await fetchWithJar(browser, `${w.acme.issuer}/interaction/${uid}/complete`);
    expect(res.status).toBe(409);
    expect(res.location).toBeNull();
  });
});

describe('ending the interaction', () => {
  it('N18: the wallet declines: the page sees failed, and the relying party gets access_denied with its state', async () => {
    const browser = new Browser();
    const { res } = await openWalletPage(browser, w.acme, authParams());
    const declined = await w.present(w.acme, res.body, { error: 'access_denied' });
    expect(declined).toMatchObject({ status: 200, body: {} });
    const status = JSON.parse((await fetchWithJar(browser, `${s.url}${parsePage(res.body).statusUrl}`)).body);
    expect(status.status).toBe('failed');
    const rp = await followToRp(browser, `${s.url}${status.next}`);
    expect(rp.searchParams.get('error')).toBe('access_denied');
    expect(rp.searchParams.get('state')).toBe('st-123');
    expect(rp.searchParams.get('code')).toBeNull();
  });

  it('a presentation that failed verification: access_denied too', async () => {
    const browser = new Browser();
    const { uid, res } = await openWalletPage(browser, w.acme, authParams());
    const refused = await w.present(w.acme, res.body, { nonce: 'the-relying-partys-nonce' });
    expect(refused.status).toBe(400);
    const status = JSON.parse((await fetchWithJar(browser, `${s.url}${parsePage(res.body).statusUrl}`)).body);
    expect(status.status).toBe('failed');
    const rp = await followToRp(browser, `${w.acme.issuer}/interaction/${uid}/complete`);
    expect(rp.searchParams.get('error')).toBe('access_denied');
  });

  it('cancel: access_denied to the relying party', async () => {
    const browser = new Browser();
    const { res } = await openWalletPage(browser, w.acme, authParams());
    const rp = await followToRp(browser, `${s.url}${parsePage(res.body).abortHref}`);
    expect(rp.searchParams.get('error')).toBe('access_denied');
    expect(rp.searchParams.get('state')).toBe('st-123');
  });

  it('same device: the wallet-return with the response code in the browser holding the cookie issues the code', async () => {
    const browser = new Browser();
    const { uid, res: page } = await openWalletPage(browser, w.acme, authParams());
    const responseCode = responseCodeOf(await w.present(w.acme, page.body));
    const url = `${w.acme.issuer}/interaction/${uid}/wallet-return?response_code=${responseCode}`;
    const rp = await followToRp(browser, url);
    expect(rp.searchParams.get('code')).toBeTruthy();
    expect(rp.searchParams.get('state')).toBe('st-123');
  });

  it('N23: the wallet-return opened in another cookie jar shows "continue on your other device" and issues nothing', async () => {
    const browser = new Browser();
    const { uid, res: page } = await openWalletPage(browser, w.acme, authParams());
    const responseCode = responseCodeOf(await w.present(w.acme, page.body));
    const url = `${w.acme.issuer}/interaction/${uid}/wallet-return?response_code=${responseCode}`;
    const elsewhere = await fetchWithJar(new Browser(), url);
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.location).toBeNull();
    expectPageHeaders(elsewhere.headers);
    expect(elsewhere.body).toContain('Continue on your other device');
    // The desktop page still completes through polling.
    const rp = await followToRp(browser, `${w.acme.issuer}/interaction/${uid}/complete`);
    expect(rp.searchParams.get('code')).toBeTruthy();
  });

  it('N23: a wrong or reused response code is refused', async () => {
    const browser = new Browser();
    const { uid, res: page } = await openWalletPage(browser, w.acme, authParams());
    const responseCode = responseCodeOf(await w.present(w.acme, page.body));
    const base = `${w.acme.issuer}/interaction/${uid}/wallet-return?response_code=`;
    const wrong = await fetchWithJar(browser, `${base}not-the-code`);
    expect(wrong.status).toBe(400);
    expect(wrong.location).toBeNull();
    await followToRp(browser, `${base}${responseCode}`);
    // The interaction has ended and its cookie is gone: the page of the other device, and no redirect.
    const reused = await fetchWithJar(browser, `${base}${responseCode}`);
    expect(reused.location).toBeNull();
    expect(reused.body).toContain('Continue on your other device');
  });

  it('no silent single sign-on: a second /auth in the same browser shows the wallet page again', async () => {
    const browser = new Browser();
    const { uid, res: page } = await openWalletPage(browser, w.acme, authParams());
    expect((await w.present(w.acme, page.body)).status).toBe(200);
    await followToRp(browser, `${w.acme.issuer}/interaction/${uid}/complete`);
    // The session cookie exists, scoped to this organisation's provider (decision 0015 §2, gotcha 3)…
    expect(browser.cookies.has('_session')).toBe(true);
    const again = await browser.request(authUrl(w.acme, authParams({ state: 'second' })));
    // …and still the wallet page comes, not a code.
    expect(again.status).toBe(303);
    expect(again.location).toMatch(/\/interaction\/[^/]+$/);
    const silent = await browser.request(authUrl(w.acme, authParams({ state: 'third', prompt: 'none' })));
    expect(new URL(silent.location!).searchParams.get('error')).toBe('login_required');
  });

  it("the session cookie is scoped to the organisation's provider, so two organisations on one host do not share it", async () => {
    const browser = new Browser();
    const { uid, res: page } = await openWalletPage(browser, w.acme, authParams());
    expect((await w.present(w.acme, page.body)).status).toBe(200);
    const complete = await browser.request(`${w.acme.issuer}/interaction/${uid}/complete`);
    const resume = await fetchWithJar(browser, complete.location!);
    const session = resume.headers.getSetCookie().find((c) => c.startsWith('_session='))!;
    expect(session).toContain(`path=${new URL(w.acme.issuer).pathname};`);
    expect(session.toLowerCase()).toContain('httponly');
    expect(new URL(resume.location!).searchParams.get('code')).toBeTruthy();
  });
});
