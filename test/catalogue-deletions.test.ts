/**
 * Deleting a purpose or a data attribute (docs/consents.md "Consent records", docs/web.md "Console"):
 * the console asks for a ticked confirmation box first, as for unsubscribing an individual, and the
 * console and the API's `DELETE` both record the same organisation audit entry, with the actor and
 * what was deleted, in the deletion's transaction.
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { consoleSuite } from './helpers/consent-org.js';

const s = consoleSuite();
const api = (path: string) => `${s.t.base}/organizations/${s.org.orgId}${path}`;
const console_ = (path: string) => `/console/${s.org.orgId}${path}`;
/** The organisation audit log's entries of one action, newest first. */
const audit = async (action: string) =>
  (await call(api(`/audit-log?action=${action}`), { token: s.org.tokens.owner })).body.Entries as Array<{
    ActorUserID: string;
    ActorAPIKeyID: string;
    Detail: Record<string, unknown>;
  }>;
const purposeNames = async () =>
  ((await call(api('/purposes'), { token: s.org.tokens.owner })).body.Purposes as Array<{ Name: string }>).map(
    (p) => p.Name,
  );
const templateNames = async () =>
  ((await call(api('/templates'), { token: s.org.tokens.owner })).body.Templates as Array<{ Consent: string }>).map(
    (t) => t.Consent,
  );
async function newPurpose(name: string): Promise<string> {
  const res = await call(api('/purposes'), { body: { purposes: [{ name }] }, token: s.org.tokens.owner });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return (res.body.Organization.Purposes as Array<{ ID: string; Name: string }>).find((p) => p.Name === name)!.ID;
}
async function newTemplate(consent: string): Promise<string> {
  const res = await call(api('/templates'), { body: { templates: [{ consent }] }, token: s.org.tokens.owner });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return (res.body.Templates as Array<{ ID: string }>)[0]!.ID;
}

describe('console: deleting a purpose or data attribute takes a confirmation and is audited', () => {
  it('the delete forms carry a required confirmation box naming what is deleted', async () => {
    const id = await newPurpose('Shown with its box');
    const owner = await s.as('shop-owner@shop.example');
    const html = await (await owner.get(console_('/organisation'))).text();
    const form = new RegExp(
      `<form method="post" action="${console_(`/purposes/${id}/delete`)}">([\\s\\S]*?)</form>`,
    ).exec(html)![1]!;
    expect(form).toMatch(
      /<input id="[^"]+" type="checkbox" name="confirm" value="on" required\/> I confirm: delete Shown with its box\./,
    );
  });

  it('a purpose is not deleted before the box is ticked; once confirmed it is, with the entry purpose.delete', async () => {
    const id = await newPurpose('Deleted from the console');
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    const unconfirmed = await owner.post(console_(`/purposes/${id}/delete`), { _csrf: token });
    expect(unconfirmed.status).toBe(400);
    expect(await purposeNames()).toContain('Deleted from the console');
    expect((await audit('purpose.delete')).map((e) => e.Detail.purposeId)).not.toContain(id);
    const confirmed = await owner.post(console_(`/purposes/${id}/delete`), { _csrf: token, confirm: 'on' });
    expect(confirmed.status).toBe(303);
    expect(await purposeNames()).not.toContain('Deleted from the console');
    const [entry] = await audit('purpose.delete');
    expect(entry).toMatchObject({
      ActorUserID: s.org.users.owner,
      ActorAPIKeyID: '',
      Detail: { purposeId: id, name: 'Deleted from the console' },
    });
  });

  it('a data attribute likewise, with the entry template.delete', async () => {
    const id = await newTemplate('Shoe size');
    const admin = await s.as('shop-admin@shop.example');
    const token = await admin.csrf();
    expect((await admin.post(console_(`/attributes/${id}/delete`), { _csrf: token })).status).toBe(400);
    expect(await templateNames()).toContain('Shoe size');
    expect(await audit('template.delete')).toEqual([]);
    expect((await admin.post(console_(`/attributes/${id}/delete`), { _csrf: token, confirm: 'on' })).status).toBe(303);
    expect(await templateNames()).not.toContain('Shoe size');
    const [entry] = await audit('template.delete');
    expect(entry).toMatchObject({ ActorUserID: s.org.users.admin, Detail: { templateId: id, name: 'Shoe size' } });
  });
});

describe('API: DELETE of a purpose or template records the same entry', () => {
  it('DELETE …/purposes/{id} with an API key records purpose.delete with the user and the key', async () => {
    const id = await newPurpose('Deleted through the API');
    const res = await call(api(`/purposes/${id}`), {
      method: 'DELETE',
      token: s.org.apiKeys.owner,
      scheme: 'ApiKey',
    });
    expect(res.status).toBe(204);
    const [entry] = await audit('purpose.delete');
    expect(entry).toMatchObject({
      ActorUserID: s.org.users.owner,
      Detail: { purposeId: id, name: 'Deleted through the API' },
    });
    expect(entry!.ActorAPIKeyID).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('DELETE …/templates/{id} records template.delete; deleting it again is a 404 and records nothing', async () => {
    const id = await newTemplate('Hat size');
    const del = () => call(api(`/templates/${id}`), { method: 'DELETE', token: s.org.tokens.admin });
    expect((await del()).status).toBe(204);
    const entries = await audit('template.delete');
    expect(entries[0]).toMatchObject({ ActorUserID: s.org.users.admin, Detail: { templateId: id, name: 'Hat size' } });
    expect((await del()).status).toBe(404);
    expect(await audit('template.delete')).toHaveLength(entries.length);
  });
});
