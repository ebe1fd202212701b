/**
 * Debian's Chromium for the browser tests, driven by playwright-core (never a downloaded browser):
 * headless, no sandbox, no network of its own (background networking, component updates, sync and
 * QUIC off), on a fresh user-data directory removed at the end; and the tiny loopback HTTP servers
 * a browser test needs (a relying party's callback page, a page on another origin).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

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
