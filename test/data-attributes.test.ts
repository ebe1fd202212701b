import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../src/federation/openid/redirect-uris.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;
let url: string;
let marketing: string;
let importedEmail: string;
let globexPurpose: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  t = await startAssent();
  const more = await runImport(
    t.store.db,
    { organisations: [{ key: 'globex', name: 'Globex', purposes: [{ key: 'analytics', name: 'Analytics' }] }] },
    t.config.argon2,
    redirectUriImport,
  );
  globexPurpose = more.organisations.globex!.purposes.analytics!.id;
  const acme = t.ids.organisations.acme!;
  url = `${t.base}/organizations/${acme.id}/templates`;
  marketing = acme.purposes.marketing!.id;
  importedEmail = acme.purposes.marketing!.attributes.email!;
  tokens.owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  tokens.alice = (await login(t, 'alice@acme.example', 'alice-passphrase')).Token.access_token;
});
afterAll(() => t?.stop());

describe('data attributes (templates) of an organisation', () => {
  let delivery: string;
  let phone: string;

  it('lists the attributes the import declared, with their purposes', async () => {
    const res = await call(url, { token: tokens.owner });
    expect(res.status).toBe(200);
    expect(res.body.Templates).toEqual([{ ID: importedEmail, Consent: 'Email address', PurposeIDs: [marketing] }]);
  });

  it('an Owner adds templates linked to one or more purposes (201), keys in any case', async () => {
    const purposes = await call(`${t.base}/organizations/${t.ids.organisations.acme!.id}/purposes`, {
      token: tokens.owner,
      body: { purposes: [{ name: 'Delivery', lawfulusage: true }] },
    });
    delivery = purposes.body.Organization.Purposes.find((p: { Name: string }) => p.Name === 'Delivery').ID;
    const res = await call(url, {
      token: tokens.owner,
      body: { Templates: [{ Consent: 'Phone number', PurposeIDs: [marketing, delivery] }, { consent: 'Shoe size' }] },
    });
    expect(res.status).toBe(201);
    expect(res.body.Templates).toHaveLength(2);
    phone = res.body.Templates[0].ID;
    expect(res.body.Templates[0]).toEqual({ ID: phone, Consent: 'Phone number', PurposeIDs: [marketing, delivery] });
    expect(res.body.Templates[1]).toMatchObject({ Consent: 'Shoe size', PurposeIDs: [] });
  });

  it('a purpose of another organisation, an unknown one or a malformed one is a 400, and nothing is created', async () => {
    const before = (await call(url, { token: tokens.owner })).body.Templates.length;
    for (const purposeids of [[globexPurpose], ['01a20000-0000-7000-8000-000000000000'], ['nope']]) {
      const res = await call(url, {
        token: tokens.owner,
        body: { templates: [{ consent: 'Ok one' }, { consent: 'Bad one', purposeids }] },
      });
      expect(res.status, JSON.stringify(purposeids)).toBe(400);
      expect(res.body.Message).toContain(purposeids[0]);
    }
    expect((await call(url, { token: tokens.owner })).body.Templates.length).toBe(before);
  });

  it('PUT renames a template and replaces its purposes', async () => {
    const res = await call(`${url}/${phone}`, {
      method: 'PUT',
      token: tokens.owner,
      body: { consent: 'Mobile number', purposeids: [delivery] },
    });
    expect(res.status).toBe(200);
    expect(res.body.Template).toEqual({ ID: phone, Consent: 'Mobile number', PurposeIDs: [delivery] });
    const again = await call(`${url}/${phone}`, {
      method: 'PUT',
      token: tokens.owner,
      body: { consent: 'Mobile number', purposeids: [delivery, marketing] },
    });
    expect(again.body.Template.PurposeIDs.sort()).toEqual([delivery, marketing].sort());
  });

  it('a deleted purpose drops out of the templates that named it', async () => {
    await call(`${t.base}/organizations/${t.ids.organisations.acme!.id}/purposes/${delivery}`, {
      method: 'DELETE',
      token: tokens.owner,
    });
    const list = await call(url, { token: tokens.owner });
    expect(list.body.Templates.find((x: { ID: string }) => x.ID === phone).PurposeIDs).toEqual([marketing]);
  });

  it('DELETE answers 204 and the template is gone; again is a 404', async () => {
    expect((await call(`${url}/${phone}`, { method: 'DELETE', token: tokens.owner })).status).toBe(204);
    expect((await call(url, { token: tokens.owner })).body.Templates.map((x: { ID: string }) => x.ID)).not.toContain(
      phone,
    );
    expect((await call(`${url}/${phone}`, { method: 'DELETE', token: tokens.owner })).status).toBe(404);
    expect(
      (await call(`${url}/${phone}`, { method: 'PUT', token: tokens.owner, body: { consent: 'Back' } })).status,
    ).toBe(404);
  });

  it('an individual may neither read nor change templates (403); bad bodies are 400', async () => {
    expect((await call(url, { token: tokens.alice })).status).toBe(403);
    expect((await call(url, { token: tokens.alice, body: { templates: [{ consent: 'x' }] } })).status).toBe(403);
    for (const body of [
      { templates: [] },
      { templates: [{ consent: '' }] },
      { templates: [{ purposeids: [marketing] }] },
    ]) {
      expect((await call(url, { token: tokens.owner, body })).status, JSON.stringify(body)).toBe(400);
    }
  });
});
