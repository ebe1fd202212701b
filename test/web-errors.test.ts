/**
 * The web front ends' error answers (docs/web.md "CSRF and other browser threats", "Sign-in"):
 * `next` is only ever a safe same-origin path, an unknown path below a front end is that front end's
 * 404 page, and a web route's failure is an HTML page without internals; the API keeps its JSON.
 */
import { describe, expect, it } from 'vitest';
import { startAssent } from './helpers/assent.js';
import { CONSENT_PASSWORD, consoleSuite, setUpConsentOrg } from './helpers/consent-org.js';
import { webClient, webSignIn } from './helpers/web-client.js';

const s = consoleSuite();
const OWNER = { username: 'shop-owner@shop.example', password: CONSENT_PASSWORD };

/** `next` values that are no safe same-origin path below the front end. */
const UNSAFE_NEXT = (base: string) => [
  `${base}/\r\nX-Injected: 1`,
  `${base}/\nSet-Cookie: a=b`,

  `${base}/caf\u00e9`,
  `${base}/a b`,
  `${base}/../v1/users`,
  `${base}/#frag`,
  '//evil.example/x',
  'https://evil.example/',
];

/** Asserts an HTML page of the front end: status, language, title, brand; no framework or stack text. */
async function expectPage(res: Response, status: number, brand: string): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await res.text();
  expect(html).toMatch(/^<!doctype html><html lang="en">/);
  expect(html).toMatch(new RegExp(`<title>[^<]+ · ${brand} · Assent</title>`));
  expect(html).toContain(`Assent · ${brand}`);
  expect(html).not.toMatch(/ERR_|FST_|"statusCode"|Internal Server Error|\.js:\d+/);
  return html;
}

describe('web sign-in: next is a safe same-origin path or the front end’s home', () => {
  it('refuses next with CR/LF and other unsafe paths on GET, signed in: a 303 to the home, no header injected', async () => {
    const browser = await webSignIn(s.t, OWNER);
    for (const base of ['/dashboard', '/console'])
      for (const next of UNSAFE_NEXT(base)) {
        const res = await browser.get(`${base}/sign-in?next=${encodeURIComponent(next)}`);
        expect(res.status, next).toBe(303);
        expect(res.headers.get('location'), next).toBe(base);
        expect(res.headers.get('x-injected')).toBeNull();
      }
  });

  it('refuses them on the signed-out page too: the form carries the home as next', async () => {
    const html = await (
      await webClient(s.t).get(`/console/sign-in?next=${encodeURIComponent('/console/\r\nX: 1')}`)
    ).text();
    expect(html).toContain('name="next" value="/console"');
  });

  it('refuses them on POST: the new session’s cookie is set and the browser goes to the home', async () => {
    for (const base of ['/dashboard', '/console'])
      for (const next of UNSAFE_NEXT(base)) {
        const browser = webClient(s.t);
        const res = await browser.post(`${base}/sign-in`, { ...OWNER, next });
        expect(res.status, next).toBe(303);
        expect(res.headers.get('location'), next).toBe(base);
        expect(browser.cookie, next).toMatch(/^assent-web=./);
        expect((await browser.get('/dashboard/data')).status).toBe(200);
      }
  });

  it('keeps a safe next with its query', async () => {
    const next = `/console/${s.org.orgId}/individuals?search=carol&limit=10`;
    const res = await webClient(s.t).post('/console/sign-in', { ...OWNER, next });
    expect(res.headers.get('location')).toBe(next);
  });
});

describe('unknown paths below a front end answer its 404 page', () => {
  it('an unknown path or method below /dashboard is the dashboard’s HTML 404', async () => {
    const browser = webClient(s.t);
    await expectPage(await browser.get('/dashboard/nothing-here'), 404, 'Privacy dashboard');
    await expectPage(await browser.get('/dashboard/consents/a/b/c/d/e'), 404, 'Privacy dashboard');
    const put = await fetch(`${s.t.url}/dashboard/consents`, { method: 'PUT' });
    await expectPage(put, 404, 'Privacy dashboard');
  });

  it('an unknown path or method below /console is the console’s HTML 404, signed in or not', async () => {
    await expectPage(await webClient(s.t).get('/console/nothing/here'), 404, 'Console');
    const owner = await s.as(OWNER.username);
    const html = await expectPage(await owner.get(`/console/${s.org.orgId}/no-such-page`), 404, 'Console');
    expect(html).toContain('href="/console"');
    const del = await fetch(`${s.t.url}/console/sign-in`, { method: 'DELETE' });
    await expectPage(del, 404, 'Console');
  });

  it('the API’s unknown paths stay JSON', async () => {
    for (const path of ['/v1/nothing-here', '/dashboards', '/consoles/x']) {
      const res = await fetch(`${s.t.url}${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }
  });
});

describe('a web route’s unexpected error', () => {
  it('answers the front end’s HTML 500 page without internals, and the API its JSON', async () => {
    // A server of its own whose store is closed under it: every query then fails, unexpectedly.
    const t = await startAssent();
    try {
      await setUpConsentOrg(t);
      const browser = await webSignIn(t, OWNER);
      const token = await browser.csrf();
      await t.store.close();
      const page = await browser.get('/console');
      const html = await expectPage(page, 500, 'Console');
      expect(html).toContain('Something went wrong on our side.');
      expect(html).not.toMatch(/closed|pool|PGlite/i);
      const post = await browser.post('/dashboard/data/profile', { name: 'X', phone: '', _csrf: token });
      await expectPage(post, 500, 'Privacy dashboard');
      const api = await fetch(`${t.base}/v1.1/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'a', password: 'b' }),
      });
      expect(api.headers.get('content-type')).toMatch(/^application\/json/);
    } finally {
      await t.stop();
    }
  });
});
