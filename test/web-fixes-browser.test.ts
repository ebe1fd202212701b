/**
 * The web fixes of the console-forms merge in a real browser (Debian's Chromium through
 * playwright-core; docs/web.md), each next to its HTTP-level test: deleting a purpose or a data
 * attribute in the console takes its confirmation box and is audited (catalogue-deletions.test.ts);
 * an unknown path under /console or /dashboard is that front end's HTML 404 page (web-errors.test.ts);
 * AskMe reads the same on the dashboard and the console, and its days are sent with AskMe only
 * (web-consent-wording.test.ts); a `next` carrying CR/LF signs in to the front end's home, with no
 * 500 and no injected header; re-saving unchanged notification transports writes no audit entry
 * (transports-audit.test.ts).
 *
 * Without /usr/bin/chromium the file is skipped with a message, unless ASSENT_REQUIRE_BROWSER=1.
 */
import type { Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login } from './helpers/assent.js';
import { browserAvailable, browserGate, watchErrors } from './helpers/chromium.js';
import {
  ALICE,
  consentStatus,
  type Dashboard,
  OWNER,
  signInPage,
  startDashboard,
  submitSignIn,
} from './helpers/web.js';

browserGate('web-fixes-browser.test.ts');

describe.skipIf(!browserAvailable)('the web fixes in Chromium', () => {
  let d: Dashboard;
  let ownerToken: string;
  let ownerId: string;
  beforeAll(async () => {
    d = await startDashboard();
    const owner = await login(d.t, OWNER.username, OWNER.password);
    ownerToken = owner.Token.access_token;
    ownerId = owner.User.ID;
  });
  afterAll(() => d?.stop());

  const api = (p: string, init: { method?: string; body?: unknown } = {}) =>
    call(`${d.t.base}/organizations/${d.orgId}${p}`, { ...init, token: ownerToken });
  const orgPath = (p: string) => `${d.t.url}/console/${d.orgId}${p}`;
  const purposeNames = async () =>
    ((await api('/purposes')).body.Purposes as Array<{ Name: string }>).map((p) => p.Name);
  const attributeNames = async () =>
    ((await api('/templates')).body.Templates as Array<{ Consent: string }>).map((a) => a.Consent);
  /** The organisation audit log's entries of one action, through the API, newest first. */
  const auditEntries = async (action: string) =>
    (await api(`/audit-log?action=${action}&limit=100`)).body.Entries as Array<{
      ActorUserID: string;
      Detail: Record<string, unknown>;
    }>;
  /** The console's Audit log page filtered to one action, through its filter form: its rows. */
  const auditRows = async (page: Page, action: string) => {
    await page.goto(orgPath('/audit'));
    await page.getByLabel('Action (e.g. idp.update; purpose. for every purpose action)').fill(action);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(orgPath(`/audit?action=${action}&actor=&from=&to=`));
    return page.locator('main tbody tr');
  };
  /** Presses a delete form's button and waits for the POST's answer. */
  const pressAndAnswer = async (page: Page, press: () => Promise<void>): Promise<Response> => {
    const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), press()]);
    await page.waitForLoadState();
    return answer;
  };

  it('deleting a purpose or a data attribute in the console asks for confirmation, and the Audit log names it and the Owner', async () => {
    const name = 'Purpose deleted in the browser';
    const created = await api('/purposes', { body: { purposes: [{ name }] } });
    expect(created.status).toBeLessThan(300);
    const purposeId = (created.body.Organization.Purposes as Array<{ ID: string; Name: string }>).find(
      (p) => p.Name === name,
    )!.ID;
    const attribute = 'Attribute deleted in the browser';
    expect((await api('/templates', { body: { templates: [{ consent: attribute }] } })).status).toBeLessThan(300);

    const page = await signInPage(d, OWNER, d.chrome, 'console');
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r.url());
    });
    await page.goto(orgPath('/organisation'));
    const card = page.getByRole('region', { name, exact: true });
    await card.getByText(`Edit ${name}`).click();
    const box = card.getByLabel(`I confirm: delete ${name}.`);
    const del = card.getByRole('button', { name: `Delete ${name}`, exact: true });

    // Delete without the box: the browser's `required` check stops the form, nothing is sent.
    expect(await box.isChecked()).toBe(false);
    await del.click();
    expect(await box.evaluate((el: HTMLInputElement) => el.validity.valueMissing)).toBe(true);
    expect(page.url()).toBe(orgPath('/organisation'));
    expect(posts).toEqual([]);
    expect(await purposeNames()).toContain(name);

    // A browser that does not check (the attribute removed): the server refuses it, 400, nothing deleted.
    await box.evaluate((el: HTMLInputElement) => el.removeAttribute('required'));
    const refused = await pressAndAnswer(page, () => del.click());
    expect(refused.status()).toBe(400);
    expect(posts).toEqual([orgPath(`/purposes/${purposeId}/delete`)]);
    expect(await page.getByRole('region', { name, exact: true }).count()).toBe(1);
    expect(await box.getAttribute('aria-invalid')).toBe('true');
    expect(await purposeNames()).toContain(name);
    expect((await auditEntries('purpose.delete')).map((e) => e.Detail.name)).not.toContain(name);

    // Ticked, then Delete: gone, with its audit entry.
    await box.check();
    const deleted = await pressAndAnswer(page, () => del.click());
    expect(deleted.status()).toBe(303);
    await page.waitForURL(orgPath('/organisation?done=purpose-deleted'));
    expect(await page.getByRole('status').textContent()).toBe('Purpose deleted.');
    expect(await page.getByRole('region', { name, exact: true }).count()).toBe(0);
    expect(await purposeNames()).not.toContain(name);

    // The data attribute likewise.
    const aCard = page.getByRole('region', { name: attribute, exact: true });
    await aCard.getByText(`Edit ${attribute}`).click();
    const aBox = aCard.getByLabel(`I confirm: delete ${attribute}.`);
    const aDel = aCard.getByRole('button', { name: `Delete ${attribute}`, exact: true });
    const before = posts.length;
    await aDel.click();
    expect(await aBox.evaluate((el: HTMLInputElement) => el.validity.valueMissing)).toBe(true);
    expect(posts).toHaveLength(before);
    expect(await attributeNames()).toContain(attribute);
    await aBox.check();
    expect((await pressAndAnswer(page, () => aDel.click())).status()).toBe(303);
    await page.waitForURL(orgPath('/organisation?done=attribute-deleted'));
    expect(await page.getByRole('status').textContent()).toBe('Data attribute deleted.');
    expect(await attributeNames()).not.toContain(attribute);

    // The Audit log page: one purpose.delete naming the purpose and the Owner (name, e-mail and user ID), from the console.
    const rows = await auditRows(page, 'purpose.delete');
    expect(await rows.count()).toBe(1);
    const row = rows.first();
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('purpose.delete');
    const actor = row.getByRole('cell').nth(2);
    expect(await actor.getByRole('link').textContent()).toBe('Olivia Owner');
    expect(await actor.textContent()).toBe(`Olivia Ownerowner@acme.example${ownerId}via console`);
    expect(await row.textContent()).toContain(`"name":"${name}"`);
    expect(await row.textContent()).toContain(purposeId);
    const aRows = await auditRows(page, 'template.delete');
    expect(await aRows.count()).toBe(1);
    expect(await aRows.first().getByRole('cell').nth(2).textContent()).toContain(ownerId);
    expect(await aRows.first().textContent()).toContain(`"name":"${attribute}"`);
    await page.close();
  });

  it('an unknown path under /console or /dashboard is an HTML 404 page of that front end', async () => {
    const page = await d.chrome.context.newPage();
    const console_ = { brand: 'Assent · Console', title: 'Not found · Console · Assent', back: 'Back to the console' };
    const dashboard = {
      brand: 'Assent · Privacy dashboard',
      title: 'Not found · Privacy dashboard · Assent',
      back: 'Back to the dashboard',
    };
    const nothing = 'There is nothing here.';
    const cases = [
      { path: '/console/nope/deeper', ...console_, home: '/console', alert: nothing },
      { path: `/console/${d.orgId}/nope/deeper`, ...console_, home: '/console', alert: nothing },
      { path: '/dashboard/nope', ...dashboard, home: '/dashboard', alert: nothing },
      { path: '/dashboard/nope/deeper', ...dashboard, home: '/dashboard', alert: nothing },
    ];
    const check = async (c: (typeof cases)[number], what: string) => {
      const res = await page.goto(`${d.t.url}${c.path}`);
      expect(res?.status(), what).toBe(404);
      expect(res?.headers()['content-type'], what).toMatch(/^text\/html/);
      expect(await page.locator('html').getAttribute('lang'), what).toBe('en');
      expect(await page.title(), what).toBe(c.title);
      expect(await page.locator('header a.brand').textContent(), what).toBe(c.brand);
      expect(await page.locator('header a.brand').getAttribute('href'), what).toBe(c.home);
      expect(await page.getByRole('heading', { level: 1 }).textContent(), what).toBe('Not found');
      expect(await page.getByRole('alert').textContent(), what).toBe(c.alert);
      expect(await page.getByRole('link', { name: c.back }).getAttribute('href'), what).toBe(c.home);
    };
    await d.chrome.context.clearCookies();
    for (const c of cases) await check(c, `${c.path} (signed out)`);
    // /console/nope has the shape of an organisation's path: signed out it asks for a sign-in first
    // (303, as any console page does); signed in, "nope" is no organisation, a 404 page.
    const res = await page.goto(`${d.t.url}/console/nope`);
    expect(res?.url()).toBe(`${d.t.url}/console/sign-in?next=%2Fconsole%2Fnope`);
    expect(res?.status()).toBe(200);
    // Signed in (the Owner's session serves both front ends).
    await (await signInPage(d, OWNER, d.chrome, 'console')).close();
    for (const c of [...cases, { ...cases[0]!, path: '/console/nope', alert: 'Organisation not found' }])
      await check(c, `${c.path} (signed in)`);
    await page.close();
  });

  it('AskMe reads the same on the dashboard and the console: "AskMe, 45 of 45 days left", days sent with AskMe only', async () => {
    const page = await signInPage(d, ALICE);
    const errors = watchErrors(page);
    const row = page.locator(`#a-${d.marketing.id}-${d.marketing.phone}`);
    const days = row.getByLabel('Days (0 = no limit)');
    const save = async () => {
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        row.getByRole('button', { name: 'Save' }).click(),
      ]);
      expect(answer.status()).toBe(200);
      return new URLSearchParams(answer.request().postData() ?? '');
    };
    // The page script enables Days with AskMe only.
    await row.getByLabel('Allow', { exact: true }).check();
    await expect.poll(() => days.isDisabled()).toBe(true);
    await row.getByLabel('AskMe', { exact: true }).check();
    await expect.poll(() => days.isEnabled()).toBe(true);
    await row.getByLabel('Disallow', { exact: true }).check();
    await expect.poll(() => days.isDisabled()).toBe(true);
    // 45 typed under AskMe, then Allow chosen and saved: no days are sent, none are stored.
    await row.getByLabel('AskMe', { exact: true }).check();
    await days.fill('45');
    await row.getByLabel('Allow', { exact: true }).check();
    await expect.poll(() => days.isDisabled()).toBe(true);
    const allow = await save();
    expect(allow.get('consented')).toBe('Allow');
    expect(allow.has('days')).toBe(false);
    await expect.poll(() => row.textContent()).toContain('Now: Allow · saved');
    expect(await consentStatus(d, ALICE, d.marketing.id, d.marketing.phone)).toMatchObject({
      Consent: 'Allow',
      Days: 0,
    });
    // AskMe with 45 days.
    await row.getByLabel('AskMe', { exact: true }).check();
    await expect.poll(() => days.isEnabled()).toBe(true);
    await days.fill('45');
    const askMe = await save();
    expect(askMe.get('consented')).toBe('AskMe');
    expect(askMe.get('days')).toBe('45');
    await expect.poll(() => row.textContent()).toContain('Now: AskMe, 45 of 45 days left · saved');
    await expect
      .poll(() => page.locator(`#a-${d.marketing.id}-${d.marketing.phone}-status`).textContent())
      .toBe('Saved: AskMe, 45 of 45 days left.');
    expect(await days.inputValue()).toBe('45');
    expect(await days.isEnabled()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
    expect(await consentStatus(d, ALICE, d.marketing.id, d.marketing.phone)).toMatchObject({
      Consent: 'AskMe',
      Days: 45,
    });

    // The Owner opens Alice's page in the console: the same words.
    const owner = await signInPage(d, OWNER, d.chrome, 'console');
    await owner.getByRole('link', { name: 'Acme' }).click();
    await owner.waitForURL(orgPath('/organisation'));
    await owner.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Individuals' }).click();
    await owner.waitForURL(orgPath('/individuals'));
    // The search is live (htmx swaps the results); wait for its answer before following a link.
    const [searched] = await Promise.all([
      owner.waitForResponse((r) => r.url().includes('search=alice')),
      owner.getByLabel('Search by name or e-mail').fill('alice'),
    ]);
    expect(searched.status()).toBe(200);
    await owner.getByText('Names or e-mails containing “alice”').waitFor();
    await owner.getByRole('link', { name: 'Alice', exact: true }).click();
    await owner.waitForURL(new RegExp(`/console/${d.orgId}/individuals/[0-9a-f-]{36}$`));
    const phone = owner.getByRole('region', { name: 'Marketing' }).getByRole('row', { name: /^Phone number/ });
    expect(await phone.getByRole('cell').first().textContent()).toBe('AskMe, 45 of 45 days left');
    await owner.close();
  });

  it('signing in with a hostile next (CR/LF) lands on the front end’s home, signed in, with no 500 and no injected header', async () => {
    const fronts = [
      {
        front: 'dashboard',
        user: ALICE,
        home: '/dashboard/consents',
        signedIn: (p: Page) => p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My consents' }),
      },
      {
        front: 'console',
        user: OWNER,
        home: '/console',
        signedIn: (p: Page) => p.getByRole('link', { name: 'Acme' }),
      },
    ] as const;
    for (const f of fronts) {
      // As the link gives it (the query), then as a tampered form would send it (the hidden field).
      for (const how of ['query', 'form'] as const) {
        const what = `${f.front}, next in the ${how}`;
        await d.chrome.context.clearCookies();
        const page = await d.chrome.context.newPage();
        const responses: Array<{ url: string; status: number; headers: Record<string, string> }> = [];
        page.on('response', (r) => {
          responses.push({ url: r.url(), status: r.status(), headers: r.headers() });
        });
        const hostile = `/${f.front}/\r\nX-Injected: 1`;
        await page.goto(`${d.t.url}/${f.front}/sign-in?next=%2F${f.front}%2F%0d%0aX-Injected:%201`);
        if (how === 'form')
          // The password form's field (the passkey form has one of its own).
          await page
            .locator(`form[action="/${f.front}/sign-in"] input[name="next"]`)
            .evaluate((el: HTMLInputElement, v) => {
              el.value = v;
            }, hostile);
        const [post] = await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST'),
          submitSignIn(page, f.user),
        ]);
        // The sign-in's answer: a redirect (303) to the front end's home, never to the CR/LF path.
        expect(post.status(), what).toBe(303);
        expect(await post.headerValue('location'), what).toBe(`/${f.front}`);
        await page.waitForURL(`${d.t.url}${f.home}`);
        await f.signedIn(page).waitFor();
        expect(await page.getByRole('button', { name: 'Sign out' }).count(), what).toBe(1);
        expect(await page.getByText('That did not work').count(), what).toBe(0);
        expect(
          responses.filter((r) => r.status >= 500),
          what,
        ).toEqual([]);
        expect(
          responses.filter((r) => Object.keys(r.headers).some((h) => h.toLowerCase() === 'x-injected')),
          what,
        ).toEqual([]);
        await page.close();
      }
    }
  });

  it('re-saving unchanged notification transports on the Integrations page adds no audit entry; a change adds exactly one', async () => {
    const action = 'notifications.transports.update';
    const count = async () => (await auditEntries(action)).length;
    const page = await signInPage(d, OWNER, d.chrome, 'console');
    const errors = watchErrors(page);
    const save = async () => {
      await page.getByRole('button', { name: 'Save transports' }).click();
      await page.waitForURL(/\/integrations(\/transports|\?done=transports)$/);
    };
    const openIntegrations = async () => {
      await page.goto(orgPath('/organisation'));
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Integrations' }).click();
      await page.waitForURL(orgPath('/integrations'));
    };
    const email = () => page.getByLabel('E-mail individuals who have an address when no webhook is set');
    /** The entries of the action on the console's Audit log page. */
    const shown = async () => (await auditRows(page, action)).count();

    const start = await count();
    expect(await shown()).toBe(start);

    // The form as it comes, sent again: no entry.
    await openIntegrations();
    await save();
    expect(page.url()).toBe(orgPath('/integrations?done=transports'));
    expect(await count()).toBe(start);

    // E-mail turned the other way: exactly one entry, naming it.
    await openIntegrations();
    const wasOn = await email().isChecked();
    await email().setChecked(!wasOn);
    await save();
    expect(await count()).toBe(start + 1);
    expect((await auditEntries(action))[0]).toMatchObject({ ActorUserID: ownerId, Detail: { email: !wasOn } });

    // Sent again unchanged, now that a stored row exists: still one.
    await openIntegrations();
    expect(await email().isChecked()).toBe(!wasOn);
    await save();
    expect(await count()).toBe(start + 1);

    // A webhook URL set: one more (its new secret is shown once); the same URL sent again: none.
    await openIntegrations();
    await page.getByLabel('Webhook URL (https; empty: no webhook)').fill('https://hooks.acme.example/consent');
    await save();
    expect(page.url()).toBe(orgPath('/integrations/transports'));
    expect((await page.getByLabel('Secret').inputValue()).length).toBeGreaterThan(20);
    expect(await count()).toBe(start + 2);
    await openIntegrations();
    expect(await page.getByLabel('Webhook URL (https; empty: no webhook)').inputValue()).toBe(
      'https://hooks.acme.example/consent',
    );
    await save();
    expect(page.url()).toBe(orgPath('/integrations?done=transports'));
    expect(await count()).toBe(start + 2);
    expect(await shown()).toBe(start + 2);
    expect(errors).toEqual([]);
    await page.close();
  });
});
