/**
 * Second factors through the API (docs/api.md "Second factor"; docs/security.md "Second factors"): a TOTP
 * authenticator enrolled by QR code and confirmed with a code that otplib computes as an app would; the logins'
 * two-step answer (401 `mfa_required` with an `mfa_token`, completed at `POST {base}/users/login/mfa`); a code used
 * once per time step; recovery codes used once and mailed about; wrong codes throttled; removal only after a recent
 * sign-in, ending the other sessions; staff changes in the audit log. Both stores; mail through a real SMTP server.
 */
import { sql } from 'drizzle-orm';
import { generate } from 'otplib';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, login, type TestAssent } from './helpers/assent.js';
import { CONSENT_PASSWORD, type ConsentOrg, mailingConsentSuite } from './helpers/consent-org.js';
import { waitFor } from './helpers/receiver.js';
import type { Smtp } from './helpers/smtp.js';

const s = mailingConsentSuite();
let t: TestAssent;
let org: ConsentOrg;
let smtp: Smtp;
beforeAll(() => {
  ({ t, org, smtp } = s);
});

const u = (path: string) => `${t.base}${path}`;
/**
 * A code of the authenticator for the step `offset` steps from now (-1, 0 or 1: the skew accepted). Waits out the
 * last second of a step, so that the code's step cannot pass while it travels.
 */
async function codeAt(secret: string, offset: -1 | 0 | 1): Promise<string> {
  if (Date.now() % 30_000 > 29_000) await new Promise((r) => setTimeout(r, 1_100));
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * offset });
}
/** Enrols `token`'s user: starts, confirms with the previous step's code; returns the secret and recovery codes. */
async function enrol(token: string): Promise<{ secret: string; codes: string[] }> {
  const started = await call(u('/user/mfa/totp'), { method: 'POST', token });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const secret = started.body.Secret as string;
  const confirmed = await call(u('/user/mfa/totp/confirm'), { token, body: { code: await codeAt(secret, -1) } });
  expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
  return { secret, codes: confirmed.body.RecoveryCodes };
}
const password = (username: string) => ({ username, password: CONSENT_PASSWORD });

describe('enrolling an authenticator app', () => {
  it('answers the secret, its otpauth URI and a QR code drawn as SVG; a wrong code confirms nothing', async () => {
    const token = org.tokens.dave!;
    const started = await call(u('/user/mfa/totp'), { method: 'POST', token });
    expect(started.status).toBe(200);
    expect(started.body.Secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(started.body.URI).toMatch(/^otpauth:\/\/totp\/127\.0\.0\.1:dave%40shop\.example\?secret=[A-Z2-7]{32}/);
    expect(started.body.QRCodeSVG).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const wrong = await call(u('/user/mfa/totp/confirm'), { token, body: { code: '000000' } });
    expect(wrong.status).toBe(400);
    expect((await call(u('/user/mfa'), { token })).body.TOTP.Enabled).toBe(false);
    // Until confirmed, the login is as before.
    expect((await call(u('/v1.1/users/login'), { body: password('dave@shop.example') })).status).toBe(200);
  });

  it('an API key can read the factors but not enrol one', async () => {
    const key = { token: org.apiKeys.dave, scheme: 'ApiKey' };
    expect((await call(u('/user/mfa'), key)).status).toBe(200);
    expect((await call(u('/user/mfa/totp'), { ...key, method: 'POST' })).status).toBe(401);
  });
});

describe('signing in with a second factor', () => {
  let secret: string;
  let codes: string[];
  beforeAll(async () => {
    ({ secret, codes } = await enrol(org.tokens.carol!));
  });

  it('every password login answers 401 mfa_required with an mfa_token; the code completes it as that login', async () => {
    const first = await call(u('/v1.1/users/login'), { body: password('carol@shop.example') });
    expect(first.status).toBe(401);
    expect(first.body).toMatchObject({ Code: 401, error: 'mfa_required' });
    expect(first.body.Message).toMatch(/second factor is required/);
    expect(first.body.mfa_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.body).not.toHaveProperty('Token');
    const done = await call(u('/users/login/mfa'), {
      body: { mfa_token: first.body.mfa_token, code: await codeAt(secret, 0) },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.User.ID).toBe(org.users.carol);
    expect(done.body.Token.access_token).toBeTruthy();

    // The old login answers the Token alone, after its second step too; the same step's code is not taken twice.
    const old = await call(u('/users/login'), { body: password('carol@shop.example') });
    expect(old.status).toBe(401);
    const replay = await call(u('/users/login/mfa'), {
      body: { mfa_token: old.body.mfa_token, code: await codeAt(secret, 0) },
    });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    const later = await call(u('/users/login/mfa'), {
      body: { mfa_token: old.body.mfa_token, code: await codeAt(secret, 1) },
    });
    expect(later.status, JSON.stringify(later.body)).toBe(200);
    expect(later.body.access_token).toBeTruthy();
    expect(later.body).not.toHaveProperty('User');
    // A token completes one login only.
    const again = await call(u('/users/login/mfa'), {
      body: { mfa_token: old.body.mfa_token, recoverycode: codes[0] },
    });
    expect(again.status).toBe(400);
  });

  it('a recovery code works once, and its use is mailed to the person', async () => {
    const before = smtp.mailsTo('carol@shop.example').length;
    const start = await call(u('/v1.1/users/login'), { body: password('carol@shop.example') });
    const used = await call(u('/users/login/mfa'), {
      body: { mfa_token: start.body.mfa_token, recoverycode: codes[1]!.toUpperCase() },
    });
    expect(used.status, JSON.stringify(used.body)).toBe(200);
    const mails = await waitFor(
      async () => smtp.mailsTo('carol@shop.example'),
      (m) => m.length > before,
    );
    expect(mails.at(-1)!.subject).toBe('A recovery code of your account was used');
    expect(mails.at(-1)!.text).toContain('9 unused codes left');
    const status = await call(u('/user/mfa'), { token: used.body.Token.access_token });
    expect(status.body).toMatchObject({ TOTP: { Enabled: true }, RecoveryCodesLeft: 9 });
    const next = await call(u('/v1.1/users/login'), { body: password('carol@shop.example') });
    const twice = await call(u('/users/login/mfa'), {
      body: { mfa_token: next.body.mfa_token, recoverycode: codes[1] },
    });
    expect(twice.status).toBe(400);
  });

  it('an expired mfa_token is refused, even with a right code', async () => {
    const start = await call(u('/v1.1/users/login'), { body: password('carol@shop.example') });
    await t.store.db.execute(sql`UPDATE mfa_challenges SET expires_at = now() - interval '1 second'`);
    const late = await call(u('/users/login/mfa'), {
      body: { mfa_token: start.body.mfa_token, recoverycode: codes[2] },
    });
    expect(late.status).toBe(400);
    expect(late.body.Message).toMatch(/expired/);
  });
});

describe('guessing codes', () => {
  it('wrong codes are throttled as logins are: after three, even the right code waits (429)', async () => {
    const { secret } = await enrol(org.tokens.developer!);
    const start = await call(u('/v1.1/users/login'), { body: password('shop-dev@shop.example') });
    expect(start.status).toBe(401);
    // The right code first: the wrong ones then follow at once, within the first delay (1 s).
    const right = await codeAt(secret, 0);
    for (const code of ['111111', '222222', '333333']) {
      const wrong = await call(u('/users/login/mfa'), { body: { mfa_token: start.body.mfa_token, code } });
      expect(wrong.status).toBe(400);
    }
    const blocked = await call(u('/users/login/mfa'), {
      body: { mfa_token: start.body.mfa_token, code: right },
    });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('removing the authenticator', () => {
  it('needs a sign-in of the last 5 minutes, then ends every other session; staff changes are audited', async () => {
    const { secret } = await enrol(org.tokens.dpo!);
    const other = org.tokens.dpo!; // the session of the test's first login
    const start = await call(u('/v1.1/users/login'), { body: password('shop-dpo@shop.example') });
    const current = await call(u('/users/login/mfa'), {
      body: { mfa_token: start.body.mfa_token, code: await codeAt(secret, 0) },
    });
    const token = current.body.Token.access_token as string;
    // The first session signed in long ago (as far as the rule goes): it may not remove the factor.
    await t.store.db.execute(
      sql`UPDATE token_families SET authenticated_at = now() - interval '10 minutes' WHERE user_id = ${org.users.dpo}`,
    );
    const stale = await call(u('/user/mfa/totp'), { method: 'DELETE', token });
    expect(stale.status).toBe(401);
    expect(stale.body.Message).toMatch(/recent sign-in/);
    const noCode = await call(u('/user/reauthenticate'), { token, body: { password: CONSENT_PASSWORD } });
    expect(noCode.status).toBe(401);
    const reauth = await call(u('/user/reauthenticate'), {
      token,
      body: { password: CONSENT_PASSWORD, code: await codeAt(secret, 1) },
    });
    expect(reauth.status, JSON.stringify(reauth.body)).toBe(204);
    const removed = await call(u('/user/mfa/totp'), { method: 'DELETE', token });
    expect(removed.status).toBe(204);
    expect((await call(u('/user'), { token: other })).status).toBe(401);
    expect((await call(u('/user'), { token })).status).toBe(200);
    expect((await login(t, 'shop-dpo@shop.example', CONSENT_PASSWORD)).Token.access_token).toBeTruthy();

    const log = await call(`${t.base}/organizations/${org.orgId}/audit-log?action=mfa.&target=${org.users.dpo}`, {
      token: org.tokens.owner,
    });
    expect(log.body.Entries.map((e: { Action: string }) => e.Action)).toEqual(['mfa.totp.remove', 'mfa.totp.enrol']);
    expect(log.body.Entries[0]).toMatchObject({ ActorEmail: 'shop-dpo@shop.example', TargetType: 'staff' });
    // An individual's factors are not in any organisation's log.
    const carol = await call(`${t.base}/organizations/${org.orgId}/audit-log?target=${org.users.carol}&action=mfa.`, {
      token: org.tokens.owner,
    });
    expect(carol.body.Entries).toEqual([]);
  });
});
