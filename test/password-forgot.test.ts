/**
 * The forgotten-password flow (docs/api.md "User management"; docs/decisions/0011-passwords-and-reset.md), end to end: a real SMTP
 * server on loopback receives the mail, the test follows its link with a real HTTP client, checks
 * the page, and completes the reset as the page's script does.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { complete, forgot, loginStatus, newUser, type TestUser } from './helpers/passwords.js';
import { waitFor } from './helpers/receiver.js';
import { DEFAULT_CLIENT, me, refresh } from './helpers/session.js';
import { type Smtp, type SmtpMail, startSmtp } from './helpers/smtp.js';

/** The text the iOS SDK shows (docs/api.md "Responses"). */
const FORGOT_MSG = 'If an account with this username has an e-mail address, a password-reset link has been sent to it.';

let t: TestAssent;
let smtp: Smtp;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startAssent({ SMTP_URL: smtp.url, ASSENT_FORGOT_PER_USERNAME: '3', ASSENT_FORGOT_PER_IP: '1000' });
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

/** The reset link of a mail. */
function linkOf(mail: SmtpMail): URL {
  const match = /(https?:\/\/\S+\/password\/reset#token=[A-Za-z0-9_-]+)/.exec(mail.text);
  expect(match, mail.text).not.toBeNull();
  return new URL(match![1]!);
}

/** The token in a link's fragment. */
const tokenOf = (link: URL) => new URLSearchParams(link.hash.slice(1)).get('token')!;

/** Asks for a reset link and returns the link of the `nth` (1-based) reset mail to the user. */
async function requestLink(user: TestUser, nth = 1): Promise<URL> {
  const res = await forgot(t, user.username);
  expect(res.status).toBe(200);
  const mails = await waitFor(
    async () => smtp.mailsTo(user.email).filter((m) => m.subject === 'Reset your password'),
    (m) => m.length >= nth,
  );
  expect(mails.length).toBeGreaterThanOrEqual(nth);
  return linkOf(mails[nth - 1]!);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');

/** The reset-token row of a user, if any. */
async function tokenRow(userId: string) {
  const { rows } = await t.store.raw(
    `SELECT encode(token_hash, 'hex') AS hash, extract(epoch FROM expires_at - now())::float8 AS ttl
     FROM password_reset_tokens WHERE user_id = $1`,
    [userId],
  );
  return rows[0] as { hash: string; ttl: number } | undefined;
}

describe('forgotten password: the mail, the page, the completion', () => {
  it('mails a link to Assent’s page; the page (strict CSP, not frameable, no Referer) completes the reset as its script does; then the new password signs in, the old fails, every session is revoked', async () => {
    const user = await newUser(t, 'carla');
    const sessions = [await login(t, user.username, user.password), await login(t, user.username, user.password)];

    const res = await forgot(t, user.username);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ msg: FORGOT_MSG });
    const mails = await smtp.waitForMails(user.email, 1);
    expect(mails[0]!.subject).toBe('Reset your password');
    const link = linkOf(mails[0]!);

    // The token is in the fragment only: a browser never sends it to a server.
    expect(link.origin).toBe(t.url);
    expect(link.pathname).toBe('/password/reset');
    expect(link.search).toBe('');
    const token = tokenOf(link);
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16); // ≥ 128 bits

    // Stored only as its SHA-256, expiring 30 minutes from now.
    const row = (await tokenRow(user.id))!;
    expect(row.hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(row.ttl).toBeGreaterThan(29 * 60);
    expect(row.ttl).toBeLessThanOrEqual(30 * 60);
    const { rows } = await t.store.raw(
      `SELECT count(*)::int AS n FROM password_reset_tokens t WHERE t::text LIKE '%' || $1 || '%'`,
      [token],
    );
    expect((rows[0] as { n: number }).n).toBe(0);

    // The page, fetched with a real HTTP client.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const csp = Object.fromEntries(
      page.headers
        .get('content-security-policy')!
        .split(/;\s*/)
        .map((d) => [d.split(' ')[0], d.split(' ').slice(1)]),
    );
    expect(csp['default-src']).toEqual(["'none'"]);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
    expect(csp['connect-src']).toEqual(["'self'"]);
    expect(csp['base-uri']).toEqual(["'none'"]);
    const html = await page.text();
    // Inline script and style are allowed by their hash only; nothing else runs, nothing is loaded.
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(csp['script-src']).toEqual([`'sha256-${sha256(script)}'`]);
    expect(csp['style-src']).toEqual([`'sha256-${sha256(style)}'`]);
    expect(html).not.toMatch(/\b(?:src|href)\s*=|url\(|@import|https?:\/\//i);
    expect(html).toMatch(/<input id="password" name="password" type="password" autocomplete="new-password"/);
    expect(html).not.toContain(token);

    // Completing as the page does: POST JSON {token, password} to its data-endpoint, relative to the page.
    const endpoint = new URL(/data-endpoint="([^"]+)"/.exec(html)![1]!, link);
    expect(endpoint.href).toBe(`${t.base}/user/password/forgot/complete`);
    const post = (password: string) => call(endpoint.href, { method: 'POST', body: { token, password } });
    // A refused password shows the server's message, and the link stays usable.
    const weak = await post('iloveyou');
    expect(weak.status).toBe(400);
    expect(weak.body.Message).toMatch(/^Password policy \(common passwords\)/);
    const done = await post('carla-recovered-passphrase');
    expect(done.status).toBe(200);
    expect(done.body).toBeNull();

    expect(await loginStatus(t, user.username, 'carla-recovered-passphrase')).toBe(200);
    expect(await loginStatus(t, user.username, user.password)).toBe(401);
    for (const s of sessions) {
      expect((await me(t, s.Token.access_token)).status).toBe(401);
      expect((await refresh(t, { refreshtoken: s.Token.refresh_token, clientid: DEFAULT_CLIENT })).status).toBe(400);
    }

    // Single use.
    const again = await post('carla-third-passphrase');
    expect(again.status).toBe(400);
    expect(again.body.Message).toMatch(/not valid: it was already used, or a newer one was requested/);
    expect(await loginStatus(t, user.username, 'carla-recovered-passphrase')).toBe(200);
    expect(await tokenRow(user.id)).toBeUndefined();

    // And a notice that the password was changed.
    const notices = await waitFor(
      async () => smtp.mailsTo(user.email).filter((m) => m.subject === 'Your password was changed'),
      (m) => m.length >= 1,
    );
    expect(notices[0]!.text).toMatch(/through a password-reset link; every session of the account was signed out/);
  });

  it('a second request invalidates the first link', async () => {
    const user = await newUser(t, 'dora');
    const first = tokenOf(await requestLink(user, 1));
    const second = tokenOf(await requestLink(user, 2));
    expect(second).not.toBe(first);
    const stale = await complete(t, first, 'dora-second-passphrase');
    expect(stale.status).toBe(400);
    expect(stale.body.Message).toMatch(/a newer one was requested/);
    expect((await complete(t, second, 'dora-second-passphrase')).status).toBe(200);
    expect(await loginStatus(t, user.username, 'dora-second-passphrase')).toBe(200);
  });

  it('an expired link (expires_at in the past) is a 400 saying it expired, and the password stays', async () => {
    const user = await newUser(t, 'edda');
    const token = tokenOf(await requestLink(user));
    await t.store.raw(`UPDATE password_reset_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [
      user.id,
    ]);
    const res = await complete(t, token, 'edda-second-passphrase');
    expect(res.status).toBe(400);
    expect(res.body.Message).toMatch(/has expired \(links last 30 minutes\)/);
    expect(await loginStatus(t, user.username, user.password)).toBe(200);
  });

  it('an unknown or malformed token is a 400; a body without a token or password is a 400', async () => {
    const unknown = await complete(t, Buffer.alloc(32, 7).toString('base64url'), 'any-good-passphrase');
    expect(unknown.status).toBe(400);
    expect(unknown.body.Message).toMatch(/not valid/);
    expect((await complete(t, 'x', 'any-good-passphrase')).status).toBe(400);
    expect(
      (await call(`${t.base}/user/password/forgot/complete`, { body: { password: 'any-good-passphrase' } })).status,
    ).toBe(400);
    expect((await call(`${t.base}/user/password/forgot/complete`, { body: { token: 'x' } })).status).toBe(400);
  });

  it('an unknown username, and a user without an e-mail address, get the same 200 {"msg"} answer, and nothing is sent', async () => {
    const known = await newUser(t, 'fritz');
    const without = await newUser(t, 'gaby', { email: false });
    const before = smtp.mails.length;
    const answers = [
      await forgot(t, 'nobody-at-all@acme.example'),
      await forgot(t, without.username),
      await forgot(t, known.username),
    ];
    const shape = (r: (typeof answers)[number]) => ({
      status: r.status,
      body: r.body,
      headers: [...r.headers.keys()].filter((h) => !['date', 'x-request-id'].includes(h)).sort(),
    });
    expect(answers[0]!.body).toEqual({ msg: FORGOT_MSG });
    expect(answers[0]!.headers.get('content-type')).toMatch(/^application\/json/);
    expect(shape(answers[0]!)).toEqual(shape(answers[2]!));
    expect(shape(answers[1]!)).toEqual(shape(answers[2]!));
    await smtp.waitForMails(known.email, 1);
    await new Promise((r) => setTimeout(r, 500)); // room for a stray mail to arrive
    // Only this test's addresses count: earlier tests' mails are sent after their answers and may
    // still arrive in this window.
    const mine = (to: string) => ['fritz@', 'gaby@', 'nobody-at-all@'].some((p) => to.startsWith(p));
    expect(
      smtp.mails
        .slice(before)
        .flatMap((m) => m.to)
        .filter(mine),
    ).toEqual([known.email]);
    const { rows } = await t.store.raw('SELECT count(*)::int AS n FROM password_reset_tokens WHERE user_id = $1', [
      without.id,
    ]);
    expect((rows[0] as { n: number }).n).toBe(0);
  });

  it('a body without a username is a 400', async () => {
    for (const body of [{}, { username: '' }, { username: '   ' }]) {
      const res = await call(`${t.base}/user/password/forgot`, { method: 'PUT', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('answers before the lookup and the mail: a relay that takes 3 s does not delay the 200', async () => {
    const user = await newUser(t, 'hugo');
    smtp.delayMs = 3000;
    try {
      const started = Date.now();
      expect((await forgot(t, user.username)).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1500);
      await smtp.waitForMails(user.email, 1);
    } finally {
      smtp.delayMs = 0;
    }
  });

  it('is rate-limited per username: past 3 requests in the window a 429 with Retry-After, for unknown usernames alike', async () => {
    for (const username of ['ivo@acme.example', 'not-a-user@acme.example']) {
      for (let i = 0; i < 3; i++) expect((await forgot(t, username)).status, `${username} #${i + 1}`).toBe(200);
      const limited = await forgot(t, username.toUpperCase()); // usernames are case-insensitive
      expect(limited.status).toBe(429);
      expect(limited.body.Code).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(900);
    }
  });

  it('is in the OpenAPI document: the request, and the completion with its body schema', async () => {
    const doc = (await call(`${t.url}/openapi.json`)).body;
    expect(doc.paths['/v1/user/password/forgot']).toHaveProperty('put');
    const completion = doc.paths['/v1/user/password/forgot/complete'].post;
    const schema = completion.requestBody.content['application/json'].schema;
    expect(schema.required.sort()).toEqual(['password', 'token']);
    expect(schema.properties.password.description).toMatch(/NIST SP 800-63B/);
    expect(completion.responses).toHaveProperty('200');
    expect(completion.responses).toHaveProperty('400');
  });
});

describe('forgotten password: limits per IP, and the outbox', () => {
  it('is rate-limited per client IP across usernames (429 with Retry-After)', async () => {
    const s = await startAssent({ ASSENT_FORGOT_PER_IP: '3' });
    try {
      for (let i = 0; i < 3; i++) expect((await forgot(s, `someone-${i}@acme.example`)).status).toBe(200);
      const limited = await forgot(s, 'someone-else@acme.example');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await s.stop();
    }
  });

  it('without SMTP_URL the mail with the link goes to the outbox folder (mode 0600)', async () => {
    const s = await startAssent();
    try {
      expect((await forgot(s, 'alice@acme.example')).status).toBe(200);
      const outbox = path.join(s.config.dataDir, 'outbox');
      const files = await waitFor(
        async () => {
          try {
            return readdirSync(outbox);
          } catch {
            return [];
          }
        },
        (f) => f.length > 0,
      );
      expect(files).toHaveLength(1);
      expect(statSync(path.join(outbox, files[0]!)).mode & 0o777).toBe(0o600);
      const text = readFileSync(path.join(outbox, files[0]!), 'utf8');
      expect(text).toMatch(/^To: alice@acme\.example$/m);
      expect(text).toMatch(/password\/reset#token=/);
    } finally {
      await s.stop();
    }
  });
});
