/**
 * Attacks on the privacy dashboard in a real browser (Debian's Chromium through playwright-core):
 * cross-site request forgery from another origin and another site, and without the CSRF token
 * (OWASP CSRF cheat sheet; src/web/shared/guard.ts), framing (clickjacking, ASVS 5.0 V3.4.6), and stored
 * cross-site scripting through an organisation's purpose and data attribute names (ASVS 5.0
 * V1.2.1; src/web/shared/html.ts). Each refusal is checked against the JSON API: nothing changed.
 *
 * Without /usr/bin/chromium the file is skipped with a message, unless ASSENT_REQUIRE_BROWSER=1.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login } from './helpers/assent.js';
import {
  browserAvailable,
  browserGate,
  frameOf,
  framingPage,
  launchChromium,
  type PageServer,
  startPageServer,
} from './helpers/chromium.js';
import {
  ALICE,
  COOKIE,
  consentStatus,
  type Dashboard,
  OWNER,
  sessionCookie,
  signInPage,
  startDashboard,
  submitSignIn,
} from './helpers/web.js';

browserGate('web-dashboard-attacks.test.ts');

/** Shown as text, or run: a script element and an image whose error handler runs. */
const XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';

/** A page that posts a consent change to `?action=` as soon as it loads, with the fields of its query. */
function forgedForm(url: URL): string {
  const field = (name: string) => `<input type="hidden" name="${name}" value="${url.searchParams.get(name) ?? ''}">`;
  return `<!doctype html><title>win a prize</title>
<form method="post" action="${url.searchParams.get('action')}">${field('consented')}${field('days')}${field('_csrf')}</form>
<script>document.forms[0].submit()</script>`;
}

describe.skipIf(!browserAvailable)('attacks on the privacy dashboard in Chromium', () => {
  let d: Dashboard;
  /** Another origin (127.0.0.1, another port; `localhost` on that port is another site): the attacker's pages. */
  let other: PageServer;
  let otherPort: string;
  beforeAll(async () => {
    d = await startDashboard();
    other = await startPageServer((url) =>
      url.pathname === '/forged'
        ? forgedForm(url)
        : url.pathname === '/plain'
          ? '<p id="plain">framed</p>'
          : framingPage(url),
    );
    otherPort = new URL(other.origin).port;
  });
  afterAll(async () => {
    await d?.stop();
    await other?.close();
  });

  const emailPath = () => `/dashboard/consents/${d.orgId}/${d.marketing.id}/${d.marketing.email}`;
  const aliceEmail = () => consentStatus(d, ALICE, d.marketing.id, d.marketing.email);
  const csrfOf = (page: Page) => page.locator('input[name="_csrf"]').first().inputValue();

  it('CSRF: a form auto-posted from another origin or another site is refused (403), even with the CSRF token', async () => {
    const page = await signInPage(d, ALICE);
    const token = await csrfOf(page);
    expect(await aliceEmail()).toMatchObject({ Consent: 'Disallow', Days: 0 });
    const target = `${d.t.url}${emailPath()}`;
    // The attacker holding the session's token is the worst case: only the origin check stands.
    const query = new URLSearchParams({ action: target, consented: 'Allow', days: '0', _csrf: token });
    for (const attacker of [other.origin, `http://localhost:${otherPort}`]) {
      const answered = page.waitForResponse((r) => r.url() === target);
      await page.goto(`${attacker}/forged?${query}`);
      const res = await answered;
      expect(res.request().method()).toBe('POST');
      expect(res.request().headers().origin).toBe(attacker);
      expect(res.status(), attacker).toBe(403);
      await page.waitForURL(target);
      expect(await page.getByRole('alert').textContent()).toBe('This form must be sent from this site');
      expect(await aliceEmail()).toMatchObject({ Consent: 'Disallow', Days: 0 });
    }
    await page.close();
  });

  it('CSRF: the dashboard’s own form posts carry its Origin (Referrer-Policy same-origin, not no-referrer), so the origin check lets them through', async () => {
    await d.chrome.context.clearCookies();
    const page = await d.chrome.context.newPage();
    const shown = await page.goto(`${d.t.url}/dashboard/sign-in`);
    // Under no-referrer a browser sends `Origin: null` with a form post, which the guard refuses.
    expect(shown!.headers()['referrer-policy']).toBe('same-origin');
    const posted = page.waitForRequest((r) => r.method() === 'POST');
    await submitSignIn(page, ALICE);
    expect((await posted).headers().origin).toBe(d.t.url);
    await page.waitForURL(`${d.t.url}/dashboard/consents`);
    await page.close();
  });

  it('CSRF: a same-origin post with the session cookie but without the CSRF token is refused (403)', async () => {
    const page = await signInPage(d, ALICE);
    const token = await csrfOf(page);
    const form = { consented: 'Allow', days: '0' };
    // page.request carries the browser's cookies, and neither Origin nor a token.
    const viaRequest = await page.request.post(`${d.t.url}${emailPath()}`, { form, maxRedirects: 0 });
    expect(viaRequest.status()).toBe(403);
    const post = (headers: Record<string, string>) =>
      page.evaluate(
        async ({ path, body, headers }) =>
          (await fetch(path, { method: 'POST', body: new URLSearchParams(body), headers, redirect: 'manual' })).status,
        { path: emailPath(), body: form, headers },
      );
    expect(await post({})).toBe(403);
    expect(await aliceEmail()).toMatchObject({ Consent: 'Disallow', Days: 0 });
    // The control: the same request from the page with the session's token is the change.
    expect(await post({ 'x-csrf-token': token })).toBe(0); // an opaque redirect: 303 to the consents page
    expect(await aliceEmail()).toMatchObject({ Consent: 'Allow', Days: 0 });
    await page.close();
  });

  it('framing: the sign-in and consents pages do not render in another origin’s iframe (X-Frame-Options DENY, frame-ancestors none)', async () => {
    const control = await frameOf(d.chrome.context, other, `${other.origin}/plain`, '#plain');
    expect(control.shown).toBe(1);
    // Signed out, then signed in: the consents page is framed with the session's cookie (same site).
    await d.chrome.context.clearCookies();
    const signIn = await frameOf(d.chrome.context, other, `${d.t.url}/dashboard/sign-in`, '#username');
    await (await signInPage(d, ALICE)).close();
    const consents = await frameOf(d.chrome.context, other, `${d.t.url}/dashboard/consents`, 'form.attribute');
    for (const framed of [signIn, consents]) {
      expect(framed.url).toMatch(/^chrome-error:/);
      expect(framed.shown).toBe(0);
    }
    for (const [path, cookie] of [
      ['/dashboard/sign-in', ''],
      ['/dashboard/consents', `${COOKIE}=${await sessionCookie(d)}`],
    ] as const) {
      const res = await fetch(`${d.t.url}${path}`, { headers: { cookie }, redirect: 'manual' });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')?.split('; ')).toContain("frame-ancestors 'none'");
    }
  });

  it('XSS: purpose name, description and data attribute name with markup are shown as text, never run', async () => {
    const owner = await login(d.t, OWNER.username, OWNER.password);
    const token = owner.Token.access_token;
    const org = `${d.t.base}/organizations/${d.orgId}`;
    const created = await call(`${org}/purposes`, {
      token,
      body: { purposes: [{ name: XSS, description: XSS, lawfulusage: false }] },
    });
    expect(created.status).toBe(201);
    const purposeId = created.body.Organization.Purposes.find((p: any) => p.Name === XSS).ID as string;
    const templates = await call(`${org}/templates`, {
      token,
      body: { templates: [{ consent: XSS, purposeids: [purposeId] }] },
    });
    expect(templates.status).toBe(201);
    const attributeId = templates.body.Templates[0].ID as string;

    // A browser that ignores the CSP: only the escaping stands between the names and the page.
    const chrome = await launchChromium({ bypassCSP: true });
    try {
      const page = await signInPage(d, ALICE, chrome);
      const untouched = async () => {
        expect(await page.evaluate(() => (window as any).__xss)).toBeUndefined();
        expect(await page.locator('img[src="x"]').count()).toBe(0);
        expect(await page.locator('main script').count()).toBe(0);
      };
      const card = page.locator('section.card', { has: page.locator(`#p-${purposeId}`) });
      expect(await card.locator('h3').textContent()).toBe(XSS);
      expect(await card.locator('p').first().textContent()).toBe(XSS);
      const row = page.locator(`#a-${purposeId}-${attributeId}`);
      expect(await row.locator('.name').textContent()).toContain(XSS);
      await untouched();

      // The row swapped in place by htmx is escaped as well.
      await row.getByLabel('Allow', { exact: true }).check();
      await row.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => row.textContent()).toContain('· saved');
      expect(await row.locator('.name').textContent()).toContain(XSS);
      await untouched();

      await page.goto(`${d.t.url}/dashboard/history`);
      expect(await page.locator('tbody tr').first().textContent()).toContain(`${XSS} · ${XSS}`);
      await untouched();
      // The control: in this browser a script the page gets does run.
      await page.addScriptTag({ content: 'window.__xss = "control"' });
      expect(await page.evaluate(() => (window as any).__xss)).toBe('control');
    } finally {
      await chrome.close();
    }
  });
});
