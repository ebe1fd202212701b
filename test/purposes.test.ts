import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../src/federation/openid/redirect-uris.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;
let acme: string;
let globex: string;
let globexPurpose: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  t = await startAssent();
  const more = await runImport(
    t.store.db,
    {
      organisations: [
        {
          key: 'acme',
          name: 'Acme',
          location: 'Stockholm',
          type: 'Retail',
          admins: [{ username: 'dpo@acme.example', password: 'dpo-passphrase', roles: ['dpo'] }],
        },
        {
          key: 'globex',
          name: 'Globex',
          purposes: [{ key: 'analytics', name: 'Analytics' }],
          admins: [{ username: 'admin@globex.example', password: 'globex-passphrase', roles: ['admin'] }],
        },
      ],
    },
    t.config.argon2,
    redirectUriImport,
  );
  acme = t.ids.organisations.acme!.id;
  globex = more.organisations.globex!.id;
  globexPurpose = more.organisations.globex!.purposes.analytics!.id;
  for (const [who, user, password] of [
    ['owner', 'owner@acme.example', 'owner-passphrase'],
    ['dpo', 'dpo@acme.example', 'dpo-passphrase'],
    ['alice', 'alice@acme.example', 'alice-passphrase'],
    ['globex', 'admin@globex.example', 'globex-passphrase'],
  ])
    tokens[who!] = (await login(t, user!, password!)).Token.access_token;
});
afterAll(() => t?.stop());

const purposesUrl = (org = acme) => `${t.base}/organizations/${org}/purposes`;

describe('purposes of an organisation', () => {
  let created: string;

  it('an Owner adds purposes and gets 201 with the organisation and all its purposes', async () => {
    const res = await call(purposesUrl(), {
      token: tokens.owner,
      body: {
        purposes: [
          {
            name: 'Newsletter',
            description: 'Monthly news',
            lawfulusage: false,
            policyurl: 'https://acme.example/p#news',
          },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.Organization).toMatchObject({
      ID: acme,
      Name: 'Acme',
      Location: 'Stockholm',
      Type: { Type: 'Retail' },
    });
    const names = res.body.Organization.Purposes.map((p: { Name: string }) => p.Name);
    expect(names).toEqual(['Marketing', 'Newsletter']);
    created = res.body.Organization.Purposes[1].ID;
    expect(res.body.Organization.Purposes[1]).toEqual({
      ID: created,
      Name: 'Newsletter',
      Description: 'Monthly news',
      LawfulUsage: false,
      PolicyURL: 'https://acme.example/p#news',
    });
  });

  it('body keys match without regard to case', async () => {
    const res = await call(purposesUrl(), {
      token: tokens.owner,
      body: { Purposes: [{ Name: 'Contract', LawfulUsage: true, PolicyURL: '' }] },
    });
    expect(res.status).toBe(201);
    expect(res.body.Organization.Purposes.at(-1)).toMatchObject({ Name: 'Contract', LawfulUsage: true });
  });

  it('lists, reads and replaces a purpose', async () => {
    const list = await call(purposesUrl(), { token: tokens.owner });
    expect(list.status).toBe(200);
    expect(list.body.Purposes.map((p: { ID: string }) => p.ID)).toContain(created);
    expect((await call(`${purposesUrl()}/${created}`, { token: tokens.owner })).body.Purpose.Name).toBe('Newsletter');
    const put = await call(`${purposesUrl()}/${created}`, {
      method: 'PUT',
      token: tokens.owner,
      body: { name: 'Weekly news', lawfulusage: false },
    });
    expect(put.status).toBe(200);
    expect(put.body.Purpose).toEqual({
      ID: created,
      Name: 'Weekly news',
      Description: '',
      LawfulUsage: false,
      PolicyURL: '',
    });
  });

  it('a Dpo may read the purposes but not change them (403)', async () => {
    expect((await call(purposesUrl(), { token: tokens.dpo })).status).toBe(200);
    const res = await call(purposesUrl(), { token: tokens.dpo, body: { purposes: [{ name: 'Sneaky' }] } });
    expect(res.status).toBe(403);
    expect(res.body.Code).toBe(403);
    expect((await call(`${purposesUrl()}/${created}`, { method: 'DELETE', token: tokens.dpo })).status).toBe(403);
  });

  it('an individual, and an admin of another organisation, get 403', async () => {
    expect((await call(purposesUrl(), { token: tokens.alice })).status).toBe(403);
    expect((await call(purposesUrl(), { token: tokens.globex })).status).toBe(403);
    expect((await call(purposesUrl(), { token: tokens.globex, body: { purposes: [{ name: 'Hijack' }] } })).status).toBe(
      403,
    );
  });

  it('an admin’s API key works like their token', async () => {
    const { User } = await login(t, 'owner@acme.example', 'owner-passphrase');
    expect((await call(purposesUrl(), { token: User.APIKey, scheme: 'ApiKey' })).status).toBe(200);
  });

  it('an unknown or malformed organisation or purpose ID is a 404, and another organisation’s purpose too', async () => {
    expect((await call(purposesUrl('01a20000-0000-7000-8000-000000000000'), { token: tokens.owner })).status).toBe(404);
    expect((await call(purposesUrl('not-an-id'), { token: tokens.owner })).status).toBe(404);
    expect((await call(`${purposesUrl()}/not-an-id`, { token: tokens.owner })).status).toBe(404);
    expect((await call(`${purposesUrl()}/${globexPurpose}`, { token: tokens.owner })).status).toBe(404);
    const put = await call(`${purposesUrl()}/${globexPurpose}`, {
      method: 'PUT',
      token: tokens.owner,
      body: { name: 'Taken over' },
    });
    expect(put.status).toBe(404);
    const theirs = await call(`${purposesUrl(globex)}/${globexPurpose}`, { token: tokens.globex });
    expect(theirs.body.Purpose.Name).toBe('Analytics');
  });

  it('bad input is a 400 and changes nothing', async () => {
    const before = (await call(purposesUrl(), { token: tokens.owner })).body.Purposes;
    for (const body of [
      { purposes: [] },
      { purposes: [{ name: '' }] },
      { purposes: [{ name: 'X', policyurl: 'javascript:alert(1)' }] },
      { purposes: [{ name: 'X', lawfulusage: 'yes' }] },
      {},
    ]) {
      const res = await call(purposesUrl(), { token: tokens.owner, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await call(purposesUrl(), { token: tokens.owner })).body.Purposes).toEqual(before);
  });

  it('deleting answers 204; the purpose is gone from the configuration; deleting again is a 404', async () => {
    expect((await call(`${purposesUrl()}/${created}`, { method: 'DELETE', token: tokens.owner })).status).toBe(204);
    expect((await call(`${purposesUrl()}/${created}`, { token: tokens.owner })).status).toBe(404);
    expect(
      (await call(purposesUrl(), { token: tokens.owner })).body.Purposes.map((p: { ID: string }) => p.ID),
    ).not.toContain(created);
    expect((await call(`${purposesUrl()}/${created}`, { method: 'DELETE', token: tokens.owner })).status).toBe(404);
  });

  it('without a credential every purpose operation is a 401', async () => {
    expect((await call(purposesUrl())).status).toBe(401);
    expect((await call(purposesUrl(), { body: { purposes: [{ name: 'X' }] } })).status).toBe(401);
  });
});
