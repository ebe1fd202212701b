/**
 * Staff adding an individual by username never learn whether the address has an account anywhere in
 * Assent (docs/consents.md "Adding individuals"; OWASP ASVS 5.0 V6.3.8): a new address is created and
 * subscribed, an address with an account elsewhere is invited by mail instead, and both get the same
 * answer, in the API and in the console. A real SMTP server on loopback receives the invitation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { CONSENT_PASSWORD, type ConsentOrg, setUpConsentOrg } from './helpers/consent-org.js';
import { waitFor } from './helpers/receiver.js';
import { type Smtp, startSmtp } from './helpers/smtp.js';
import { webSignIn } from './helpers/web-client.js';

let t: TestAssent;
let smtp: Smtp;
let org: ConsentOrg;
beforeAll(async () => {
  smtp = await startSmtp();
  t = await startAssent({ SMTP_URL: smtp.url });
  org = await setUpConsentOrg(t);
});
afterAll(async () => {
  await t?.stop();
  await smtp?.close();
});

const usersUrl = (query = '') => `${t.base}/organizations/${org.orgId}/users${query}`;
const listedIds = async () =>
  (await call(usersUrl('?limit=500'), { token: org.tokens.owner })).body.Users.map((u: { ID: string }) => u.ID);
const auditLog = async () =>
  (await call(`${t.base}/organizations/${org.orgId}/audit-log?limit=500`, { token: org.tokens.owner })).body
    .Entries as Array<{ Action: string; Detail: unknown }>;
const pendingInvitations = async () =>
  (await call(`${t.base}/organizations/${org.orgId}/invitations`, { token: org.tokens.owner })).body.Invitations;
/** What a staff member can compare between two answers: status, header names and the body with its IDs masked. */
const shapeOf = (res: { status: number; headers: Headers; body: any }) => ({
  status: res.status,
  contentType: res.headers.get('content-type'),
  keys: Object.keys(res.body).sort(),
  userKeys: Object.keys(res.body.User ?? {}).sort(),
  ids: [res.body.User?.ID, res.body.ConsentID].map((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/.test(id)),
});
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('adding an individual by username does not tell whether the address has an account elsewhere (API)', () => {
  it('an unknown address is created and subscribed; another organisation’s user gets the same answer, is mailed an invitation and is subscribed only on accepting', async () => {
    const fields = { name: 'Some One', email: 'contact@shop.example', phone: '+4912345' };
    const fresh = await call(usersUrl(), {
      token: org.tokens.owner,
      body: { username: 'new-one@shop.example', ...fields },
    });
    // Mallory has an account, as the Owner of the other organisation, and is not subscribed here.
    const before = await listedIds();
    const auditBefore = (await auditLog()).length;
    const existing = await call(usersUrl(), {
      token: org.tokens.owner,
      body: { username: 'Mallory@Other.example', ...fields, password: 'a-passphrase-of-the-owner' },
    });

    expect(shapeOf(existing)).toEqual(shapeOf(fresh));
    expect(fresh.status).toBe(201);
    expect(existing.body.User).toEqual({
      ...{ ID: existing.body.User.ID },
      Name: 'Some One',
      Email: fields.email,
      Phone: fields.phone,
    });
    expect(fresh.body.User).toEqual({
      ID: fresh.body.User.ID,
      Name: 'Some One',
      Email: fields.email,
      Phone: fields.phone,
    });
    expect(existing.body.User.ID).toMatch(UUID);
    // Nothing of the other account or its organisation is in the answer.
    const text = JSON.stringify(existing.body);
    for (const secret of [org.users.mallory!, org.otherOrgId, 'Other', 'mallory']) expect(text).not.toContain(secret);

    // The new account is subscribed at once, with its record readable.
    expect(await listedIds()).toContain(fresh.body.User.ID);
    const record = await call(`${usersUrl()}/${fresh.body.User.ID}/consents`, { token: org.tokens.owner });
    expect(record.body.ID).toBe(fresh.body.ConsentID);

    // The existing account is not subscribed; its holder is mailed an invitation (after the answer).
    const mails = await waitFor(
      async () => smtp.mailsTo('mallory@other.example'),
      (m) => m.length > 0,
    );
    expect(mails[0]!.subject).toBe('Invitation to join Shop');
    expect(await listedIds()).toEqual(before);
    expect(await listedIds()).not.toContain(org.users.mallory);
    // Nor does the invitation show in the pending list, nor the audit log tell the outcomes apart.
    expect(await pendingInvitations()).toEqual([]);
    const log = await auditLog();
    expect(log.length - auditBefore).toBe(1);
    expect(log[0]).toMatchObject({ Action: 'individual.add', Detail: { username: 'mallory@other.example' } });
    expect(log.find((e) => (e.Detail as any)?.username === 'new-one@shop.example')).toMatchObject({
      Action: 'individual.add',
    });
    expect(log.some((e) => e.Action === 'invitation.create')).toBe(false);

    // Accepting subscribes the holder of the account, as an invitation does.
    const token = new URLSearchParams(/#(token=[A-Za-z0-9_-]+)/.exec(mails[0]!.text)![1]!).get('token');
    const accepted = await call(`${t.base}/user/invitations/accept`, { token: org.tokens.mallory, body: { token } });
    expect(accepted.status).toBe(201);
    expect(await listedIds()).toContain(org.users.mallory);
  });

  it('an address already subscribed here stays a 409 (staff see their subscribers anyway), and nothing is mailed', async () => {
    const res = await call(usersUrl(), { token: org.tokens.owner, body: { username: 'carol@shop.example' } });
    expect(res.status).toBe(409);
    expect(res.body.Message).toMatch(/already subscribed to this organisation/);
    expect(smtp.mailsTo('carol@shop.example')).toEqual([]);
  });
});

describe('adding an individual by username does not tell whether the address has an account elsewhere (console)', () => {
  it('the add form answers a new address and an existing account alike, and the existing one is invited, not subscribed', async () => {
    // Zed gets an account in the other organisation, through its Owner.
    const other = await call(`${t.base}/organizations/${org.otherOrgId}/users`, {
      token: org.tokens.mallory,
      body: { username: 'zed@other.example', name: 'Zed' },
    });
    expect(other.status).toBe(201);
    const owner = await webSignIn(t, { username: 'shop-owner@shop.example', password: CONSENT_PASSWORD });
    const csrf = await owner.csrf();
    const form = `/console/${org.orgId}/individuals`;
    const posted = [];
    for (const username of ['console-new@shop.example', 'zed@other.example'])
      posted.push(await owner.post(form, { username, name: 'Added', email: '', phone: '', password: '', _csrf: csrf }));
    expect(posted.map((r) => [r.status, r.headers.get('location')])).toEqual([
      [303, `${form}?done=added`],
      [303, `${form}?done=added`],
    ]);
    const page = await (await owner.get(`${form}?done=added`)).text();
    expect(page).toContain('an address that already has an account is mailed an invitation instead');
    await waitFor(
      async () => smtp.mailsTo('zed@other.example'),
      (m) => m.length > 0,
    );
    const added = (await call(usersUrl('?search=Added'), { token: org.tokens.owner })).body.Users;
    expect(added.map((u: { Name: string }) => u.Name)).toEqual(['Added']); // the new account only
    const listed = await listedIds();
    expect(listed).not.toContain(other.body.User.ID);
  });
});
