/**
 * The privacy dashboard and the console in Chromium (src/web/): a test server with examples/demo.json
 * imported over the demo import (Acme; owner@acme.example, alice@acme.example with the demo
 * passphrases) plus individuals of its own per scenario and a DPO-only admin, Chromium, and the steps
 * the browser tests share: signing in through the form, a consent read through the JSON API, a
 * download's JSON.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Download, Page } from 'playwright-core';
import { expect } from 'vitest';
import { runImport } from '../../src/app/organisations-as-code/import.js';
import { consentHistoryImport } from '../../src/consent/transfer/import.js';
import { redirectUriImport } from '../../src/federation/openid/redirect-uris.js';
import { call, login, startAssent, type TestAssent } from './assent.js';
import { launchChromium, type TestChromium } from './chromium.js';

/** The repository's root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The demo's people (examples/demo.json), and the individuals the dashboard tests add to Acme. */
export const OWNER = { username: 'owner@acme.example', password: 'demo-owner-passphrase' } as const;
export const ALICE = { username: 'alice@acme.example', password: 'demo-alice-passphrase' } as const;
/** An individual of Acme added for one scenario: `<name>@acme.example`, `<name>-web-passphrase`. */
export const individual = (name: string) => ({ username: `${name}@acme.example`, password: `${name}-web-passphrase` });
const ADDED = ['bea', 'cleo', 'dan'];
/** An admin of Acme holding only the Dpo role (added to the demo's import): reads the console, changes nothing. */
export const DPO = { username: 'dpo@acme.example', password: 'acme-dpo-web-passphrase' } as const;

/** The session cookie of the dashboard on http (src/web/shared/guard.ts `cookieName`). */
export const COOKIE = 'assent-web';

/** A dashboard test's world: the server, Acme's IDs, Chromium. */
export interface Dashboard {
  t: TestAssent;
  chrome: TestChromium;
  orgId: string;
  /** The consent-based Marketing purpose and its data attributes. */
  marketing: { id: string; email: string; phone: string };
  stop(): Promise<void>;
}

/**
 * Starts a server with examples/demo.json imported (and bea, cleo and dan subscribed to Acme, and
 * the DPO an admin of it), and Chromium.
 * @param options.bypassCSP - a Chromium launch option (`launchChromium`).
 * @param options.env - the server's environment on top of the tests' (`startAssent`).
 */
export async function startDashboard(
  options: { bypassCSP?: boolean; env?: Record<string, string> } = {},
): Promise<Dashboard> {
  const t = await startAssent(options.env);
  const demo = JSON.parse(readFileSync(path.join(ROOT, 'examples/demo.json'), 'utf8'));
  const acme = demo.organisations[0];
  acme.individuals.push(...ADDED.map((n) => ({ ...individual(n), name: n, email: `${n}@acme.example` })));
  acme.admins.push({ ...DPO, name: 'Dana DPO', roles: ['dpo'] });
  const ids = await runImport(
    t.store.db,
    demo,
    t.config.argon2,
    redirectUriImport,
    undefined,
    undefined,
    consentHistoryImport,
  );
  const org = ids.organisations.acme!;
  const m = org.purposes.marketing!;
  const chrome = await launchChromium({ bypassCSP: options.bypassCSP });
  return {
    t,
    chrome,
    orgId: org.id,
    marketing: { id: m.id, email: m.attributes.email!, phone: m.attributes.phone! },
    async stop() {
      await chrome.close();
      await t.stop();
    },
  };
}

/** Where each front end's sign-in form sends a user by default. */
const LANDING = { dashboard: '/dashboard/consents', console: '/console' } as const;

/**
 * Signs in through the sign-in form on a new page of a browser without cookies; lands on "My
 * consents" (the dashboard) or the list of organisations (the console).
 * @param chrome - the browser, `d.chrome` unless given.
 * @param front - whose sign-in form: `/dashboard/sign-in` (default) or `/console/sign-in`.
 * @returns the page.
 */
export async function signInPage(
  d: Dashboard,
  user: { username: string; password: string },
  chrome: TestChromium = d.chrome,
  front: keyof typeof LANDING = 'dashboard',
): Promise<Page> {
  await chrome.context.clearCookies();
  const page = await chrome.context.newPage();
  await page.goto(`${d.t.url}/${front}/sign-in`);
  await submitSignIn(page, user);
  await page.waitForURL(`${d.t.url}${LANDING[front]}`);
  return page;
}

/** Fills and sends the sign-in form of the page shown. */
export async function submitSignIn(page: Page, user: { username: string; password: string }): Promise<void> {
  await page.getByLabel('E-mail or username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForLoadState();
}

/** The JSON API's view of a user's consent to one data attribute (docs/api.md "Resources" `Status`: Consent, Days, Remaining). */
export async function consentStatus(
  d: Dashboard,
  user: { username: string; password: string },
  purposeId: string,
  attributeId: string,
): Promise<{ Consent: string; Days: number }> {
  const session = await login(d.t, user.username, user.password);
  const res = await call(`${d.t.base}/organizations/${d.orgId}/users/${session.User.ID}/consents`, {
    token: session.Token.access_token,
  });
  expect(res.status).toBe(200);
  const purpose = res.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === purposeId);
  return purpose.Consents.find((a: any) => a.ID === attributeId).Status;
}

/**
 * Changes a user's consent to one data attribute through the JSON API (docs/api.md "Resources", PATCH of an attribute).
 * @param body - `{ consented, days? }`.
 * @returns the user's ID, access token and consent base URL.
 */
export async function changeThroughApi(
  d: Dashboard,
  user: { username: string; password: string },
  purposeId: string,
  attributeId: string,
  body: { consented: string; days?: number },
): Promise<{ userId: string; token: string; consents: string }> {
  const session = await login(d.t, user.username, user.password);
  const token = session.Token.access_token;
  const consents = `${d.t.base}/organizations/${d.orgId}/users/${session.User.ID}/consents`;
  const record = (await call(consents, { token })).body.ID;
  const res = await call(`${consents}/${record}/purposes/${purposeId}/attributes/${attributeId}`, {
    method: 'PATCH',
    token,
    body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { userId: session.User.ID, token, consents };
}

/** Clicks what starts a download, waits for it, and parses the downloaded file as JSON. */
export async function downloadJson(page: Page, click: () => Promise<void>): Promise<{ download: Download; json: any }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const file = await download.path();
  return { download, json: JSON.parse(readFileSync(file, 'utf8')) };
}

/** The value of the session cookie the browser holds, or undefined. */
export async function sessionCookie(d: Dashboard): Promise<string | undefined> {
  return (await d.chrome.context.cookies(d.t.url)).find((c) => c.name === COOKIE)?.value;
}
