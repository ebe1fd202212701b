/**
 * Debian's Chromium for the browser tests, driven by playwright-core (never a downloaded browser):
 * headless, no sandbox, no network of its own (background networking, component updates, sync and
 * QUIC off), on a fresh user-data directory removed at the end; the tiny loopback HTTP servers
 * a browser test needs (a relying party's callback page, a page on another origin); and the checks
 * of a page's accessibility (axe-core) and layout (screenshots, no sideways scroll) that the pages
 * tests share.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

/** Where the pages tests write their screenshots, for a person to look at. */
export const SCREENS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-artifacts/screens');
/** axe-core's browser build, evaluated in the page (the pages' CSP forbids a script tag; evaluate is not subject to it). */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Where Debian installs Chromium. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether the browser tests run here: true when Chromium is installed. When it is missing the
 * tests are skipped with a message, unless `ASSENT_REQUIRE_BROWSER=1` (CI), where they must fail.
 */
export const browserAvailable = existsSync(CHROMIUM);

/** True when a missing browser must fail the run instead of skipping (CI). */
export const browserRequired = process.env.ASSENT_REQUIRE_BROWSER === '1';

/**
 * A browser test file's gate: without Chromium it prints that `file` is skipped, and with
 * `ASSENT_REQUIRE_BROWSER=1` it registers a test that fails when Chromium is missing.
 * @param file - the test file's name, for the message.
 */
export function browserGate(file: string): void {
  if (!browserAvailable && !browserRequired)
    console.warn(`${file}: SKIPPED, no Chromium at ${CHROMIUM} (set ASSENT_REQUIRE_BROWSER=1 to fail)`);
  describe('browser present', () => {
    it.runIf(browserRequired)('Chromium is installed when ASSENT_REQUIRE_BROWSER=1', () => {
      expect(browserAvailable, `ASSENT_REQUIRE_BROWSER=1 but ${CHROMIUM} does not exist`).toBe(true);
    });
  });
}

/** A running Chromium with its own profile. */
export interface TestChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches Chromium on a fresh user-data directory (deleted by `close`).
 * @param options.bypassCSP - ignore the pages' Content-Security-Policy, so that a test of escaping
 *   does not pass only because the CSP stopped what the escaping let through.
 */
export async function launchChromium(options: { bypassCSP?: boolean } = {}): Promise<TestChromium> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'assent-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
    viewport: { width: 800, height: 1000 },
    bypassCSP: options.bypassCSP ?? false,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Console errors, uncaught exceptions and CSP violations of a page, collected as they happen. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    // Chromium asks every origin for /favicon.ico on its own; Assent has none (a 404), which the page does not cause.
    if (msg.location().url.endsWith('/favicon.ico')) return;
    if (msg.type() === 'error' || /Content Security Policy/i.test(msg.text()))
      errors.push(`${msg.text()} (${msg.location().url})`);
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

/**
 * Loads `src` in an iframe of a page on `framer` (another origin); returns the frame's URL
 * (`chrome-error:…` when the framed page refused to be framed) and how many elements matching
 * `selector` it shows.
 */
export async function frameOf(
  context: BrowserContext,
  framer: PageServer,
  src: string,
  selector: string,
): Promise<{ url: string; shown: number }> {
  const page = await context.newPage();
  await page.goto(`${framer.origin}/?src=${encodeURIComponent(src)}`);
  // goto waits for the load event, which waits for the frame's (a refused frame shows Chromium's error page).
  const f = await (await page.locator('iframe').elementHandle())!.contentFrame();
  const url = f?.url() ?? '';
  const shown = f && !url.startsWith('chrome-error:') ? await f.locator(selector).count() : 0;
  await page.close();
  return { url, shown };
}

/** The HTML of a framing page: an iframe of `?src=`. */
export const framingPage = (url: URL) =>
  `<!doctype html><title>framer</title><iframe src="${url.searchParams.get('src')}"></iframe>`;

/** A loopback HTTP server answering every GET with the HTML that `page(url)` returns. */
export interface PageServer {
  origin: string;
  /** Paths requested so far, with their query. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on 127.0.0.1 (a free port) that answers each request with `page(url)` as
 * `text/html`.
 * @param page - the HTML of a request's URL (path and query).
 */
export async function startPageServer(page: (url: URL) => string): Promise<PageServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(url.pathname + url.search);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(url));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One axe-core rule a page breaks: its ID, impact, help text and the elements at fault. */
export interface A11yViolation {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core (its WCAG 2.2 AA rules and best practices) on the page shown and answers the
 * violations of impact serious or critical. Then checks that axe, as run here, does report a serious
 * fault: an image without a text alternative added to `main` (so call it last on a page).
 */
export async function severeA11yViolations(page: Page): Promise<A11yViolation[]> {
  await page.evaluate(AXE);
  const violations: A11yViolation[] = await page.evaluate(async () => {
    const { violations } = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n: any) => n.target.join(' ')),
    }));
  });
  // The control: a check that cannot find a fault cannot pass a page.
  const control = await page.evaluate(async () => {
    document.querySelector('main')!.append(Object.assign(document.createElement('img'), { src: 'data:,' }));
    const { violations } = await (window as any).axe.run(document, { runOnly: ['image-alt'] });
    return violations.map((v: any) => v.impact);
  });
  expect(control).toEqual(['critical']);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * The page shown at a desktop (1280 px) and a phone (375 px) width: a full-page screenshot at each,
 * `SCREENS/<name>-<width>.png`, and checks that nothing scrolls sideways at 375 px (WCAG 2.2 SC
 * 1.4.10 Reflow) and that no `.table-wrap` hides a column behind a sideways scroll at 1280 px.
 */
export async function checkLayout(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS, { recursive: true });
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: path.join(SCREENS, `${name}-${width}.png`), fullPage: true });
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    if (width === 375) expect(scrollWidth, `${name} scrolls sideways at 375 px`).toBeLessThanOrEqual(375);
    const wide = await page.$$eval('.table-wrap', (els) => els.filter((e) => e.scrollWidth > e.clientWidth).length);
    if (width === 1280) expect(wide, `${name} has a table wider than the page at 1280 px`).toBe(0);
  }
}
