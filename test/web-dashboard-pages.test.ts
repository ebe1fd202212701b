/**
 * The privacy dashboard's pages in a real browser (Debian's Chromium through playwright-core):
 * accessibility checked by axe-core in the page (WCAG 2.2 AA rules; no violation of impact
 * serious or critical), and the layout at a desktop (1280 px) and a phone (375 px) width, where
 * nothing may scroll sideways (WCAG 2.2 SC 1.4.10 Reflow), and where, on the desktop, no table does. Full-page screenshots of each page at
 * each width are written to `test-artifacts/screens/<page>-<width>.png` for a person to look at.
 *
 * Without /usr/bin/chromium the file is skipped with a message, unless ASSENT_REQUIRE_BROWSER=1.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, browserGate, checkLayout, severeA11yViolations, watchErrors } from './helpers/chromium.js';
import { ALICE, changeThroughApi, type Dashboard, signInPage, startDashboard } from './helpers/web.js';

browserGate('web-dashboard-pages.test.ts');

/** Each page by its screenshot name: its path, and whether it needs a session. */
const PAGES: Array<[string, string, boolean]> = [
  ['sign-in', '/dashboard/sign-in', false],
  ['consents', '/dashboard/consents', true],
  ['history', '/dashboard/history', true],
  ['data', '/dashboard/data', true],
  ['delete', '/dashboard/data/delete', true],
  ['security', '/dashboard/security', true],
];

describe.skipIf(!browserAvailable)('the privacy dashboard’s pages in Chromium', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
    // History with rows of both kinds of change: an AskMe with days, and an Allow.
    await changeThroughApi(d, ALICE, d.marketing.id, d.marketing.email, { consented: 'AskMe', days: 30 });
    await changeThroughApi(d, ALICE, d.marketing.id, d.marketing.phone, { consented: 'Allow' });
  });
  afterAll(() => d?.stop());

  /**
   * A page of the dashboard, signed in as Alice when it needs a session, signed out otherwise.
   * @returns the page and the console errors and CSP violations of its loading, and after.
   */
  async function open(pathname: string, signedIn: boolean): Promise<{ page: Page; errors: string[] }> {
    let page: Page;
    if (signedIn) page = await signInPage(d, ALICE);
    else {
      await d.chrome.context.clearCookies();
      page = await d.chrome.context.newPage();
    }
    const errors = watchErrors(page);
    await page.goto(`${d.t.url}${pathname}`);
    expect(page.url()).toBe(`${d.t.url}${pathname}`);
    return { page, errors };
  }

  it.each(PAGES)(
    'accessibility: axe finds no serious or critical violation on the %s page',
    async (_, pathname, signedIn) => {
      const { page, errors } = await open(pathname, signedIn);
      const severe = await severeA11yViolations(page);
      expect(severe, JSON.stringify(severe, null, 2)).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it.each(PAGES)(
    'layout: the %s page at 1280 and 375 px (screenshots): no sideways scroll at 375 px, no table wider than the page at 1280 px',
    async (name, pathname, signedIn) => {
      const { page } = await open(pathname, signedIn);
      await checkLayout(page, name);
      await page.close();
    },
  );
});
