/**
 * An organisation's staff (docs/staff.md): the list with roles; invitations with roles mailed through a real SMTP
 * server on loopback, accepted by an existing account of the invited address or by creating one; role changes and
 * removals by an Owner only; the last Owner protected; nobody raising their own roles; every change in the audit log
 * with its actor's e-mail. Both stores.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, login, type TestAssent } from './helpers/assent.js';
import { CONSENT_PASSWORD, type ConsentOrg, mailingConsentSuite } from './helpers/consent-org.js';
import { waitFor } from './helpers/receiver.js';
import type { Smtp } from './helpers/smtp.js';
import { webSignIn } from './helpers/web-client.js';

const s = mailingConsentSuite();
let t: TestAssent;
let org: ConsentOrg;
let smtp: Smtp;
beforeAll(() => {
  ({ t, org, smtp } = s);
});

const api = (path: string, orgId = org.orgId) => `${t.base}/organizations/${orgId}${path}`;
type Member = { ID: string; Username: string; Roles: Array<{ RoleID: number; Role: string }> };
const staff = async (token = org.tokens.owner): Promise<Member[]> => {
  const res = await call(api('/admins'), { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.Admins;
};
const rolesOf = async (userId: string, token = org.tokens.owner) =>
  (await staff(token)).find((m) => m.ID === userId)?.Roles.map((r) => r.RoleID);
const audit = async (query: string) => {
  const res = await call(api(`/audit-log${query}`), { token: org.tokens.owner });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.Entries as Array<Record<string, unknown>>;
};

/** Invites `email` with `roles` as the Owner; returns the invitation and the mailed token. */
async function invite(email: string, roles: number[]): Promise<{ id: string; token: string }> {
  const before = smtp.mailsTo(email).length;
  const res = await call(api('/admins'), { token: org.tokens.owner, body: { email, roles } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body).toMatchObject({ Email: email, Roles: roles, CreatedBy: org.users.owner });
  const mails = await waitFor(
    async () => smtp.mailsTo(email),
    (m) => m.length > before,
  );
  const match = /\/staff-invitations\/accept#token=([A-Za-z0-9_-]+)/.exec(mails.at(-1)!.text);
  expect(match, mails.at(-1)!.text).not.toBeNull();
  return { id: res.body.ID, token: match![1]! };
}

describe('the staff list', () => {
  it('Owner, Admin and Dpo read the staff with their roles; a Developer gets 403', async () => {
    for (const who of ['owner', 'admin', 'dpo']) {
      const list = await staff(org.tokens[who]);
      const byName = Object.fromEntries(list.map((m) => [m.Username, m.Roles.map((r) => r.Role)]));
      expect(byName).toMatchObject({
        'shop-owner@shop.example': ['Owner'],
        'shop-admin@shop.example': ['Admin'],
        'shop-dpo@shop.example': ['Dpo'],
        'shop-dev@shop.example': ['Developer'],
      });
      expect(byName).not.toHaveProperty('carol@shop.example');
    }
    expect((await call(api('/admins'), { token: org.tokens.developer })).status).toBe(403);
    expect((await call(api('/admins'), { token: org.tokens.mallory })).status).toBe(403);
  });
});

describe('inviting staff', () => {
  it('a new person creates an account from the link and joins with the invited roles; the link then works no more', async () => {
    const email = 'new-dpo@shop.example';
    const { id, token } = await invite(email, [2, 3]);
    const pending = await call(api('/admins/invitations'), { token: org.tokens.owner });
    expect(pending.body.Invitations.map((i: { ID: string }) => i.ID)).toContain(id);

    const joined = await call(`${t.base}/staff-invitations/register`, {
      body: { token, name: 'New Dpo', password: 'a fresh staff passphrase' },
    });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    expect(joined.body.Org).toEqual({ OrgID: org.orgId, Name: 'Shop' });
    expect(joined.body.Staff).toMatchObject({ Username: email, Email: email, Name: 'New Dpo' });
    expect(joined.body.Staff.Roles.map((r: { Role: string }) => r.Role)).toEqual(['Dpo', 'Developer']);

    const signedIn = await login(t, email, 'a fresh staff passphrase');
    expect((await call(api('/audit-log?limit=1'), { token: signedIn.Token.access_token })).status).toBe(200);
    expect(await rolesOf(joined.body.Staff.ID)).toEqual([2, 3]);

    const again = await call(`${t.base}/staff-invitations/register`, {
      body: { token, name: 'Someone', password: 'another staff passphrase' },
    });
    expect(again.status).toBe(400);
    expect(again.body.Message).toMatch(/not valid/);
    const left = await call(api('/admins/invitations'), { token: org.tokens.owner });
    expect(left.body.Invitations.map((i: { ID: string }) => i.ID)).not.toContain(id);

    const [invited] = await audit(`?action=staff.invite&target=${id}`);
    expect(invited).toMatchObject({ ActorEmail: 'shop-owner@shop.example', Detail: { email, roles: [2, 3] } });
    const [join] = await audit(`?action=staff.join&target=${joined.body.Staff.ID}`);
    expect(join).toMatchObject({
      ActorUserID: joined.body.Staff.ID,
      ActorEmail: email,
      Changes: { roles: { old: [], new: [2, 3] } },
    });
  });

  it('an existing account of the invited address accepts with its own token and keeps its other roles', async () => {
    const { token } = await invite('carol@shop.example', [1]);
    const accepted = await call(`${t.base}/user/staff-invitations/accept`, {
      token: org.tokens.carol,
      body: { token },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(await rolesOf(org.users.carol!)).toEqual([1]);
    // Carol, now Admin, reads the organisation's configuration with the same token.
    expect((await call(api('/admins'), { token: org.tokens.carol })).status).toBe(200);
  });

  it('a link for one address cannot be accepted by another account, nor used to register an existing username', async () => {
    const { id, token } = await invite('dave@shop.example', [4]);
    const wrong = await call(`${t.base}/user/staff-invitations/accept`, { token: org.tokens.mallory, body: { token } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.Message).toMatch(/another e-mail address/);
    const taken = await call(`${t.base}/staff-invitations/register`, {
      body: { token, name: 'Not Dave', password: 'an intruder passphrase' },
    });
    expect(taken.status).toBe(409);
    expect(await rolesOf(org.users.dave!)).toBeUndefined();
    expect(await rolesOf(org.users.mallory!)).toBeUndefined();
    // Still pending: Dave himself can accept it.
    const pending = await call(api('/admins/invitations'), { token: org.tokens.owner });
    expect(pending.body.Invitations.map((i: { ID: string }) => i.ID)).toContain(id);
    const revoked = await call(api(`/admins/invitations/${id}`), { method: 'DELETE', token: org.tokens.owner });
    expect(revoked.status).toBe(204);
    const late = await call(`${t.base}/user/staff-invitations/accept`, { token: org.tokens.dave, body: { token } });
    expect(late.status).toBe(400);
    expect(await rolesOf(org.users.dave!)).toBeUndefined();
    expect((await audit(`?action=staff.invitation.revoke&target=${id}`)).length).toBe(1);
  });

  it('a token of an individual’s invitation is no staff invitation, and a staff token does not subscribe', async () => {
    const { token } = await invite('staff-only@shop.example', [3]);
    const asIndividual = await call(`${t.base}/user/invitations/accept`, {
      token: org.tokens.mallory,
      body: { token },
    });
    expect(asIndividual.status).toBe(400);
  });

  it('bad input is a 400 and sends nothing: no role, an unknown role, not an address', async () => {
    const mails = smtp.mails.length;
    for (const body of [
      { email: 'x@shop.example', roles: [] },
      { email: 'x@shop.example', roles: [5] },
      { email: 'not an address', roles: [1] },
      { email: 'x@shop.example' },
    ]) {
      const res = await call(api('/admins'), { token: org.tokens.owner, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.Message).toBeTruthy();
    }
    expect(smtp.mails.length).toBe(mails);
  });
});

describe('only an Owner manages staff, with an access token', () => {
  it('an Admin, a Dpo and an Owner’s API key are refused, and nothing changes', async () => {
    const before = (await audit('?action=staff.')).length;
    const body = { email: 'refused@shop.example', roles: [1] };
    expect((await call(api('/admins'), { token: org.tokens.admin, body })).status).toBe(403);
    expect((await call(api('/admins'), { token: org.tokens.dpo, body })).status).toBe(403);
    const key = { token: org.apiKeys.owner, scheme: 'ApiKey' };
    expect((await call(api('/admins'), { ...key, body })).status).toBe(401);
    const put = { method: 'PUT', body: { roles: [4] } };
    expect((await call(api(`/admins/${org.users.admin}`), { ...put, token: org.tokens.admin })).status).toBe(403);
    expect((await call(api(`/admins/${org.users.dpo}`), { ...put, ...key })).status).toBe(401);
    expect(await rolesOf(org.users.admin!)).toEqual([1]);
    expect(await rolesOf(org.users.dpo!)).toEqual([2]);
    expect((await audit('?action=staff.')).length).toBe(before);
  });
});

describe('the console’s Staff page', () => {
  it('shows the staff to a Dpo without forms, and to an Owner with them', async () => {
    const dpo = await webSignIn(t, { username: 'shop-dpo@shop.example', password: CONSENT_PASSWORD });
    const page = await dpo.get(`/console/${org.orgId}/staff`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('shop-owner@shop.example');
    expect(html).not.toContain('Send the invitation');
    const owner = await webSignIn(t, { username: 'shop-owner@shop.example', password: CONSENT_PASSWORD });
    const full = await (await owner.get(`/console/${org.orgId}/staff`)).text();
    expect(full).toContain('Send the invitation');
    expect(full).toContain('Save roles');
    // The Developer has no Staff entry and no page.
    const dev = await webSignIn(t, { username: 'shop-dev@shop.example', password: CONSENT_PASSWORD });
    expect((await dev.get(`/console/${org.orgId}/staff`)).status).toBe(403);
  });

  it('an Owner invites, revokes, and is refused beside the form: no role ticked, the last Owner demoted', async () => {
    const owner = await webSignIn(t, { username: 'shop-owner@shop.example', password: CONSENT_PASSWORD });
    const path = `/console/${org.orgId}/staff`;
    const email = 'console-invite@shop.example';
    const sent = await owner.post(`${path}/invite`, { email, roles: ['2', '3'], _csrf: await owner.csrf() });
    expect(sent.status).toBe(303);
    expect(sent.headers.get('location')).toBe(`${path}?done=invited`);
    await waitFor(
      async () => smtp.mailsTo(email),
      (m) => m.length > 0,
    );
    const pending = await call(api('/admins/invitations'), { token: org.tokens.owner });
    const invitation = pending.body.Invitations.find((i: { Email: string }) => i.Email === email);
    expect(invitation.Roles).toEqual([2, 3]);
    const [entry] = await audit(`?action=staff.invite&target=${invitation.ID}`);
    expect(entry).toMatchObject({ Source: 'console', ActorEmail: 'shop-owner@shop.example' });

    const none = await owner.post(`${path}/invite`, { email: 'nobody@shop.example', _csrf: await owner.csrf() });
    expect(none.status).toBe(400);
    const noneHtml = await none.text();
    expect(noneHtml).toContain('roles must name at least one role');
    expect(noneHtml).toContain('value="nobody@shop.example"');

    const demote = await owner.post(`${path}/${org.users.owner}`, { roles: ['1'], _csrf: await owner.csrf() });
    expect(demote.status).toBe(409);
    expect(await demote.text()).toContain('last Owner');
    const unconfirmed = await owner.post(`${path}/${org.users.developer}/remove`, { _csrf: await owner.csrf() });
    expect(unconfirmed.status).toBe(400);
    expect(await rolesOf(org.users.developer!)).toEqual([3]);

    const revoked = await owner.post(`${path}/invitations/${invitation.ID}/revoke`, { _csrf: await owner.csrf() });
    expect(revoked.status).toBe(303);
    const after = await call(api('/admins/invitations'), { token: org.tokens.owner });
    expect(after.body.Invitations.map((i: { ID: string }) => i.ID)).not.toContain(invitation.ID);
  });
});

describe('changing roles and removing staff', () => {
  it('an Owner changes a member’s roles, audited with the roles before and after', async () => {
    const res = await call(api(`/admins/${org.users.dpo}`), {
      method: 'PUT',
      token: org.tokens.owner,
      body: { roles: [2, 1] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.Roles).toEqual([
      { RoleID: 1, Role: 'Admin' },
      { RoleID: 2, Role: 'Dpo' },
    ]);
    const [entry] = await audit(`?action=staff.roles.update&target=${org.users.dpo}`);
    expect(entry).toMatchObject({
      ActorEmail: 'shop-owner@shop.example',
      TargetType: 'staff',
      Changes: { roles: { old: [2], new: [1, 2] } },
    });
    // The new role counts at once: the Dpo, now also Admin, reads the transports (Owner or Admin only).
    const transports = await call(api('/notification-transports'), { token: org.tokens.dpo });
    expect(transports.status).toBe(200);
  });

  it('the last Owner can be neither demoted nor removed; nobody adds roles to themselves', async () => {
    const demote = await call(api(`/admins/${org.users.owner}`), {
      method: 'PUT',
      token: org.tokens.owner,
      body: { roles: [1] },
    });
    expect(demote.status).toBe(409);
    expect(demote.body.Message).toMatch(/last Owner/);
    const remove = await call(api(`/admins/${org.users.owner}`), { method: 'DELETE', token: org.tokens.owner });
    expect(remove.status).toBe(409);
    const raise = await call(api(`/admins/${org.users.owner}`), {
      method: 'PUT',
      token: org.tokens.owner,
      body: { roles: [4, 1] },
    });
    expect(raise.status).toBe(403);
    expect(await rolesOf(org.users.owner!)).toEqual([4]);
  });

  it('with a second Owner, the first may step down; removing a member ends their access at once', async () => {
    const promoted = await call(api(`/admins/${org.users.admin}`), {
      method: 'PUT',
      token: org.tokens.owner,
      body: { roles: [4] },
    });
    expect(promoted.status).toBe(200);
    // The new Owner removes the first one, who loses access with their still-live token.
    const removed = await call(api(`/admins/${org.users.owner}`), { method: 'DELETE', token: org.tokens.admin });
    expect(removed.status).toBe(204);
    expect((await call(api('/admins'), { token: org.tokens.owner })).status).toBe(403);
    expect((await call(api('/audit-log'), { token: org.tokens.owner })).status).toBe(403);
    const log = await call(api(`/audit-log?action=staff.remove&target=${org.users.owner}`), {
      token: org.tokens.admin,
    });
    expect(log.body.Entries[0]).toMatchObject({
      ActorEmail: 'shop-admin@shop.example',
      Changes: { roles: { old: [4], new: [] } },
    });
    // A user who is not staff here is not found, whatever the body.
    const unknown = await call(api('/admins/01a20000-0000-7000-8000-000000000000'), {
      method: 'PUT',
      token: org.tokens.admin,
      body: { roles: [1] },
    });
    expect(unknown.status).toBe(404);
  });
});

describe('the last Owner under concurrency', () => {
  it('two Owners removing each other at once: one succeeds, an Owner always remains', async () => {
    // The Admin became the only Owner above; they make the Dpo an Owner too.
    const made = await call(api(`/admins/${org.users.dpo}`), {
      method: 'PUT',
      token: org.tokens.admin,
      body: { roles: [4] },
    });
    expect(made.status).toBe(200);
    const [a, b] = await Promise.all([
      call(api(`/admins/${org.users.dpo}`), { method: 'DELETE', token: org.tokens.admin }),
      call(api(`/admins/${org.users.admin}`), { method: 'DELETE', token: org.tokens.dpo }),
    ]);
    expect([a.status, b.status].filter((x) => x === 204)).toHaveLength(1);
    expect([a.status, b.status].every((x) => [204, 403, 409].includes(x))).toBe(true);
    const survivor = a.status === 204 ? org.tokens.admin : org.tokens.dpo;
    const owners = [await rolesOf(org.users.admin!, survivor), await rolesOf(org.users.dpo!, survivor)].filter((r) =>
      r?.includes(4),
    );
    expect(owners).toHaveLength(1);
  });
});

describe('the link page', () => {
  it('is served without framing, with a CSP allowing only its own script, and posts to the two endpoints', async () => {
    const res = await fetch(`${t.url}/staff-invitations/accept`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'sha256-/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const html = await res.text();
    expect(html).toContain('../v1/staff-invitations/register');
    expect(html).toContain('../v1/user/staff-invitations/accept');
  });
});
