/**
 * The privacy dashboard's wallet sign-in in a real browser (Debian's Chromium through
 * playwright-core; docs/web.md "Sign-in"): from the organisation's sign-in page, the "Sign in with
 * your wallet" button, the QR page, the test wallet answering its request, htmx's poll under the
 * page's CSP, and the automatic completion, ending on "My consents" signed in. The HTTP cases
 * (other cookie jars, same-device, same-device-only) are in web-sign-in-wallet.test.ts.
 *
 * Without /usr/bin/chromium the file is skipped with a message, unless ASSENT_REQUIRE_BROWSER=1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAssent, type TestAssent } from './helpers/assent.js';
import { browserAvailable, browserGate, launchChromium, type TestChromium, watchErrors } from './helpers/chromium.js';
import { type ProviderWorld, providerWorld, WALLET_CLAIMS } from './helpers/provider.js';

browserGate('web-dashboard-sign-in-browser.test.ts');

describe.skipIf(!browserAvailable)('wallet sign-in to the dashboard in Chromium', () => {
  let s: TestAssent;
  let w: ProviderWorld;
  let chrome: TestChromium;
  beforeAll(async () => {
    s = await startAssent();
    w = await providerWorld(s);
    chrome = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await chrome?.close();
    await s?.stop();
  });

  it('the wallet button, the QR page, the wallet answers, the page polls and completes: signed in on My consents', async () => {
    const page = await chrome.context.newPage();
    const errors = watchErrors(page);
    await page.goto(`${s.url}/dashboard/sign-in?organisation=${w.acme.id}`);
    await page.getByRole('link', { name: 'Sign in with your wallet' }).click();
    await page.waitForURL(/\/dashboard\/sign-in\/wallet\?/);
    await expect.poll(() => page.getByRole('img', { name: 'QR code of the wallet request' }).count()).toBe(1);
    const answer = await w.present(w.acme, await page.content());
    expect(answer.status).toBe(200);
    // htmx polls every 2 s, then posts the completion form by itself.
    await page.waitForURL(`${s.url}/dashboard/consents`, { timeout: 15_000 });
    await page.goto(`${s.url}/dashboard/data`);
    expect(await page.content()).toContain(WALLET_CLAIMS.email);
    expect(errors).toEqual([]);
  }, 60_000);
});
