/**
 * The admin console in a real browser (Debian's Chromium through playwright-core; docs/web.md
 * "Console"): the Owner of Acme sets a webhook on loopback as the organisation's transport, adds a
 * purpose and a data attribute, starts a special consent request (docs/api.md "Permissions and consents") and follows its job live
 * to the end, and adds an event webhook and pings it, each step checked through the JSON API; a DPO reads every page
 * and finds no control;
 * an individual's session gets the 403 page; no other origin can frame the console (clickjacking,
 * ASVS 5.0 V3.4.6). Accessibility and layout of the pages are in web-console-pages.test.ts.
 *
 * Without /usr/bin/chromium the file is skipped with a message, unless ASSENT_REQUIRE_BROWSER=1.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login } from './helpers/assent.js';
import {
  browserAvailable,
  browserGate,
  frameOf,
  framingPage,
  type PageServer,
  startPageServer,
  watchErrors,
} from './helpers/chromium.js';
import { type Receiver, startReceiver, verifySignature } from './helpers/receiver.js';
import { ALICE, type Dashboard, DPO, OWNER, signInPage, startDashboard } from './helpers/web.js';

browserGate('web-console-browser.test.ts');

describe.skipIf(!browserAvailable)('the admin console in Chromium', () => {
  let d: Dashboard;
  let hook: Receiver;
  let framer: PageServer;
  let ownerToken: string;
  beforeAll(async () => {
    // The webhook receiver listens on loopback over http, which the server allows for 127.0.0.1 only.
    d = await startDashboard({ env: { ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1' } });
    hook = await startReceiver();
    framer = await startPageServer((url) =>
      url.pathname === '/plain' ? '<p id="plain">framed</p>' : framingPage(url),
    );
    ownerToken = (await login(d.t, OWNER.username, OWNER.password)).Token.access_token;
  });
  afterAll(async () => {
    await d?.stop();
    await hook?.close();
    await framer?.close();
  });

  const api = (p: string) => call(`${d.t.base}/organizations/${d.orgId}${p}`, { token: ownerToken });
  const orgPath = (p: string) => `${d.t.url}/console/${d.orgId}${p}`;

  it('the Owner sets the webhook, adds a purpose and a data attribute, and follows a consent request to "Completed"', async () => {
    const page = await signInPage(d, OWNER, d.chrome, 'console');
    const errors = watchErrors(page);
    await page.getByRole('link', { name: 'Acme' }).click();
    await page.waitForURL(orgPath('/organisation'));

    // The webhook, through the Integrations page: a new URL gets a signing secret, shown once.
    await page.getByRole('link', { name: 'Integrations' }).click();
    await page.getByLabel('Webhook URL (https; empty: no webhook)').fill(hook.url);
    await page.getByRole('button', { name: 'Save transports' }).click();
    await page.waitForURL(orgPath('/integrations/transports'));
    const secret = await page.getByLabel('Secret').inputValue();
    expect(secret.length).toBeGreaterThan(20);
    expect((await api('/notification-transports')).body.Webhook).toMatchObject({ Enabled: true, URL: hook.url });

    // A purpose, then a data attribute for it, on the Organisation page.
    await page.getByRole('link', { name: 'Organisation' }).click();
    const addPurpose = page.getByRole('region', { name: 'Add a purpose' });
    await addPurpose.getByLabel('Name').fill('Loyalty programme');
    await addPurpose.getByLabel('Description').fill('Points and member offers.');
    await addPurpose.getByRole('button', { name: 'Add purpose' }).click();
    await page.waitForURL(orgPath('/organisation?done=purpose'));
    expect(await page.getByRole('status').textContent()).toBe('Purpose saved.');
    expect(await page.getByRole('heading', { name: 'Loyalty programme', level: 3 }).count()).toBe(1);
    const purpose = (await api('/purposes')).body.Purposes.find((p: any) => p.Name === 'Loyalty programme');
    expect(purpose).toMatchObject({ Description: 'Points and member offers.', LawfulUsage: false });

    const addAttribute = page.getByRole('region', { name: 'Add a data attribute' });
    await addAttribute.getByLabel('Name').fill('Loyalty card number');
    await addAttribute.getByLabel('Loyalty programme').check();
    await addAttribute.getByRole('button', { name: 'Add attribute' }).click();
    await page.waitForURL(orgPath('/organisation?done=attribute'));
    expect(await page.getByRole('status').textContent()).toBe('Data attribute saved.');
    const card = page.getByRole('region', { name: 'Loyalty card number' });
    expect(await card.getByText('Purposes: Loyalty programme').count()).toBe(1);
    const attribute = (await api('/templates')).body.Templates.find((a: any) => a.Consent === 'Loyalty card number');
    expect(attribute.PurposeIDs).toEqual([purpose.ID]);

    // The consent request: the webhook answers slowly, so the job page loads before the job ends
    // and the bar reaches the end through htmx's polling, in the same document.
    await page.getByRole('link', { name: 'Consent requests' }).click();
    hook.delayMs = 800;
    await page.getByRole('button', { name: 'Ask individuals about Loyalty programme' }).click();
    await page.waitForURL(new RegExp(`/console/${d.orgId}/requests/[0-9a-f-]{36}$`));
    const jobId = page.url().split('/').pop()!;
    const counts = page.locator('#job-counts');
    expect(await counts.getAttribute('data-state')).not.toBe('completed');
    let navigations = 0;
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) navigations++;
    });
    await counts.getByText(/^Completed:/).waitFor({ timeout: 30_000 });
    hook.delayMs = 0;
    expect(navigations).toBe(0);

    const job = (await api(`/jobs/${jobId}`)).body;
    expect(job).toMatchObject({ State: 'completed', PurposeID: purpose.ID, AttributeIDs: [attribute.ID] });
    const total = job.Notified + job.Skipped + job.Failed;
    // No subscribed individual (the demo's Acme individuals, its 40 with imported history among them, and bea, cleo
    // and dan) decided about the new purpose: each is asked, by the webhook.
    const subscribed = (await api('/users/count')).body.SubscribeUserCount;
    expect(subscribed).toBeGreaterThan(40);
    expect(job.Notified).toBe(subscribed);
    expect(await counts.textContent()).toBe(
      `Completed: ${job.Notified} notified, ${job.Skipped} skipped, ${job.Failed} failed, of ${total} individuals.`,
    );
    const bar = page.locator('#job-bar');
    expect(await bar.getAttribute('value')).toBe(String(total));
    expect(await bar.getAttribute('max')).toBe(String(total));
    const delivered = hook.received.filter((r) => r.body.jobId === jobId);
    expect(delivered).toHaveLength(job.Notified);
    expect(delivered.every((r) => verifySignature(r, secret))).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the Owner adds an event webhook under Integrations, copies its secret from the one page that shows it, and pings it', async () => {
    const page = await signInPage(d, OWNER, d.chrome, 'console');
    const errors = watchErrors(page);
    await page.goto(orgPath('/integrations'));
    await page.getByRole('navigation', { name: 'Integrations' }).getByRole('link', { name: 'Event webhooks' }).click();
    await page.waitForURL(orgPath('/integrations/events'));
    const add = page.getByRole('region', { name: 'Add a webhook' });
    await add.getByLabel('Payload URL (https)').fill(hook.url);
    const types = add.getByRole('group', { name: 'Event types to deliver' });
    await types.getByLabel('consent.allowed', { exact: true }).check();
    await types.getByLabel('consent.disallowed', { exact: true }).check();
    await add.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: 'Webhook added', level: 1 }).waitFor();
    const secret = await page.getByLabel('Secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    expect(await page.getByRole('status').textContent()).toContain('it is shown this once');
    await page.getByRole('link', { name: 'Go to the webhook' }).click();
    await page.waitForURL(new RegExp(`/console/${d.orgId}/integrations/events/[0-9a-f-]{36}$`));
    expect(await page.content()).not.toContain(secret.slice(6));
    const before = hook.received.length;
    await page.getByRole('button', { name: 'Send a ping' }).click();
    await page.waitForURL(/\/ping$/);
    expect(await page.getByRole('status').textContent()).toMatch(/^Ping delivered: #1, .+: HTTP 200, \d+ ms\./);
    const ping = hook.received.slice(before).find((r) => r.body.type === 'webhook.ping')!;
    expect(new Webhook(secret).verify(ping.raw, ping.headers as Record<string, string>)).toMatchObject({
      type: 'webhook.ping',
    });
    expect(await page.getByRole('row', { name: /webhook\.ping/ }).count()).toBe(1);
    const listed = (await api('/webhooks')).body.webhooks;
    expect(listed).toEqual([
      expect.objectContaining({ payloadUrl: hook.url, subscribedEvents: ['consent.allowed', 'consent.disallowed'] }),
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a DPO opens Organisation, Individuals, Consent requests, Audit log and the event webhooks, each with no form that posts but the header’s sign-out', async () => {
    const page = await signInPage(d, DPO, d.chrome, 'console');
    const errors = watchErrors(page);
    // Forms that change something post; the individuals' search and the audit log's filter are GET forms that only read.
    const posting = () => page.evaluate(() => document.querySelectorAll('main form:not([method="get"])').length);
    for (const p of ['/organisation', '/individuals', '/requests', '/audit', '/integrations/events']) {
      const res = await page.goto(orgPath(p));
      expect(res?.status(), p).toBe(200);
      expect(await page.getByRole('heading', { level: 1 }).count(), p).toBe(1);
      expect(await posting(), p).toBe(0);
      expect(await page.locator('form[method="post"]').count(), p).toBe(1);
      expect(await page.locator('header form[method="post"] button').textContent(), p).toBe('Sign out');
      if (p === '/organisation' || p === '/requests')
        expect(await page.evaluate(() => document.querySelectorAll('main form').length), p).toBe(0);
    }
    // The control: the same count finds the Owner's forms on the same pages.
    const owner = await signInPage(d, OWNER, d.chrome, 'console');
    for (const p of ['/organisation', '/individuals', '/requests']) {
      await owner.goto(orgPath(p));
      expect(
        await owner.evaluate(() => document.querySelectorAll('main form:not([method="get"])').length),
        p,
      ).toBeGreaterThan(0);
    }
    expect(errors).toEqual([]);
    await owner.close();
    await page.close();
  });

  it('an individual’s session cannot open the console: /console and the organisation page are 403 pages', async () => {
    const page = await signInPage(d, ALICE, d.chrome, 'console');
    const home = await page.goto(`${d.t.url}/console`);
    expect(home?.status()).toBe(403);
    expect(await page.getByRole('alert').textContent()).toContain('This account holds no role in any organisation.');
    expect(await page.getByRole('link', { name: 'Acme' }).count()).toBe(0);
    const org = await page.goto(orgPath('/organisation'));
    expect(org?.status()).toBe(403);
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await page.locator('main form').count()).toBe(0);
    expect(await page.getByText('Add a purpose').count()).toBe(0);
    await page.close();
  });

  it('a refused purpose form comes back with what was typed and the error next to the policy URL (aria-invalid, aria-describedby)', async () => {
    const page = await signInPage(d, OWNER, d.chrome, 'console');
    await page.goto(orgPath('/organisation'));
    const addPurpose = page.getByRole('region', { name: 'Add a purpose' });
    await addPurpose.getByLabel('Name').fill('Typed in the browser');
    await addPurpose.getByLabel('Description').fill('Kept when refused.');
    await addPurpose.getByLabel('Policy URL').fill('ftp://policy.example/x');
    await addPurpose.getByLabel('The lawful basis is not consent').check();
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      addPurpose.getByRole('button', { name: 'Add purpose' }).click(),
    ]);
    expect(answer.status()).toBe(400);
    await page.waitForLoadState();
    expect(await page.title()).toContain('· Console · Assent');
    const again = page.getByRole('region', { name: 'Add a purpose' });
    expect(await again.getByLabel('Name').inputValue()).toBe('Typed in the browser');
    expect(await again.getByLabel('Description').inputValue()).toBe('Kept when refused.');
    expect(await again.getByLabel('The lawful basis is not consent').isChecked()).toBe(true);
    const url = again.getByLabel('Policy URL');
    expect(await url.inputValue()).toBe('ftp://policy.example/x');
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    expect(await again.getByLabel('Name').getAttribute('aria-invalid')).toBeNull();
    // The message is the field's accessible description, and it is shown right after the field.
    const described = await url.evaluate((el) => {
      const ids = (el.getAttribute('aria-describedby') ?? '').split(' ');
      const message = document.getElementById(ids[ids.length - 1]!);
      return { text: message?.textContent, next: el.nextElementSibling === message };
    });
    expect(described).toEqual({
      text: 'Enter a web address that starts with http:// or https://, without spaces.',
      next: true,
    });
    expect(await page.getByRole('alert').first().textContent()).toContain('correct the field marked below');
    const purposes = (await api('/purposes')).body.Purposes as Array<{ Name: string }>;
    expect(purposes.some((p) => p.Name === 'Typed in the browser')).toBe(false);
  });

  it('framing: the console’s sign-in and organisation pages do not render in another origin’s iframe', async () => {
    const control = await frameOf(d.chrome.context, framer, `${framer.origin}/plain`, '#plain');
    expect(control.shown).toBe(1);
    await d.chrome.context.clearCookies();
    const signIn = await frameOf(d.chrome.context, framer, `${d.t.url}/console/sign-in`, '#username');
    await (await signInPage(d, OWNER, d.chrome, 'console')).close();
    const organisation = await frameOf(d.chrome.context, framer, orgPath('/organisation'), 'main h1');
    for (const framed of [signIn, organisation]) {
      expect(framed.url).toMatch(/^chrome-error:/);
      expect(framed.shown).toBe(0);
    }
  });
});
