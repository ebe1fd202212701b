/**
 * Passkeys in Chromium (docs/security.md "Passkeys"), with the DevTools protocol's virtual authenticator
 * (`WebAuthn.addVirtualAuthenticator`: CTAP2, internal, resident keys, user verification): a passkey added on the
 * dashboard's Security page (the first factor shows ten recovery codes), a sign-in with the passkey alone, the
 * password sign-in's second step answered with it, and its removal after the password and a recovery code; on the
 * console too, a staff member adds one and signs in with it alone. The server runs at `localhost` (WebAuthn refuses
 * an IP address as the relying party). Both stores.
 *
 * Without /usr/bin/chromium the file is skipped with a message, unless ASSENT_REQUIRE_BROWSER=1.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, browserGate, watchErrors } from './helpers/chromium.js';
import { ALICE, type Dashboard, OWNER, startDashboard, submitSignIn } from './helpers/web.js';

browserGate('passkeys-browser.test.ts');

describe.skipIf(!browserAvailable)('passkeys in Chromium', () => {
  let d: Dashboard;
  let origin: string;
  beforeAll(async () => {
    d = await startDashboard({ env: { ASSENT_PUBLIC_URL: 'http://localhost:{port}' } });
    origin = d.t.config.publicUrl;
  });
  afterAll(() => d?.stop());

  /** A new tab with a virtual authenticator of its own (one per tab, as a device would be). */
  async function tabWithAuthenticator(): Promise<Page> {
    const page = await d.chrome.context.newPage();
    const cdp = await d.chrome.context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return page;
  }

  it('the dashboard: add a passkey, sign in with it alone, answer the second step with it, remove it', async () => {
    await d.chrome.context.clearCookies();
    const page = await tabWithAuthenticator();
    const errors = watchErrors(page);
    await page.goto(`${origin}/dashboard/sign-in`);
    await submitSignIn(page, ALICE);
    await page.goto(`${origin}/dashboard/security`);
    await page.getByLabel('Name of the new passkey').fill('Laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    const codes = await page.locator('#recovery-codes code').allTextContents();
    expect(codes).toHaveLength(10);
    await page.goto(`${origin}/dashboard/security`);
    await expect(page.locator('ul.passkeys strong').allTextContents()).resolves.toEqual(['Laptop']);

    // Signed out, the passkey alone signs in.
    await d.chrome.context.clearCookies();
    await page.goto(`${origin}/dashboard/sign-in`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${origin}/dashboard/consents`);

    // The password now asks for a second step, which the passkey answers.
    await d.chrome.context.clearCookies();
    await page.goto(`${origin}/dashboard/sign-in`);
    await submitSignIn(page, ALICE);
    await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
    await page.getByRole('button', { name: 'Use a passkey instead' }).click();
    await page.waitForURL(`${origin}/dashboard/consents`);

    // Removal asks for the password and a code (here a recovery code).
    await page.goto(`${origin}/dashboard/security`);
    const remove = page.locator('ul.passkeys form').nth(1);
    await remove.getByLabel('Your password').fill(ALICE.password);
    await remove.getByLabel('A code of your authenticator app, or a recovery code').fill(codes[0]!);
    await remove.getByRole('button', { name: 'Remove this passkey' }).click();
    await page.waitForURL(`${origin}/dashboard/security?done=passkey-removed`);
    expect(await page.locator('ul.passkeys li').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the console: a staff member adds a passkey and signs in with it alone', async () => {
    await d.chrome.context.clearCookies();
    const page = await tabWithAuthenticator();
    await page.goto(`${origin}/console/sign-in`);
    await submitSignIn(page, OWNER);
    await page.goto(`${origin}/console/security`);
    await page.getByLabel('Name of the new passkey').fill('Office key');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
    await d.chrome.context.clearCookies();
    await page.goto(`${origin}/console/sign-in`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${origin}/console`);
    await page.getByRole('heading', { name: 'Organisations' }).waitFor();

    // The JSON API with the same passkey: a sign-in alone, and the second step of the password login.
    await page.goto(`${origin}/console/security`);
    const api = await page.evaluate(async (owner) => {
      const lib = (window as unknown as { SimpleWebAuthnBrowser: any }).SimpleWebAuthnBrowser;
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`/v1${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      };
      const options = await post('/users/login/passkey-options', {});
      const alone = await post('/users/login/passkey', {
        response: await lib.startAuthentication({ optionsJSON: options.body }),
      });
      const first = await post('/v1.1/users/login', owner);
      const stepOptions = await post('/users/login/mfa/passkey-options', { mfa_token: first.body.mfa_token });
      const second = await post('/users/login/mfa', {
        mfa_token: first.body.mfa_token,
        passkey: await lib.startAuthentication({ optionsJSON: stepOptions.body }),
      });
      // A used challenge is refused: the same answer again.
      const replay = await post('/users/login/passkey', {
        response: await lib.startAuthentication({ optionsJSON: options.body }),
      });
      return { alone, first, second, replay };
    }, OWNER);
    expect(api.alone.status, JSON.stringify(api.alone.body)).toBe(200);
    expect(api.alone.body.User.Name).toBeTruthy();
    expect(api.first.status).toBe(401);
    expect(api.first.body.error).toBe('mfa_required');
    expect(api.second.status, JSON.stringify(api.second.body)).toBe(200);
    expect(api.second.body.Token.access_token).toBeTruthy();
    expect(api.replay.status).toBe(401);

    // The staff member's passkey is in the organisation's audit log.
    const token = api.second.body.Token.access_token as string;
    const log = await fetch(`${d.t.base}/organizations/${d.orgId}/audit-log?action=mfa.passkey.`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const entries = ((await log.json()) as { Entries: Array<{ Action: string; ActorEmail: string }> }).Entries;
    expect(entries.map((e) => e.Action)).toEqual(['mfa.passkey.add']);
    await page.close();
  });
});
