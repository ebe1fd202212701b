/**
 * Anonymous users (docs/api.md "User management" "Add anonymous user"; docs/api.md "Responses"): created by staff,
 * subscribed with a consent record the organisation's API key can manage, rate-limited per
 * organisation, and upgradable to a full account without losing their consent history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, setUpConsentOrg } from './helpers/consent-org.js';

let t: TestAssent;
let org: ConsentOrg;
const LIMIT = 5;

const anonUrl = (orgId = org.orgId) => `${t.base}/organizations/${orgId}/users/anonymous`;
const create = (token: string, scheme = 'Bearer', body?: unknown, orgId?: string) =>
  call(anonUrl(orgId), { method: 'POST', token, scheme, body });

beforeAll(async () => {
  t = await startAssent({ ASSENT_ANONYMOUS_LIMIT: String(LIMIT) });
  org = await setUpConsentOrg(t);
});
afterAll(() => t?.stop());

describe('adding an anonymous user (docs/api.md "User management")', () => {
  it('answers 201 with a bare User: no e-mail, no password, subscribed to the organisation', async () => {
    const res = await create(org.tokens.owner);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ Name: '', Email: '', Phone: '', Roles: [] });
    expect(res.body.ID).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.User).toBeUndefined(); // bare, not wrapped (docs/api.md "Responses")
    expect(res.body.APIKey).toBeUndefined();
    expect(res.body.Orgs.map((o: any) => o.OrgID)).toEqual([org.orgId]);
    // It has no password: no login can succeed for it.
    const signIn = await call(`${t.base}/v1.1/users/login`, {
      body: { username: `anonymous:${res.body.ID}`, password: 'anything-at-all' },
    });
    expect(signIn.status).toBe(401);
  });

  it('accepts an empty JSON body as well as none', async () => {
    expect((await create(org.tokens.admin, 'Bearer', {})).status).toBe(201);
  });

  it('the developer’s API key that created it can read and change its consents at once', async () => {
    const created = await create(org.apiKeys.developer, 'ApiKey');
    expect(created.status).toBe(201);
    const consents = `${t.base}/organizations/${org.orgId}/users/${created.body.ID}/consents`;
    const record = await call(consents, { token: org.apiKeys.developer, scheme: 'ApiKey' });
    expect(record.status).toBe(200);
    const patch = await call(
      `${consents}/${record.body.ID}/purposes/${org.marketing.id}/attributes/${org.marketing.email}`,
      {
        method: 'PATCH',
        body: { consented: 'Allow', days: 0 },
        token: org.apiKeys.developer,
        scheme: 'ApiKey',
      },
    );
    expect(patch.body).toEqual({ Msg: 'Consent updated successfully', Status: 200 });
  });

  it('only Owner, Admin and Developer may add one: Dpo, an individual and another organisation’s staff get 403', async () => {
    for (const who of ['dpo', 'carol', 'mallory']) expect((await create(org.tokens[who]!)).status, who).toBe(403);
    expect((await call(anonUrl(), { method: 'POST' })).status).toBe(401);
    expect((await create(org.tokens.owner, 'Bearer', undefined, '00000000-0000-4000-8000-000000000000')).status).toBe(
      404,
    );
  });

  it('is rate-limited per organisation (ASVS 5.0 V2.4.1): past the limit 429 with Retry-After; other organisations are not affected', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++)
      statuses.push((await create(org.tokens.mallory!, 'Bearer', {}, org.otherOrgId)).status);
    expect(statuses).toEqual([...Array(LIMIT).fill(201), 429]);
    const refused = await create(org.tokens.mallory!, 'Bearer', {}, org.otherOrgId);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await create(org.tokens.owner)).status).toBe(201); // shop's 4th of 5
  });
});

describe('upgrading an anonymous user to a full account', () => {
  it('keeps the ID, the consent record and the history; the new credentials sign in', async () => {
    const anon = (await create(org.apiKeys.owner!, 'ApiKey')).body;
    const consents = `${t.base}/organizations/${org.orgId}/users/${anon.ID}/consents`;
    const record = (await call(consents, { token: org.apiKeys.owner, scheme: 'ApiKey' })).body;
    const attribute = `${consents}/${record.ID}/purposes/${org.marketing.id}/attributes/${org.marketing.phone}`;
    expect(
      (
        await call(attribute, {
          method: 'PATCH',
          body: { consented: 'Allow', days: 0 },
          token: org.apiKeys.owner,
          scheme: 'ApiKey',
        })
      ).status,
    ).toBe(200);

    const upgradeUrl = `${t.base}/organizations/${org.orgId}/users/${anon.ID}/upgrade`;
    const taken = await call(upgradeUrl, { body: { username: 'carol@shop.example' }, token: org.tokens.owner });
    expect(taken.status).toBe(409);
    const weak = await call(upgradeUrl, {
      body: { username: 'nora@shop.example', password: 'password1' },
      token: org.tokens.owner,
    });
    expect(weak.status).toBe(400);
    expect(weak.body.Message).toMatch(/common/i);
    const res = await call(upgradeUrl, {
      body: {
        username: 'Nora@Shop.example',
        name: 'Nora',
        email: 'nora@shop.example',
        password: 'nora-long-passphrase',
      },
      token: org.tokens.owner,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ID: anon.ID, Name: 'Nora', Email: 'nora@shop.example' });

    const signedIn = await login(t, 'nora@shop.example', 'nora-long-passphrase');
    expect(signedIn.User.ID).toBe(anon.ID);
    const own = await call(consents, { token: signedIn.Token.access_token });
    expect(own.body.ID).toBe(record.ID);
    const phone = own.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === org.marketing.id).Consents.find(
      (c: any) => c.ID === org.marketing.phone,
    );
    expect(phone.Status.Consented).toBe('Allow');
    const history = await call(`${consents}/history`, { token: signedIn.Token.access_token });
    expect(history.status).toBe(200);
    expect(history.body.Events).toHaveLength(1);

    // No longer anonymous: a second upgrade, or one of a full account, is a 404.
    expect((await call(upgradeUrl, { body: { username: 'other@shop.example' }, token: org.tokens.owner })).status).toBe(
      404,
    );
    expect(
      (
        await call(`${t.base}/organizations/${org.orgId}/users/${org.users.carol}/upgrade`, {
          body: { username: 'x@shop.example' },
          token: org.tokens.owner,
        })
      ).status,
    ).toBe(404);
  });
});
