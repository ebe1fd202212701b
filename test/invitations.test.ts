/**
 * An existing user joins an organisation only by their own act (docs/consents.md "Invitations"): they
 * subscribe themselves with their own ID, or accept an invitation that the organisation's staff
 * mailed to them. Staff naming a user they do not manage get the 404 of an unknown ID. End to end:
 * a real SMTP server on loopback receives the invitation, and the test follows its link.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, setUpConsentOrg } from './helpers/consent-org.js';
import { waitFor } from './helpers/receiver.js';
import { type Smtp, type SmtpMail, startSmtp } from './helpers/smtp.js';

const TTL = 3600;
let t: TestAssent;
let smtp: Smtp;
let org: ConsentOrg;

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startAssent({ SMTP_URL: smtp.url, ASSENT_INVITATION_TTL_SECONDS: String(TTL) });
  org = await setUpConsentOrg(t);
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

const usersUrl = (orgId = org.orgId, query = '') => `${t.base}/organizations/${orgId}/users${query}`;
const invitationsUrl = (query = '') => `${t.base}/organizations/${org.orgId}/invitations${query}`;
const acceptUrl = () => `${t.base}/user/invitations/accept`;
const count = async () =>
  (await call(usersUrl(org.orgId, '/count'), { token: org.tokens.owner })).body.SubscribeUserCount as number;
const listed = async () =>
  (await call(usersUrl(org.orgId, '?limit=500'), { token: org.tokens.owner })).body.Users.map(
    (u: { ID: string }) => u.ID,
  ) as string[];
const pending = async () =>
  (await call(invitationsUrl(), { token: org.tokens.owner })).body.Invitations as Array<{ ID: string; Email: string }>;

/** Invites `email` as the shop's Owner and returns the invitation and the token of the mailed link. */
async function invite(email: string): Promise<{ id: string; token: string; link: URL; mail: SmtpMail }> {
  const before = smtp.mailsTo(email).length;
  const res = await call(invitationsUrl(), { token: org.tokens.owner, body: { email } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const mails = await waitFor(
    async () => smtp.mailsTo(email),
    (m) => m.length > before,
  );
  const mail = mails.at(-1)!;
  const match = /(https?:\/\/\S+\/invitations\/accept#token=[A-Za-z0-9_-]+)/.exec(mail.text);
  expect(match, mail.text).not.toBeNull();
  const link = new URL(match![1]!);
  return { id: res.body.ID, token: new URLSearchParams(link.hash.slice(1)).get('token')!, link, mail };
}

describe('staff cannot enrol an existing user', () => {
  it('an Owner naming a user of another organisation gets the 404 of an unknown ID, and nothing changes', async () => {
    const before = await count();
    const stranger = await call(usersUrl(), { token: org.tokens.owner, body: { userid: org.users.mallory } });
    const unknown = await call(usersUrl(), {
      token: org.tokens.owner,
      body: { userid: '01a20000-0000-7000-8000-000000000000' },
    });
    expect(stranger.status).toBe(404);
    expect(stranger.body).toEqual(unknown.body);
    expect(stranger.body).not.toHaveProperty('User');
    expect(await count()).toBe(before);
    expect(await listed()).not.toContain(org.users.mallory);
    expect((await call(`${usersUrl()}/${org.users.mallory}/consents`, { token: org.tokens.owner })).status).toBe(404);
    // Staff naming a user they already manage get the answer as before: 200 with the same record.
    const carol = await call(usersUrl(), { token: org.tokens.admin, body: { userid: org.users.carol } });
    expect(carol.status).toBe(200);
    expect(carol.body.User.ID).toBe(org.users.carol);
  });
});

describe('self-subscription', () => {
  it('a user subscribes themselves with their own token and ID (201, then 200 with the same record); their consents are then readable', async () => {
    const made = await call(usersUrl(org.otherOrgId), {
      token: org.tokens.mallory,
      body: { username: 'zoe@other.example', password: 'zoe-own-passphrase', name: 'Zoe' },
    });
    expect(made.status).toBe(201);
    const zoe = await login(t, 'zoe@other.example', 'zoe-own-passphrase');
    const first = await call(usersUrl(), { token: zoe.Token.access_token, body: { userid: zoe.User.ID } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      User: { ID: zoe.User.ID, Name: 'Zoe', Email: '', Phone: '' },
      ConsentID: expect.any(String),
    });
    const again = await call(usersUrl(), { token: zoe.Token.access_token, body: { userid: zoe.User.ID } });
    expect(again.status).toBe(200);
    expect(again.body.ConsentID).toBe(first.body.ConsentID);
    expect((await call(`${usersUrl()}/${zoe.User.ID}/consents`, { token: zoe.Token.access_token })).body.ID).toBe(
      first.body.ConsentID,
    );
    expect(await listed()).toContain(zoe.User.ID);
  });

  it('someone else’s ID is a 403 to a user without a managing role; an unknown organisation is a 404', async () => {
    expect(
      (await call(usersUrl(org.otherOrgId), { token: org.tokens.carol, body: { userid: org.users.dave } })).status,
    ).toBe(403);
    expect(
      (await call(usersUrl(org.orgId), { token: org.tokens.developer, body: { userid: org.users.mallory } })).status,
    ).toBe(403);
    expect(
      (
        await call(usersUrl('01a20000-0000-7000-8000-000000000000'), {
          token: org.tokens.carol,
          body: { userid: org.users.carol },
        })
      ).status,
    ).toBe(404);
    expect(await listed()).not.toContain(org.users.mallory);
  });
});

describe('invitations', () => {
  it('the Owner invites an address; the mail links to a page; the invited user accepts with their own token and is subscribed; audited', async () => {
    const { id, token, link, mail } = await invite('mallory@other.example');
    expect(mail.subject).toBe('Invitation to join Shop');
    expect(link.origin + link.pathname).toBe(`${t.url}/invitations/accept`);
    expect(token.length).toBeGreaterThanOrEqual(22); // ≥ 128 bits in base64url
    const page = await fetch(`${t.url}/invitations/accept`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('../v1/user/invitations/accept');
    const listedInvitation = (await pending()).find((i) => i.ID === id)!;
    expect(listedInvitation).toMatchObject({ Email: 'mallory@other.example', CreatedBy: org.users.owner });
    const ttl =
      (Date.parse((listedInvitation as any).ExpiresAt) - Date.parse((listedInvitation as any).CreatedAt)) / 1000;
    expect(ttl).toBeCloseTo(TTL, 0);
    // The database holds only a hash of the token.
    const { rows } = await t.store.raw(`SELECT encode(token_hash, 'hex') AS hash FROM invitations WHERE id = $1`, [id]);
    expect((rows[0] as { hash: string }).hash).not.toContain(Buffer.from(token).toString('hex'));

    const accepted = await call(acceptUrl(), { token: org.tokens.mallory, body: { token } });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toEqual({ Org: { OrgID: org.orgId, Name: 'Shop' }, ConsentID: expect.any(String) });
    expect(await listed()).toContain(org.users.mallory);
    const record = await call(`${usersUrl()}/${org.users.mallory}/consents`, { token: org.tokens.owner });
    expect(record.body.ID).toBe(accepted.body.ConsentID);
    expect((await pending()).map((i) => i.ID)).not.toContain(id);
    const log = (await call(`${t.base}/organizations/${org.orgId}/audit-log`, { token: org.tokens.owner })).body
      .Entries;
    expect(log.slice(0, 2)).toMatchObject([
      { Action: 'invitation.accept', ActorUserID: org.users.mallory, Detail: { invitationId: id } },
      {
        Action: 'invitation.create',
        ActorUserID: org.users.owner,
        Detail: { invitationId: id, email: 'mallory@other.example' },
      },
    ]);
    expect(JSON.stringify(log)).not.toContain(token);

    // Single use: accepting again, by anyone, is a 400 and changes nothing.
    const before = await count();
    const twice = await call(acceptUrl(), { token: org.tokens.mallory, body: { token } });
    expect(twice.status).toBe(400);
    expect(twice.body.Message).toMatch(/not valid/);
    expect((await call(acceptUrl(), { token: org.tokens.dave, body: { token } })).status).toBe(400);
    expect(await count()).toBe(before);
  });

  it('a revoked, an expired and a wrong token are 400s and change nothing; revoking twice is a 404', async () => {
    const revoked = await invite('revoked@elsewhere.example');
    expect((await call(invitationsUrl(`/${revoked.id}`), { method: 'DELETE', token: org.tokens.admin })).status).toBe(
      204,
    );
    expect((await call(invitationsUrl(`/${revoked.id}`), { method: 'DELETE', token: org.tokens.admin })).status).toBe(
      404,
    );
    expect((await pending()).map((i) => i.ID)).not.toContain(revoked.id);
    const expired = await invite('late@elsewhere.example');
    await t.store.raw(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
    const before = await count();
    const answers = {
      revoked: await call(acceptUrl(), { token: org.tokens.dave, body: { token: revoked.token } }),
      expired: await call(acceptUrl(), { token: org.tokens.dave, body: { token: expired.token } }),
      wrong: await call(acceptUrl(), { token: org.tokens.dave, body: { token: `${expired.token.slice(0, -2)}xx` } }),
    };
    for (const [what, res] of Object.entries(answers)) expect(res.status, what).toBe(400);
    expect(answers.expired.body.Message).toMatch(/expired/);
    expect(answers.revoked.body.Message).toMatch(/not valid/);
    expect(await count()).toBe(before);
    const log = (await call(`${t.base}/organizations/${org.orgId}/audit-log?limit=3`, { token: org.tokens.owner })).body
      .Entries;
    expect(log.map((e: { Action: string }) => e.Action)).toEqual([
      'invitation.create',
      'invitation.revoke',
      'invitation.create',
    ]);
  });

  it('only the Owner or Admin invite, list and revoke; accepting needs an access token, not an API key; a malformed address is a 400', async () => {
    for (const who of ['dpo', 'developer', 'carol', 'mallory']) {
      expect(
        (await call(invitationsUrl(), { token: org.tokens[who], body: { email: 'x@elsewhere.example' } })).status,
        who,
      ).toBe(403);
      expect((await call(invitationsUrl(), { token: org.tokens[who] })).status, who).toBe(403);
    }
    const { id, token } = await invite('keyholder@elsewhere.example');
    expect((await call(invitationsUrl(`/${id}`), { method: 'DELETE', token: org.tokens.developer })).status).toBe(403);
    expect((await call(acceptUrl(), { token: org.apiKeys.dave, scheme: 'ApiKey', body: { token } })).status).toBe(401);
    expect((await call(acceptUrl(), { body: { token } })).status).toBe(401);
    for (const email of ['not-an-address', 'two@a.example, three@b.example', 'x@y.example\r\nBcc: z@w.example']) {
      const res = await call(invitationsUrl(), { token: org.tokens.owner, body: { email } });
      expect(res.status, email).toBe(400);
      expect(res.body.Code).toBe(400);
    }
  });

  it('a refused mail is a 502 and stores nothing', async () => {
    const before = (await pending()).length;
    smtp.refuseWith = 554;
    try {
      const res = await call(invitationsUrl(), {
        token: org.tokens.owner,
        body: { email: 'bounce@elsewhere.example' },
      });
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ Code: 502, Message: expect.stringMatching(/could not be sent/) });
    } finally {
      smtp.refuseWith = null;
    }
    expect((await pending()).length).toBe(before);
  });
});
