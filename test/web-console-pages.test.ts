/**
 * The admin console's pages in a real browser (Debian's Chromium through playwright-core; docs/web.md
 * "Console"), as the Owner of Acme sees them: accessibility checked by axe-core in the page (WCAG
 * 2.2 AA rules; no violation of impact serious or critical), and the layout at a desktop (1280 px)
 * and a phone (375 px) width, where nothing may scroll sideways (WCAG 2.2 SC 1.4.10 Reflow).
 * Full-page screenshots of each page at each width are written to
 * `test-artifacts/screens/console-<page>-<width>.png` for a person to look at.
 *
 * Without /usr/bin/chromium the file is skipped with a message, unless ASSENT_REQUIRE_BROWSER=1.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login } from './helpers/assent.js';
import { browserAvailable, browserGate, checkLayout, severeA11yViolations, watchErrors } from './helpers/chromium.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';
import { ALICE, changeThroughApi, type Dashboard, OWNER, signInPage, startDashboard } from './helpers/web.js';

browserGate('web-console-pages.test.ts');

describe.skipIf(!browserAvailable)('the admin console’s pages in Chromium', () => {
  let d: Dashboard;
  /** Each page the Owner can open, by its screenshot name: its path. */
  const pages: Record<string, string> = {};
  let page: Page;
  let errors: string[];
  let hook: Receiver;
  beforeAll(async () => {
    // The event webhook's receiver listens on loopback over http, which the server allows for 127.0.0.1 only.
    d = await startDashboard({ env: { ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1' } });
    hook = await startReceiver();
    const token = (await login(d.t, OWNER.username, OWNER.password)).Token.access_token;
    // An event webhook (its URL a long word to wrap at 375 px) with a ping and a consent event among its deliveries.
    const webhook = await call(`${d.t.base}/organizations/${d.orgId}/webhooks`, {
      method: 'POST',
      token,
      body: {
        payloadUrl: `${hook.url}/${'y'.repeat(100)}`,
        subscribedEvents: ['consent.allowed', 'consent.disallowed'],
      },
    });
    expect(webhook.status).toBe(201);
    const webhookId = webhook.body.id as string;
    const pinged = await call(`${d.t.base}/organizations/${d.orgId}/webhooks/${webhookId}/ping`, {
      method: 'POST',
      token,
    });
    expect(pinged.status).toBe(200);
    // One individual with a consent history, a consent request's job (no transport: all skipped),
    // and an entry of the audit log (its URI a long word to wrap at 375 px).
    const { userId } = await changeThroughApi(d, ALICE, d.marketing.id, d.marketing.email, { consented: 'Allow' });
    const started = await call(`${d.t.base}/organizations/${d.orgId}/purposes/${d.marketing.id}/attributes/consent`, {
      method: 'POST',
      token,
    });
    expect(started.status).toBe(202);
    const uris = { RedirectURIs: [`https://app.acme.example/callback/${'x'.repeat(120)}`] };
    const audited = await call(`${d.t.base}/organizations/${d.orgId}/idp/open-id/app-redirect-uris`, {
      method: 'PUT',
      token,
      body: uris,
    });
    expect(audited.status).toBe(200);
    // A pending staff invitation, so that the Staff page shows its table too.
    const invited = await call(`${d.t.base}/organizations/${d.orgId}/admins`, {
      token,
      body: { email: 'new-colleague@acme.example', roles: [2, 3] },
    });
    expect(invited.status).toBe(201);
    const jobId = started.headers.get('location')!.split('/').pop()!;
    const org = `/console/${d.orgId}`;
    Object.assign(pages, {
      home: '/console',
      organisation: `${org}/organisation`,
      individuals: `${org}/individuals`,
      individual: `${org}/individuals/${userId}`,
      consents: `${org}/consents`,
      requests: `${org}/requests`,
      job: `${org}/requests/${jobId}`,
      integrations: `${org}/integrations`,
      events: `${org}/integrations/events`,
      webhook: `${org}/integrations/events/${webhookId}`,
      audit: `${org}/audit`,
      staff: `${org}/staff`,
      security: '/console/security',
    });
    page = await signInPage(d, OWNER, d.chrome, 'console');
    errors = watchErrors(page);
  });
  afterAll(async () => {
    await d?.stop();
    await hook?.close();
  });

  /** Opens a page of the console in the Owner's tab; it must answer 200 at its own URL. */
  async function open(name: string): Promise<void> {
    const res = await page.goto(`${d.t.url}${pages[name]}`);
    expect(res?.status(), name).toBe(200);
    expect(page.url()).toBe(`${d.t.url}${pages[name]}`);
  }

  const NAMES = [
    'home',
    'organisation',
    'individuals',
    'individual',
    'consents',
    'requests',
    'job',
    'integrations',
    'events',
    'webhook',
    'audit',
    'staff',
    'security',
  ];

  it.each(NAMES)('accessibility: axe finds no serious or critical violation on the %s page', async (name) => {
    await open(name);
    const severe = await severeA11yViolations(page);
    expect(severe, JSON.stringify(severe, null, 2)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it.each(NAMES)(
    'layout: the %s page at 1280 and 375 px (screenshots): no sideways scroll at 375 px, no table wider than the page at 1280 px',
    async (name) => {
      await open(name);
      await checkLayout(page, `console-${name}`);
      await page.setViewportSize({ width: 800, height: 1000 });
    },
  );
});
