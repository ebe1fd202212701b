/**
 * The data export (GDPR Art. 15 and 20; docs/identity.md "Data export (GDPR Art. 15 and 20)"): `GET {base}/user/export`
 * answers one JSON file with everything Assent keeps about the caller, each part as the API presents it, never a
 * secret, never another user's data; `AccountService.exportData` is the same export for the web dashboard.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJson } from '../src/accounts/export.js';
import { EXPORT_CHUNK } from '../src/consent/transfer/export.js';
import { NotFound } from '../src/platform/core/errors.js';
import { rowsOf } from '../src/platform/db/open.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';

const PW = 'consent-test-passphrase';
/** Carol's own session for this file: its tokens and API key must never appear in the export. */
let carol: { access: string; refresh: string; apiKey: string; id: string };
let t: TestAssent;
let org: ConsentOrg;
let acme: { id: string; marketing: string; email: string };

const exportOf = (token?: string, scheme = 'Bearer', query = '') =>
  call(`${t.base}/user/export${query}`, { token, scheme });

/** Every event of a user's history in an organisation, through the paginated history API (newest first). */
async function historyThroughApi(orgId: string, userId: string, token: string): Promise<any[]> {
  const events: any[] = [];
  let url: string | undefined = `${t.base}/organizations/${orgId}/users/${userId}/consents/history?limit=500`;
  while (url) {
    const page = await call(url, { token });
    expect(page.status).toBe(200);
    events.push(...page.body.Events);
    url = page.body.Links.Next;
  }
  return events;
}

beforeAll(async () => {
  t = await startAssent();
  org = await setUpConsentOrg(t);
  const session = await login(t, 'carol@shop.example', PW);
  carol = {
    access: session.Token.access_token,
    refresh: session.Token.refresh_token,
    apiKey: session.User.APIKey,
    id: session.User.ID,
  };
  const demo = t.ids.organisations.acme!;
  acme = { id: demo.id, marketing: demo.purposes.marketing!.id, email: demo.purposes.marketing!.attributes.email! };
  // Carol's second subscription: she subscribes herself to Acme.
  const joined = await call(`${t.base}/organizations/${acme.id}/users`, {
    token: carol.access,
    body: { userid: carol.id },
  });
  expect(joined.status).toBe(201);
  expect(
    (await call(`${t.base}/user`, { method: 'PATCH', token: carol.access, body: { phone: '+46700000042' } })).status,
  ).toBe(200);

  // Her history: more events in Shop than one chunk of the export holds (two per change), with Acme's in between.
  const shop = consentsUrl(t, org, 'carol');
  const shopRecord = await consentIdOf(t, org, 'carol');
  const acmeBase = `${t.base}/organizations/${acme.id}/users/${carol.id}/consents`;
  const acmeRecord = (await call(acmeBase, { token: carol.access })).body.ID as string;
  const values = ['Allow', 'Disallow', 'AskMe'];
  for (let i = 0; i < EXPORT_CHUNK / 2 + 10; i++) {
    const both = await call(`${shop}/${shopRecord}/purposes/${org.marketing.id}`, {
      method: 'PATCH',
      token: carol.access,
      body: {
        consentattributes: [{ attributeid: org.marketing.email }, { attributeid: org.marketing.phone }],
        consented: values[i % 3],
      },
    });
    expect(both.status).toBe(200);
    if (i % 50 === 25) {
      const one = await call(`${acmeBase}/${acmeRecord}/purposes/${acme.marketing}/attributes/${acme.email}`, {
        method: 'PATCH',
        token: carol.access,
        body: { consented: values[i % 3] },
      });
      expect(one.status).toBe(200);
    }
  }
  // Dave, another individual of Shop, changes his own consents: none of it may reach Carol's export.
  const daveRecord = await consentIdOf(t, org, 'dave');
  const dave = await call(
    `${consentsUrl(t, org, 'dave')}/${daveRecord}/purposes/${org.marketing.id}/attributes/${org.marketing.email}`,
    { method: 'PATCH', token: org.tokens.dave, body: { consented: 'Allow' } },
  );
  expect(dave.status).toBe(200);

  // Links to an external identity and a wallet credential, as a federated and a wallet sign-in leave them.
  for (const [who, id] of [
    ['carol', carol.id],
    ['dave', org.users.dave],
  ]) {
    await t.store.db.execute(sql`INSERT INTO federated_identities (org_id, issuer, subject, user_id)
      VALUES (${org.orgId}, 'https://idp.example', ${`${who}-sub`}, ${id})`);
    await t.store.db.execute(sql`INSERT INTO wallet_identities (org_id, issuer, vct, subject, user_id, claims)
      VALUES (${org.orgId}, 'https://issuer.example', 'io.igrant.authenticator', ${`${who}-hash`}, ${id},
        ${JSON.stringify({ email: `${who}@wallet.example` })}::jsonb)`);
  }
}, 120_000);
afterAll(() => t?.stop());

describe('GET {base}/user/export', () => {
  let doc: any;
  let text: string;
  beforeAll(async () => {
    const res = await fetch(`${t.base}/user/export`, { headers: { authorization: `Bearer ${carol.access}` } });
    expect(res.status).toBe(200);
    text = await res.text();
    doc = JSON.parse(text);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="assent-export-${doc.ExportedAt.slice(0, 10)}.json"`,
    );
  });

  it('names its format, its time and its subject, and has every part', () => {
    expect(doc.Format).toBe('assent-export/1');
    expect(doc.Subject).toBe(carol.id);
    expect(Math.abs(Date.parse(doc.ExportedAt) - Date.now())).toBeLessThan(120_000);
    expect(Object.keys(doc).join(' ')).toBe(
      'Format ExportedAt Subject Profile Subscriptions AdminRoles ConsentRecords FederatedIdentities WalletIdentities ' +
        'Sessions APIKeys ConsentHistory',
    );
  });

  it('the profile is the User record of GET {base}/user without the API key, with its creation time', async () => {
    const { APIKey, ...user } = (await call(`${t.base}/user`, { token: carol.access })).body.User;
    expect(APIKey).toBeTruthy();
    expect(doc.Profile).toEqual({ ...user, Created: expect.any(String), Anonymous: false });
    expect(doc.Profile.Phone).toBe('+46700000042');
    expect(doc.Profile.Orgs.map((o: any) => o.OrgID).sort()).toEqual([org.orgId, acme.id].sort());
  });

  it('lists both subscriptions with the organisation’s name and since when, and no admin role', () => {
    expect(doc.Subscriptions).toEqual([
      { OrgID: org.orgId, Name: 'Shop', Since: expect.any(String), EulaAccepted: false },
      { OrgID: acme.id, Name: 'Acme', Since: expect.any(String), EulaAccepted: false },
    ]);
    expect(Date.parse(doc.Subscriptions[0].Since)).toBeLessThanOrEqual(Date.parse(doc.Subscriptions[1].Since));
    expect(doc.AdminRoles).toEqual([]);
  });

  it('each consent record is what GET …/users/{userID}/consents answers', async () => {
    expect(doc.ConsentRecords).toHaveLength(2);
    for (const orgId of [org.orgId, acme.id]) {
      const api = await call(`${t.base}/organizations/${orgId}/users/${carol.id}/consents`, { token: carol.access });
      const exported = doc.ConsentRecords.find((r: any) => r.OrgID === orgId);
      expect(exported).toEqual({ ...api.body, Subscribed: true, Created: expect.any(String) });
    }
  });

  it('the consent history holds every event the history API shows, across organisations, oldest first', async () => {
    const shop = await historyThroughApi(org.orgId, carol.id, carol.access);
    const inAcme = await historyThroughApi(acme.id, carol.id, carol.access);
    expect(shop.length).toBeGreaterThan(EXPORT_CHUNK);
    expect(inAcme.length).toBe(5);
    expect(doc.ConsentHistory).toHaveLength(shop.length + inAcme.length);
    const byId = new Map([
      ...shop.map((e) => [e.ID, { OrgID: org.orgId, ...e }] as const),
      ...inAcme.map((e) => [e.ID, { OrgID: acme.id, ...e }] as const),
    ]);
    for (const event of doc.ConsentHistory) expect(event).toEqual(byId.get(event.ID));
    const times = doc.ConsentHistory.map((e: any) => Date.parse(e.TimeStamp));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Carol alone changed consents meanwhile, so her events of one organisation are consecutive links of its chain.
    for (const orgId of [org.orgId, acme.id]) {
      const chain = doc.ConsentHistory.filter((e: any) => e.OrgID === orgId);
      for (let i = 1; i < chain.length; i++) expect(chain[i].PrevLink).toBe(chain[i - 1].Link);
    }
    // Acme's events lie between Shop's: the two chains are merged by time, not one after the other.
    const firstAcme = doc.ConsentHistory.findIndex((e: any) => e.OrgID === acme.id);
    expect(firstAcme).toBeGreaterThan(0);
    expect(doc.ConsentHistory.at(-1).OrgID).toBe(org.orgId);
  });

  it('lists the links to external and wallet identities, sessions and API keys, without secrets', () => {
    expect(doc.FederatedIdentities).toEqual([
      { OrgID: org.orgId, Issuer: 'https://idp.example', Subject: 'carol-sub', Created: expect.any(String) },
    ]);
    expect(doc.WalletIdentities).toEqual([
      {
        OrgID: org.orgId,
        Issuer: 'https://issuer.example',
        VCT: 'io.igrant.authenticator',
        Subject: 'carol-hash',
        Claims: { email: 'carol@wallet.example' },
        Created: expect.any(String),
        Updated: expect.any(String),
      },
    ]);
    expect(doc.Sessions.length).toBeGreaterThanOrEqual(2);
    for (const s of doc.Sessions)
      expect(Object.keys(s).sort()).toEqual(['ClientID', 'Created', 'Revoked', 'RevokedReason']);
    expect(doc.Sessions[0].ClientID).toBe('igrant-ios-app');
    expect(doc.APIKeys).toEqual([
      { ID: expect.any(String), Created: expect.any(String), Expires: expect.any(String), Revoked: '' },
    ]);
  });

  it('contains no secret: not the password, its hash, the tokens, the API key or its sealed copy', async () => {
    const [row] = rowsOf<{ hash: string; sealed: string }>(
      await t.store.db.execute(sql`SELECT u.password_hash AS hash, k.token_sealed AS sealed
        FROM users u JOIN api_keys k ON k.user_id = u.id WHERE u.id = ${carol.id}`),
    );
    for (const secret of [PW, row!.hash, row!.sealed, carol.access, carol.refresh, carol.apiKey, org.tokens.carol!]) {
      expect(secret.length).toBeGreaterThan(8);
      expect(text).not.toContain(secret);
    }
    expect(text).not.toContain('"APIKey":');
    expect(text).not.toMatch(/"password[^"]*":/i);
  });

  it('contains no other user’s data', async () => {
    const daveRecord = await consentIdOf(t, org, 'dave');
    for (const trace of [org.users.dave!, daveRecord, 'Dave', 'dave-sub', 'dave@wallet.example', org.users.owner!])
      expect(text).not.toContain(trace);
  });

  it('has no user ID parameter: a userid in the query is ignored, the export is the caller’s own (IDOR)', async () => {
    const res = await exportOf(carol.access, 'Bearer', `?userid=${org.users.dave}&userID=${org.users.dave}`);
    expect(res.status).toBe(200);
    expect(res.body.Subject).toBe(carol.id);
    expect(JSON.stringify(res.body)).not.toContain(org.users.dave);
  });

  it('works with the user’s API key, as GET {base}/user does', async () => {
    const res = await exportOf(carol.apiKey, 'ApiKey');
    expect(res.status).toBe(200);
    expect(res.body.Subject).toBe(carol.id);
  });

  it('lists an admin’s own roles with the organisation’s name', async () => {
    const res = await exportOf(org.tokens.owner);
    expect(res.status).toBe(200);
    expect(res.body.AdminRoles).toEqual([{ OrgID: org.orgId, Name: 'Shop', RoleID: 4, Role: 'Owner' }]);
    expect(res.body.ConsentHistory).toEqual([]);
    expect(JSON.stringify(res.body)).not.toContain(carol.id);
  });
});

describe('who may export', () => {
  it('an unauthenticated request gets 401 in the error shape', async () => {
    for (const token of [undefined, 'not-a-token']) {
      const res = await exportOf(token);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ Code: 401, Message: expect.any(String) });
    }
  });

  it('the token and API key of a deleted account get 401', async () => {
    const dave = await login(t, 'dave@shop.example', PW);
    expect((await exportOf(dave.Token.access_token)).status).toBe(200);
    const deleted = await call(`${t.base}/users/unregister`, { method: 'POST', token: dave.Token.access_token });
    expect(deleted.status).toBe(204);
    expect((await exportOf(dave.Token.access_token)).status).toBe(401);
    expect((await exportOf(dave.User.APIKey, 'ApiKey')).status).toBe(401);
  });
});

describe('AccountService.exportData (the web dashboard’s call)', () => {
  it('exports an anonymous user: no name, e-mail or password, its record and history', async () => {
    const created = await call(`${t.base}/organizations/${org.orgId}/users/anonymous`, {
      method: 'POST',
      token: org.tokens.owner,
    });
    expect(created.status).toBe(201);
    const id = created.body.ID as string;
    const base = `${t.base}/organizations/${org.orgId}/users/${id}/consents`;
    const record = (await call(base, { token: org.apiKeys.developer, scheme: 'ApiKey' })).body.ID;
    const changed = await call(`${base}/${record}/purposes/${org.marketing.id}/attributes/${org.marketing.email}`, {
      method: 'PATCH',
      token: org.apiKeys.developer,
      scheme: 'ApiKey',
      body: { consented: 'Allow' },
    });
    expect(changed.status).toBe(200);
    let text = '';
    for await (const piece of exportJson(await t.ctx.accounts.exportData(id))) text += piece;
    const doc = JSON.parse(text);
    expect(doc.Subject).toBe(id);
    expect(doc.Profile).toMatchObject({ ID: id, Name: '', Email: '', Anonymous: true });
    expect(doc.Subscriptions.map((s: any) => s.OrgID)).toEqual([org.orgId]);
    expect(doc.ConsentRecords.map((r: any) => r.ID)).toEqual([record]);
    expect(doc.ConsentHistory).toHaveLength(1);
    expect(doc.ConsentHistory[0]).toMatchObject({ OrgID: org.orgId, NewValue: 'Allow', Actor: { Type: 'apiKey' } });
    expect(doc.Sessions).toEqual([]);
  });

  it('refuses an unknown, malformed or deleted account with NotFound', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id', org.users.dave!])
      await expect(t.ctx.accounts.exportData(id)).rejects.toBeInstanceOf(NotFound);
  });
});
