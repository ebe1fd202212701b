/**
 * Second factors in the web front ends (docs/security.md; docs/web.md "Security"): an authenticator app set up on
 * the dashboard's Security page (QR code, key, confirmation, recovery codes shown once); the password sign-in's
 * second step; removal after the password and a code; and the staff policy, which keeps staff without a second factor
 * out of every console page but their Security page until they set one up. Both stores.
 */
import { generate } from 'otplib';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, type TestAssent } from './helpers/assent.js';
import { CONSENT_PASSWORD, type ConsentOrg, consentSuite } from './helpers/consent-org.js';
import { type WebClient, webClient } from './helpers/web-client.js';

const s = consentSuite();
let t: TestAssent;
let org: ConsentOrg;
beforeAll(() => {
  ({ t, org } = s);
});

/** A code of the app `offset` steps from now; waits out the last second of a step. */
async function codeAt(secret: string, offset: -1 | 0 | 1): Promise<string> {
  if (Date.now() % 30_000 > 29_000) await new Promise((r) => setTimeout(r, 1_100));
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * offset });
}
const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1];

/** Signs in through `base`'s form with the password; answers the response (a redirect, or the second step's page). */
async function passwordSignIn(base: string, username: string): Promise<{ web: WebClient; res: Response }> {
  const web = webClient(t);
  const res = await web.post(`${base}/sign-in`, { username, password: CONSENT_PASSWORD, next: `${base}/security` });
  return { web, res };
}

/** Sets up the app for a signed-in browser on `base`'s Security page; answers the secret. */
async function setUp(web: WebClient, base: string, csrf: string): Promise<string> {
  const started = await web.post(`${base}/security/totp`, { _csrf: csrf });
  expect(started.status).toBe(303);
  expect(started.headers.get('location')).toBe(`${base}/security/totp`);
  const page = await (await web.get(`${base}/security/totp`)).text();
  expect(page).toMatch(/<img src="data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+"/);
  const secret = /<code id="totp-secret">([A-Z2-7 ]+)<\/code>/.exec(page)![1]!.replaceAll(' ', '');
  const wrong = await web.post(`${base}/security/totp/confirm`, { code: '000000', _csrf: csrf });
  expect(wrong.status).toBe(400);
  expect(await wrong.text()).toContain('Wrong code');
  const done = await web.post(`${base}/security/totp/confirm`, { code: await codeAt(secret, -1), _csrf: csrf });
  expect(done.status).toBe(200);
  const codes = [...(await done.text()).matchAll(/<li><code>([0-9a-z]{6}(?:-[0-9a-z]{6}){3})<\/code><\/li>/g)];
  expect(codes).toHaveLength(10);
  return secret;
}

describe('the dashboard’s Security page and the second step of the sign-in', () => {
  it('sets up an app, then the sign-in asks for its code; removal needs the password and a code', async () => {
    const first = await passwordSignIn('/dashboard', 'carol@shop.example');
    expect(first.res.status).toBe(303);
    const csrf = await first.web.csrf();
    const secret = await setUp(first.web, '/dashboard', csrf);

    const second = await passwordSignIn('/dashboard', 'carol@shop.example');
    expect(second.res.status).toBe(200);
    expect(second.web.cookie).toBe('');
    const step = await second.res.text();
    expect(step).toContain('Confirm it is you');
    const mfaToken = hidden(step, 'mfa_token')!;
    const wrong = await second.web.post('/dashboard/sign-in/second-factor', { mfa_token: mfaToken, code: '123456' });
    expect(wrong.status).toBe(400);
    expect(second.web.cookie).toBe('');
    const right = await second.web.post('/dashboard/sign-in/second-factor', {
      mfa_token: mfaToken,
      code: await codeAt(secret, 0),
      next: '/dashboard/security',
    });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/dashboard/security');
    expect(second.web.cookie).not.toBe('');
    // A token of the web sign-in does not complete an API login.
    const api = await call(`${t.base}/users/login/mfa`, { body: { mfa_token: mfaToken, code: '000000' } });
    expect(api.status).toBe(400);

    const csrf2 = await second.web.csrf();
    const noCode = await second.web.post('/dashboard/security/totp/remove', {
      password: CONSENT_PASSWORD,
      code: '000000',
      _csrf: csrf2,
    });
    expect(noCode.status).toBe(401);
    const removed = await second.web.post('/dashboard/security/totp/remove', {
      password: CONSENT_PASSWORD,
      code: await codeAt(secret, 1),
      _csrf: csrf2,
    });
    expect(removed.status).toBe(303);
    expect(removed.headers.get('location')).toBe('/dashboard/security?done=removed');
    // The first browser's session ended with the removal; the password alone signs in again.
    expect((await first.web.get('/dashboard/security')).status).toBe(303);
    expect((await passwordSignIn('/dashboard', 'carol@shop.example')).res.status).toBe(303);
  });
});

describe('the staff policy', () => {
  it('an Owner requires a second factor; a Dpo without one reaches only the console’s Security page until set up', async () => {
    const url = `${t.base}/organizations/${org.orgId}/staff-policy`;
    const byAdmin = await call(url, { method: 'PUT', token: org.tokens.admin, body: { staffMfaRequired: true } });
    expect(byAdmin.status).toBe(403);
    const set = await call(url, { method: 'PUT', token: org.tokens.owner, body: { staffMfaRequired: true } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toEqual({ StaffMFARequired: true });
    const log = await call(`${t.base}/organizations/${org.orgId}/audit-log?action=organisation.staff-policy.update`, {
      token: org.tokens.owner,
    });
    expect(log.body.Entries[0]).toMatchObject({ Changes: { staffMfaRequired: { old: false, new: true } } });

    const { web } = await passwordSignIn('/console', 'shop-dpo@shop.example');
    const page = await web.get(`/console/${org.orgId}/organisation`);
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/console/security');
    const security = await (await web.get('/console/security')).text();
    expect(security).toContain('requires a second factor');
    const csrf = hidden(security, '_csrf')!;
    // A form of the console is refused too.
    const form = await web.post(`/console/${org.orgId}/requests`, { purposeid: org.marketing.id, _csrf: csrf });
    expect(form.status).toBe(403);
    // The dashboard is not the console: it stays open.
    expect((await web.get('/dashboard/consents')).status).toBe(200);

    await setUp(web, '/console', csrf);
    expect((await web.get(`/console/${org.orgId}/organisation`)).status).toBe(200);
    // The API's logins are not held back by the policy (it is the console's).
    expect((await call(url, { token: org.tokens.dpo })).body).toEqual({ StaffMFARequired: true });
  });
});

describe('the sign-in pages link to the forgotten-password flow', () => {
  it('both front ends link to their page, which answers alike whether or not the account exists', async () => {
    for (const base of ['/dashboard', '/console']) {
      const web = webClient(t);
      const signIn = await (await web.get(`${base}/sign-in`)).text();
      expect(signIn).toContain(`href="${base}/forgot-password"`);
      expect((await web.get(`${base}/forgot-password`)).status).toBe(200);
      const known = await web.post(`${base}/forgot-password`, { username: 'carol@shop.example' });
      const unknown = await web.post(`${base}/forgot-password`, { username: 'nobody-here@shop.example' });
      expect(known.status).toBe(200);
      expect(unknown.status).toBe(200);
      const [a, b] = [await known.text(), await unknown.text()];
      expect(a).toContain('a password-reset link has been sent');
      expect(a).toBe(b);
    }
  });
});
