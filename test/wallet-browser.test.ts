/**
 * Wallet sign-in in a real browser (Debian's Chromium through playwright-core; docs/wallet.md "The
 * sign-in page", "Headers"; docs/api.md "Authorization endpoint"): a stock `openid-client` relying party sends Chromium to the
 * provider's `/auth`; the wallet page's QR code, read from a screenshot, is its "Open in wallet"
 * deep link; the test wallet answers that link from another device (cross-device), with a
 * credential that names a status list; the page's own script polls and lands on the relying party's
 * callback, whose code the relying party redeems. The same browser shows that no other origin can
 * frame the page (clickjacking, ASVS 14.4.7) and that the page raises no console error or CSP
 * violation.
 *
 * Without /usr/bin/chromium the file is skipped with a message, unless ASSENT_REQUIRE_BROWSER=1
 * (CI), where it fails.
 */

import jsQRModule from 'jsqr';
import * as oidc from 'openid-client';
import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import {
  browserAvailable,
  browserGate,
  frameOf,
  framingPage,
  launchChromium,
  type PageServer,
  startPageServer,
  type TestChromium,
  watchErrors,
} from './helpers/chromium.js';
import { authorizationRequest } from './helpers/wallet/flow.js';
import { startWalletHarness, type WalletHarness } from './helpers/wallet/setup.js';

// jsqr's CommonJS build exports the function itself; its typings declare it as the default export.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

const insecure = { execute: [oidc.allowInsecureRequests] };

browserGate('wallet-browser.test.ts');

describe.skipIf(!browserAvailable)('wallet sign-in in Chromium', () => {
  let h: WalletHarness;
  let chrome: TestChromium;
  let rpServer: PageServer;
  let framer: PageServer;
  let rp: oidc.Configuration;
  let issuer: string;
  let callbackUri: string;

  beforeAll(async () => {
    h = await startWalletHarness();
    rpServer = await startPageServer((url) => `<!doctype html><title>RP</title><p id="rp">${url.pathname}</p>`);
    framer = await startPageServer(framingPage);
    callbackUri = `${rpServer.origin}/cb`;
    const client = await call(`${h.t.base}/organizations/${h.orgId}/oidc-clients`, {
      token: h.ownerToken,
      body: { clientId: 'browser-rp', name: 'Browser shop', redirectUris: [callbackUri] },
    });
    expect(client.status).toBe(201);
    issuer = `${h.t.url}/v3/service/extension/oidc/${h.orgId}`;
    rp = await oidc.discovery(
      new URL(issuer),
      'browser-rp',
      undefined,
      oidc.ClientSecretBasic(client.body.clientSecret),
      insecure,
    );
    chrome = await launchChromium();
  });
  afterAll(async () => {
    await chrome?.close();
    await rpServer?.close();
    await framer?.close();
    await h?.stop();
  });

  /** The relying party's authorization URL, with PKCE, state and nonce. */
  const authorization = () => authorizationRequest(rp, callbackUri);

  /** The QR code read from a screenshot of the page, or null. */
  async function qrOfScreenshot(page: Page): Promise<string | null> {
    const png = PNG.sync.read(await page.screenshot({ fullPage: true }));
    return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
  }

  it('signs in cross-device: QR from a screenshot, the wallet answers, the page lands on the RP with a code', async () => {
    const page = await chrome.context.newPage();
    const errors = watchErrors(page);
    const auth = await authorization();

    await page.goto(auth.url.href);
    expect(page.url()).toMatch(new RegExp(`^${issuer}/interaction/[^/]+$`));
    const href = await page.locator('#open-wallet').getAttribute('href');
    expect(href).toMatch(/^openid4vp:\/\/\?client_id=x509_hash%3A/);
    expect(await page.locator('#wallet').getAttribute('data-deeplink')).toBe(href);
    const qr = await qrOfScreenshot(page);
    expect(qr).toBe(href);

    // The wallet is on another device: it gets the deep link from the QR code, not from the browser.
    const uri = h.status.list('browser', h.pki.issuer);
    const credential = await h.credential({ status: { idx: 3, uri } });
    const request = await h.wallet.resolve(qr!);
    const answer = await h.wallet.present(request, credential);
    expect(answer.status).toBe(200);
    expect(h.status.fetches.get('browser')).toBeGreaterThan(0);

    // The page's own script polls the status and navigates; Chromium ends on the RP's page.
    await page.waitForURL((u) => u.href.startsWith(callbackUri), { timeout: 15_000 });
    const landed = new URL(page.url());
    expect(landed.searchParams.get('state')).toBe(auth.state);
    expect(landed.searchParams.get('code')).toBeTruthy();
    expect(landed.searchParams.get('iss')).toBe(issuer);
    expect(await page.locator('#rp').textContent()).toBe('/cb');

    const tokens = await oidc.authorizationCodeGrant(rp, landed, {
      pkceCodeVerifier: auth.verifier,
      expectedState: auth.state,
      expectedNonce: auth.nonce,
    });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      iss: issuer,
      aud: 'browser-rp',
      nonce: auth.nonce,
      email: 'alice.wallet@example.test',
      email_verified: true,
      acr: 'urn:assent:acr:wallet',
      amr: ['pop'],
    });
    expect(claims.sub).toMatch(/^[0-9a-f-]{20,}$/i);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the wallet page has no console error or CSP violation while it polls', async () => {
    const page = await chrome.context.newPage();
    const errors = watchErrors(page);
    const auth = await authorization();
    const polled = page.waitForResponse((r) => r.url().endsWith('/status'), { timeout: 10_000 });
    await page.goto(auth.url.href);
    expect((await polled).status()).toBe(200);
    // The script ran: the countdown shows minutes and seconds.
    await expect.poll(() => page.locator('#countdown').textContent()).toMatch(/^\d+:\d\d$/);
    expect(errors).toEqual([]);
    // The listener would see one: an inline script is refused by the page's CSP and reported.
    await page.setContent(
      '<meta http-equiv="Content-Security-Policy" content="script-src \'none\'"><script>1</script>',
    );
    await expect.poll(() => errors.length).toBeGreaterThan(0);
    await page.close();
  });

  /** What a frame of `src` on another origin shows: the wallet page or the RP's. */
  const frameShows = (src: string) => frameOf(chrome.context, framer, src, '#wallet, #rp');

  it('refuses to be framed by another origin: /auth and the wallet page (clickjacking)', async () => {
    // The control: a frameable page of another origin does show in the frame.
    const control = await frameShows(`${rpServer.origin}/framed`);
    expect(control.shown).toBe(1);

    const viaAuth = await frameShows((await authorization()).url.href);
    expect(viaAuth.url).toMatch(/^chrome-error:/);
    expect(viaAuth.shown).toBe(0);

    // The wallet page itself, with the browser's interaction cookie.
    const page = await chrome.context.newPage();
    await page.goto((await authorization()).url.href);
    const pageUrl = page.url();
    await page.close();
    const direct = await frameShows(pageUrl);
    expect(direct.url).toMatch(/^chrome-error:/);
    expect(direct.shown).toBe(0);
  });
});
