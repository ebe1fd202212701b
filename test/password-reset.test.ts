/**
 * Password reset with the current session (docs/api.md "User management"; docs/decisions/0011-passwords-and-reset.md):
 * `POST` and `PUT {base}/user/password/reset`, with a bearer access token only; the policy; other
 * sessions ended; a notice by mail (a real SMTP server on loopback).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { loginStatus, newUser, resetPassword, storedHash } from './helpers/passwords.js';
import { DEFAULT_CLIENT, me, refresh } from './helpers/session.js';
import { type Smtp, startSmtp } from './helpers/smtp.js';

let t: TestAssent;
let smtp: Smtp;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startAssent({ SMTP_URL: smtp.url });
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

describe('password reset with the current session', () => {
  it('POST with the right currentpassword answers 200 with no body; the new password signs in, the old one fails; an argon2id hash is stored', async () => {
    const user = await newUser(t, 'rhea');
    const before = await storedHash(t, user.id);
    const { Token } = await login(t, user.username, user.password);
    const res = await resetPassword(t, Token.access_token, {
      password: 'rhea-second-passphrase',
      currentpassword: user.password,
    });
    expect(res.status).toBe(200);
    expect(res.body).toBeNull(); // empty body
    expect(res.headers.get('content-length')).toBe('0');
    const after = await storedHash(t, user.id);
    expect(after).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(after).not.toBe(before);
    expect(await loginStatus(t, user.username, user.password)).toBe(401);
    expect(await loginStatus(t, user.username, 'rhea-second-passphrase')).toBe(200);
  });

  it('PUT is the same operation (docs/api.md "Path aliases")', async () => {
    const user = await newUser(t, 'pia');
    const { Token } = await login(t, user.username, user.password);
    const res = await resetPassword(
      t,
      Token.access_token,
      { password: 'pia-second-passphrase', currentpassword: user.password },
      { method: 'PUT' },
    );
    expect(res.status).toBe(200);
    expect(await loginStatus(t, user.username, 'pia-second-passphrase')).toBe(200);
    expect(await loginStatus(t, user.username, user.password)).toBe(401);
  });

  it('revokes every other refresh-token family of the user and keeps the calling session', async () => {
    const user = await newUser(t, 'sven');
    const caller = await login(t, user.username, user.password);
    const other = await login(t, user.username, user.password);
    const third = await login(t, user.username, user.password);
    expect((await resetPassword(t, caller.Token.access_token, { password: 'sven-second-passphrase' })).status).toBe(
      200,
    );
    for (const session of [other, third]) {
      expect((await me(t, session.Token.access_token)).status).toBe(401);
      const r = await refresh(t, { refreshtoken: session.Token.refresh_token, clientid: DEFAULT_CLIENT });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_grant');
    }
    expect((await me(t, caller.Token.access_token)).status).toBe(200);
    const rotated = await refresh(t, { refreshtoken: caller.Token.refresh_token, clientid: DEFAULT_CLIENT });
    expect(rotated.status).toBe(200);
  });

  it('an API key is refused (401), under both schemes, and so is a request without a credential; the password stays', async () => {
    const user = await newUser(t, 'ada');
    const { User } = await login(t, user.username, user.password);
    for (const scheme of ['Bearer', 'ApiKey']) {
      const res = await resetPassword(
        t,
        User.APIKey,
        { password: 'ada-second-passphrase', currentpassword: user.password },
        { scheme },
      );
      expect(res.status, scheme).toBe(401);
      expect(res.body.Message).toMatch(/access token, not an API key/);
    }
    expect((await resetPassword(t, undefined, { password: 'ada-second-passphrase' })).status).toBe(401);
    expect(await loginStatus(t, user.username, user.password)).toBe(200);
  });

  it('a wrong currentpassword is a 400 saying so (not 401: the session is fine), and nothing changes', async () => {
    const user = await newUser(t, 'ines');
    const session = await login(t, user.username, user.password);
    const other = await login(t, user.username, user.password);
    const res = await resetPassword(t, session.Token.access_token, {
      password: 'ines-second-passphrase',
      currentpassword: 'not-the-current-one',
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ Code: 400, Message: 'The current password is wrong' });
    expect(await loginStatus(t, user.username, user.password)).toBe(200);
    expect((await me(t, other.Token.access_token)).status).toBe(200);
  });

  it('wrong currentpasswords count as failed logins: past the threshold the answer is 429 with Retry-After, before any check', async () => {
    const user = await newUser(t, 'olga');
    const { Token } = await login(t, user.username, user.password);
    // ASSENT_ACCOUNT_DELAY_AFTER is 3: the fourth attempt comes during the one-second delay.
    for (let i = 0; i < 3; i++)
      expect(
        (
          await resetPassword(t, Token.access_token, {
            password: 'olga-second-passphrase',
            currentpassword: `wrong-${i}-passphrase`,
          })
        ).status,
      ).toBe(400);
    const blocked = await resetPassword(t, Token.access_token, {
      password: 'olga-second-passphrase',
      currentpassword: user.password,
    });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await loginStatus(t, user.username, user.password)).toBe(429);
    await new Promise((r) => setTimeout(r, Number(blocked.headers.get('retry-after')) * 1000 + 100));
    expect(
      (
        await resetPassword(t, Token.access_token, {
          password: 'olga-second-passphrase',
          currentpassword: user.password,
        })
      ).status,
    ).toBe(200);
  });

  it('without currentpassword the access token alone suffices (docs/api.md "User management": the body is the password alone)', async () => {
    const user = await newUser(t, 'ugo');
    const { Token } = await login(t, user.username, user.password);
    expect((await resetPassword(t, Token.access_token, { password: 'ugo-second-passphrase' })).status).toBe(200);
    expect(await loginStatus(t, user.username, 'ugo-second-passphrase')).toBe(200);
  });

  it('the policy applies: a refused password is a 400 whose Message names the rule, and the password stays', async () => {
    const user = await newUser(t, 'vera');
    const { Token } = await login(t, user.username, user.password);
    const cases: Array<[string, RegExp]> = [
      ['short', /^Password policy \(minimum length\): .*at least 8 characters; this one has 5$/],
      ['x'.repeat(129), /^Password policy \(maximum length\): .*at most 128 characters; this one has 129$/],
      ['Password1', /^Password policy \(common passwords\)/],
      ['vera@acme.example', /^Password policy \(context-specific words\)/],
      ['', /^Password policy \(minimum length\)/],
    ];
    for (const [password, message] of cases) {
      const res = await resetPassword(t, Token.access_token, { password, currentpassword: user.password });
      expect(res.status, password).toBe(400);
      expect(res.body.Message, password).toMatch(message);
    }
    expect(await loginStatus(t, user.username, user.password)).toBe(200);
  });

  it('mails a notice to the user’s address after the change; a user without an address gets none', async () => {
    const before = smtp.mails.length;
    const silent = await newUser(t, 'nomail', { email: false });
    const silentSession = await login(t, silent.username, silent.password);
    expect(
      (await resetPassword(t, silentSession.Token.access_token, { password: 'nomail-second-passphrase' })).status,
    ).toBe(200);
    const user = await newUser(t, 'wendy');
    const { Token } = await login(t, user.username, user.password);
    expect(
      (
        await resetPassword(t, Token.access_token, {
          password: 'wendy-second-passphrase',
          currentpassword: user.password,
        })
      ).status,
    ).toBe(200);
    const [notice] = await smtp.waitForMails(user.email, 1);
    expect(notice).toBeDefined();
    expect(notice!.subject).toBe('Your password was changed');
    expect(notice!.text).toContain('"wendy@acme.example"');
    expect(notice!.text).toMatch(/every other session of the account was signed out/);
    expect(notice!.raw).not.toContain('wendy-second-passphrase');
    // Since the first change, only Wendy's notice was sent: none for the user without an address (not to
    // its username either). Earlier tests' notices are mailed after their answers and may still arrive
    // in this window, so only this test's two users are counted.
    const recipients = smtp.mails
      .slice(before)
      .flatMap((m) => m.to)
      .filter((to) => to.startsWith('nomail@') || to.startsWith('wendy@'));
    expect(recipients).toEqual([user.email]);
  });

  it('is in the OpenAPI document (POST and PUT), with the bearer scheme', async () => {
    const doc = (await call(`${t.url}/openapi.json`)).body;
    for (const method of ['post', 'put']) {
      const op = doc.paths['/v1/user/password/reset'][method];
      expect(op.security).toEqual([{ bearer: [] }]);
      expect(Object.keys(op.requestBody.content['application/json'].schema.properties).sort()).toEqual([
        'currentpassword',
        'password',
      ]);
    }
  });
});
