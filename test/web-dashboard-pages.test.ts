/**
 * The privacy dashboard's pages in a real browser (Debian's Chromium through playwright-core):
 * accessibility checked by axe-core in the page (WCAG 2.2 AA rules; no violation of impact
 * serious or critical), and the layout at a desktop (1280 px) and a phone (375 px) width, where
 * nothing may scroll sideways (WCAG 2.2 SC 1.4.10 Reflow), and where, on the desktop, no table does. Full-page screenshots of each page at
 * each width are written to `test-artifacts/screens/<page>-<width>.png` for a person to look at.
 *
 * Without /usr/bin/chromium the file is skipped with a message, unless ASSENT_REQUIRE_BROWSER=1.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, browserGate, watchErrors } from './helpers/chromium.js';
import { ALICE, changeThroughApi, type Dashboard, ROOT, signInPage, startDashboard } from './helpers/web.js';

browserGate('web-dashboard-pages.test.ts');

const SCREENS = path.join(ROOT, 'test-artifacts/screens');
/** axe-core's browser build, evaluated in the page (the pages' CSP forbids a script tag; evaluate is not subject to it). */
const AXE = readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** Each page by its screenshot name: its path, and whether it needs a session. */
const PAGES: Array<[string, string, boolean]> = [
  ['sign-in', '/dashboard/sign-in', false],
  ['consents', '/dashboard/consents', true],
  ['history', '/dashboard/history', true],
  ['data', '/dashboard/data', true],
  ['delete', '/dashboard/data/delete', true],
];

describe.skipIf(!browserAvailable)('the privacy dashboard’s pages in Chromium', () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
    // History with rows of both kinds of change: an AskMe with days, and an Allow.
    await changeThroughApi(d, ALICE, d.marketing.id, d.marketing.email, { consented: 'AskMe', days: 30 });
    await changeThroughApi(d, ALICE, d.marketing.id, d.marketing.phone, { consented: 'Allow' });
    mkdirSync(SCREENS, { recursive: true });
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
      await page.evaluate(AXE);
      const violations = await page.evaluate(async () => {
        const { violations } = await (window as any).axe.run(document, { resultTypes: ['violations'] });
        return violations.map((v: any) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          nodes: v.nodes.map((n: any) => n.target.join(' ')),
        }));
      });
      const severe = violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical');
      expect(severe, JSON.stringify(severe, null, 2)).toEqual([]);
      expect(errors).toEqual([]);
      // The control: axe, as run here, does report a serious fault (an image without a text alternative).
      const control = await page.evaluate(async () => {
        document.querySelector('main')!.append(Object.assign(document.createElement('img'), { src: 'data:,' }));
        const { violations } = await (window as any).axe.run(document, { runOnly: ['image-alt'] });
        return violations.map((v: any) => v.impact);
      });
      expect(control).toEqual(['critical']);
      await page.close();
    },
  );

  it.each(PAGES)(
    'layout: the %s page at 1280 and 375 px (screenshots): no sideways scroll at 375 px, no table wider than the page at 1280 px',
    async (name, pathname, signedIn) => {
      const { page } = await open(pathname, signedIn);
      for (const width of [1280, 375]) {
        await page.setViewportSize({ width, height: 800 });
        await page.screenshot({ path: path.join(SCREENS, `${name}-${width}.png`), fullPage: true });
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        if (width === 375) expect(scrollWidth, `${name} scrolls sideways at 375 px`).toBeLessThanOrEqual(375);
        // On a desktop a table fits whole: no column (the receipts' Download links) hidden behind a sideways scroll.
        const wide = await page.$$eval('.table-wrap', (els) => els.filter((e) => e.scrollWidth > e.clientWidth).length);
        if (width === 1280) expect(wide, `${name} has a table wider than the page at 1280 px`).toBe(0);
      }
      await page.close();
    },
  );
});
