/**
 * The privacy dashboard in a real browser (Debian's Chromium through playwright-core; src/web/):
 * an individual changes a consent in place and checks it in the history and in its signed receipt
 * (docs/consents.md "Consent receipts"), downloads their data (GDPR Art. 15, 20), changes their
 * profile and password, deletes their account (GDPR Art. 17), and signs out. Each step is checked
 * through the JSON API as well. Attacks on the pages are in web-dashboard-attacks.test.ts, their
 * accessibility and layout in web-dashboard-pages.test.ts.
 *
 * Without /usr/bin/chromium the file is skipped with a message, unless ASSENT_REQUIRE_BROWSER=1.
 */
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login } from './helpers/assent.js';
import { browserAvailable, browserGate, watchErrors } from './helpers/chromium.js';
import { fetchJwks } from './helpers/jwt.js';
import {
  ALICE,
  COOKIE,
  changeThroughApi,
  consentStatus,
  type Dashboard,
  downloadJson,
  individual,
  sessionCookie,
  signInPage,
  startDashboard,
  submitSignIn,
} from './helpers/web.js';

browserGate('web-dashboard-browser.test.ts');

describe.skipIf(!browserAvailable)('the privacy dashboard in Chromium', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  });
  afterAll(() => d?.stop());

  const loginStatus = async (user: { username: string; password: string }) =>
    (await call(`${d.t.base}/v1.1/users/login`, { body: user })).status;

  it('changes a consent to AskMe for 30 days in place, sees it verified in History, and verifies its signed receipt', async () => {
    // An earlier change through the API, so that History has an older event to come second.
    const { userId, token, consents } = await changeThroughApi(d, ALICE, d.marketing.id, d.marketing.phone, {
      consented: 'Allow',
    });

    const page = await signInPage(d, ALICE);
    const errors = watchErrors(page);
    await page.evaluate(() => {
      (window as any).__sameDocument = true;
    });
    let navigations = 0;
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) navigations++;
    });
    const row = page.locator(`#a-${d.marketing.id}-${d.marketing.email}`);
    await expect.poll(() => row.textContent()).toContain('Now: Disallow');
    await row.getByLabel('AskMe').check();
    await row.getByLabel('Days (0 = no limit)').fill('30');
    const swapped = page.waitForResponse((r) => r.request().method() === 'POST');
    await row.getByRole('button', { name: 'Save' }).click();
    const answer = await swapped;
    expect(answer.status()).toBe(200);
    expect(answer.request().headers()['hx-request']).toBe('true');
    // htmx swapped the row: same document, no navigation, the row says what was saved.
    await expect.poll(() => row.textContent()).toContain('Now: AskMe, 30 of 30 days left · saved');
    expect(await row.getByLabel('AskMe').isChecked()).toBe(true);
    expect(await page.evaluate(() => (window as any).__sameDocument)).toBe(true);
    expect(navigations).toBe(0);
    expect(page.url()).toBe(`${d.t.url}/dashboard/consents`);

    // The JSON API agrees.
    expect(await consentStatus(d, ALICE, d.marketing.id, d.marketing.email)).toMatchObject({
      Consent: 'AskMe',
      Days: 30,
    });

    // History: newest first, verified, the change on top.
    await page.getByRole('link', { name: 'History' }).click();
    await page.waitForURL(`${d.t.url}/dashboard/history`);
    await expect.poll(() => page.locator('p.ok').textContent()).toMatch(/^Verified: each of the 2 changes below/);
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain('Marketing · Email address');
    expect(await rows.nth(0).textContent()).toContain('Disallow → AskMe (30 d)');
    expect(await rows.nth(1).textContent()).toContain('Marketing · Phone number');
    expect(await rows.nth(1).textContent()).toContain('Disallow → Allow');

    // The receipt of that event, downloaded, verified as a third party would: the JWKS over HTTP, alg and typ pinned.
    const events = (await call(`${consents}/history`, { token })).body.Events;
    const link = rows.nth(0).getByRole('link', { name: 'Download' });
    expect(await link.getAttribute('href')).toBe(`/dashboard/history/${d.orgId}/${events[0].ID}/receipt`);
    const { download, json } = await downloadJson(page, () => link.click());
    expect(download.suggestedFilename()).toBe(`consent-receipt-${events[0].ID}.json`);
    const jwks = createLocalJWKSet((await fetchJwks(d.t.url)) as JSONWebKeySet);
    const { payload, protectedHeader } = await jwtVerify(json.JWS, jwks, {
      algorithms: ['ES256'],
      typ: 'consent-receipt+jwt',
      issuer: d.t.config.publicUrl,
    });
    expect(protectedHeader.typ).toBe('consent-receipt+jwt');
    expect(payload).toEqual(json.Receipt);
    expect(json.Receipt).toMatchObject({
      record_id: events[0].ID,
      pii_principal_id: userId,
      pii_information: { pii_attribute_id: d.marketing.email, pii_type: 'Email address' },
      event: { value: 'AskMe', days: 30, validity_duration: 'P30D', previous_value: 'Disallow' },
    });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('downloads "my data": the export holds the profile and the consent change', async () => {
    const page = await signInPage(d, ALICE);
    await page.goto(`${d.t.url}/dashboard/data`);
    const link = page.getByRole('link', { name: 'Download my data' });
    // Shown once GET /dashboard/data/export is wired to AccountService.exportData (docs/identity.md "Data export").
    expect(await link.count(), 'no "Download my data" link: /dashboard/data/export is not wired').toBe(1);
    const { json } = await downloadJson(page, () => link.click());
    expect(json.Profile).toMatchObject({ Email: ALICE.username, Name: 'Alice' });
    const change = json.ConsentHistory.find((e: any) => e.AttributeID === d.marketing.email);
    expect(change).toMatchObject({ OrgID: d.orgId, NewValue: 'AskMe', NewDays: 30 });
    await page.close();
  });

  it('changes the name (shown after saving) and the password (then signs out and in with the new one)', async () => {
    const bea = individual('bea');
    const page = await signInPage(d, bea);
    await page.getByRole('link', { name: 'My data' }).click();
    await page.getByLabel('Name').fill('Beatrice Web');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.waitForURL(`${d.t.url}/dashboard/data?done=profile`);
    expect(await page.getByRole('status').textContent()).toBe('Profile saved.');
    expect(await page.getByLabel('Name').inputValue()).toBe('Beatrice Web');
    expect((await login(d.t, bea.username, bea.password)).User.Name).toBe('Beatrice Web');

    const renewed = { username: bea.username, password: 'bea-renewed-passphrase-2026' };
    await page.getByLabel('Current password').fill(bea.password);
    await page.getByLabel('New password').fill(renewed.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(`${d.t.url}/dashboard/data?done=password`);
    expect(await page.getByRole('status').textContent()).toBe('Password changed.');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${d.t.url}/dashboard/sign-in`);
    await submitSignIn(page, bea);
    expect(await page.getByRole('alert').textContent()).toBe('Wrong username or password.');
    await submitSignIn(page, renewed);
    await page.waitForURL(`${d.t.url}/dashboard/consents`);
    expect(await loginStatus(bea)).toBe(401);
    expect(await loginStatus(renewed)).toBe(200);
    await page.close();
  });

  it('uploads a profile image, sees it under the CSP, and sees a wrong file refused on the page', async () => {
    const page = await signInPage(d, ALICE);
    const errors = watchErrors(page);
    await page.getByRole('link', { name: 'My data' }).click();
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366aa' } })
      .png()
      .toBuffer();
    await page.getByLabel(/JPEG, PNG or WebP/).setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('button', { name: 'Upload image' }).click();
    await page.waitForURL(`${d.t.url}/dashboard/data?done=image`);
    expect(await page.getByRole('status').textContent()).toBe('Profile image saved.');
    const img = page.locator('img[src^="/dashboard/data/image"]');
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(40);

    const text = Buffer.from('not an image');
    await page.getByLabel(/JPEG, PNG or WebP/).setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: text });
    const answer = page.waitForResponse(
      (r) => r.url().endsWith('/dashboard/data/image') && r.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Replace image' }).click();
    expect((await answer).status()).toBe(415);
    expect(await page.getByRole('alert').textContent()).toMatch(/JPEG, PNG or WebP/);
    expect(errors.filter((e) => !/415/.test(e))).toEqual([]);
    await page.close();
  });

  it('deletes the account after the confirmation step (anything but DELETE refused), signed out for good', async () => {
    const cleo = individual('cleo');
    const page = await signInPage(d, cleo);
    await page.goto(`${d.t.url}/dashboard/data`);
    await page.getByRole('link', { name: 'Delete my account…' }).click();
    await page.waitForURL(`${d.t.url}/dashboard/data/delete`);

    await page.getByLabel('Type DELETE to confirm').fill('delete');
    const refused = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    expect((await refused).status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toBe('Type DELETE to confirm.');
    expect(await loginStatus(cleo)).toBe(200);

    await page.getByLabel('Type DELETE to confirm').fill('DELETE');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.waitForURL(`${d.t.url}/dashboard/sign-in`);
    expect(await sessionCookie(d)).toBeUndefined();
    await page.goto(`${d.t.url}/dashboard/consents`);
    expect(page.url()).toBe(`${d.t.url}/dashboard/sign-in?next=%2Fdashboard%2Fconsents`);
    await submitSignIn(page, cleo);
    expect(await page.getByRole('alert').textContent()).toBe('Wrong username or password.');
    expect(await loginStatus(cleo)).toBe(401);
    await page.close();
  });

  it('sign-out ends the session at once: the old cookie gets the sign-in redirect', async () => {
    const dan = individual('dan');
    const page = await signInPage(d, dan);
    const cookie = await sessionCookie(d);
    expect(cookie).toBeTruthy();
    const consentsWith = () =>
      fetch(`${d.t.url}/dashboard/consents`, { headers: { cookie: `${COOKIE}=${cookie}` }, redirect: 'manual' });
    // The control: the cookie, sent from outside the browser, is the session.
    expect((await consentsWith()).status).toBe(200);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${d.t.url}/dashboard/sign-in`);
    expect(await sessionCookie(d)).toBeUndefined();
    const after = await consentsWith();
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fconsents');
    await page.close();
  });
});
