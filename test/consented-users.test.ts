import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, setConsent, setUpConsentOrg } from './helpers/consent-org.js';

let t: TestAssent;
let org: ConsentOrg;
const ids: Record<string, string> = {};
const attributeUsers = (purpose: string, attribute: string, q = '') =>
  `${t.base}/organizations/${org.orgId}/purposes/${purpose}/attributes/${attribute}/consented/users${q}`;
const purposeUsers = (purpose: string, q = '') =>
  `${t.base}/organizations/${org.orgId}/purposes/${purpose}/consented/users${q}`;
const names = (res: { body: any }) => res.body.Users.map((u: any) => u.Name);

const set = (user: string, purpose: string, attribute: string, consented: string, days = 0) =>
  setConsent(t, org, ids[user]!, purpose, attribute, consented, days);

beforeAll(async () => {
  t = await startAssent();
  org = await setUpConsentOrg(t);
  ids.Carol = org.users.carol!;
  ids.Dave = org.users.dave!;
  for (const name of ['Erin', 'Frank', 'Grace', 'Heidi']) {
    const res = await call(`${t.base}/organizations/${org.orgId}/users`, {
      token: org.tokens.admin,
      body: { username: `${name.toLowerCase()}@shop.example`, name },
    });
    ids[name] = res.body.User.ID;
  }
  await set('Carol', org.marketing.id, org.marketing.email, 'Allow');
  await set('Dave', org.marketing.id, org.marketing.phone, 'AskMe');
  const erin = await set('Erin', org.marketing.id, org.marketing.email, 'AskMe', 1);
  await t.store.db.execute(
    sql`UPDATE attribute_consents SET expires_at = now() - interval '1 minute' WHERE record_id = ${erin}`,
  );
  await set('Frank', org.delivery.id, org.delivery.address, 'Disallow');
  await set('Grace', org.marketing.id, org.marketing.email, 'Disallow');
  await set('Heidi', org.marketing.id, org.marketing.email, 'Allow');
  expect(
    (
      await call(`${t.base}/organizations/${org.orgId}/users/${ids.Heidi}`, {
        method: 'DELETE',
        token: org.tokens.admin,
      })
    ).status,
  ).toBe(204);
});
afterAll(() => t?.stop());

const byId = (...who: string[]) => who.sort((a, b) => (ids[a]! < ids[b]! ? -1 : 1));

describe('consented users (docs/api.md "Permissions and consents")', () => {
  it('of an attribute: Allow and unexpired AskMe count; Disallow, a lapsed AskMe and the unsubscribed do not', async () => {
    const res = await call(attributeUsers(org.marketing.id, org.marketing.email), { token: org.tokens.developer });
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['Carol']);
    expect(res.body.Users[0]).toEqual({ ID: ids.Carol, Name: 'Carol', Phone: '', Email: '' });
    expect(
      names(await call(attributeUsers(org.marketing.id, org.marketing.phone), { token: org.tokens.developer })),
    ).toEqual(['Dave']);
  });

  it('of a purpose: a user counts when at least one of its attributes counts', async () => {
    expect(names(await call(purposeUsers(org.marketing.id), { token: org.tokens.dpo }))).toEqual(byId('Carol', 'Dave'));
  });

  it('of a lawful-basis purpose: every subscribed user unless they chose Disallow', async () => {
    const everyoneButFrank = byId('Carol', 'Dave', 'Erin', 'Grace');
    expect(names(await call(purposeUsers(org.delivery.id), { token: org.tokens.owner }))).toEqual(everyoneButFrank);
    expect(
      names(await call(attributeUsers(org.delivery.id, org.delivery.address), { token: org.tokens.owner })),
    ).toEqual(everyoneButFrank);
  });

  it('pages by ID: startid is exclusive, Links are absolute, Next carries limit and startid and is absent on the last page', async () => {
    const expected = byId('Carol', 'Dave', 'Erin', 'Grace');
    const seen: string[] = [];
    let url: string | undefined = purposeUsers(org.delivery.id, '?limit=1');
    let pages = 0;
    while (url) {
      const res = await call(url, { token: org.tokens.developer });
      expect(res.body.Users).toHaveLength(1);
      expect(res.body.Links.Self).toBe(url);
      seen.push(...names(res));
      url = res.body.Links.Next;
      if (url) {
        const next = new URL(url);
        expect(next.searchParams.get('limit')).toBe('1');
        expect(next.searchParams.get('startid')).toBe(res.body.Users[0].ID);
      }
      pages += 1;
    }
    expect(pages).toBe(4);
    expect(seen).toEqual(expected);
  });

  it('Users is always an array: empty for a purpose without attributes or past the last user', async () => {
    const empty = await call(purposeUsers(org.empty), { token: org.tokens.owner });
    expect(empty.status).toBe(200);
    expect(empty.body.Users).toEqual([]);
    expect(empty.body.Links.Next).toBeUndefined();
    const past = await call(purposeUsers(org.delivery.id, '?startid=ffffffff-ffff-7fff-bfff-ffffffffffff'), {
      token: org.tokens.owner,
    });
    expect(past.body.Users).toEqual([]);
  });

  it('of a lawful-basis purpose: an AskMe that ran out does not count, one still running does', async () => {
    const grace = await set('Grace', org.delivery.id, org.delivery.address, 'AskMe', 1);
    await t.store.db.execute(
      sql`UPDATE attribute_consents SET expires_at = now() - interval '1 minute'
        WHERE record_id = ${grace} AND purpose_id = ${org.delivery.id}`,
    );
    await set('Carol', org.delivery.id, org.delivery.address, 'AskMe', 30);
    expect(names(await call(purposeUsers(org.delivery.id), { token: org.tokens.owner }))).toEqual(
      byId('Carol', 'Dave', 'Erin'),
    );
  });

  it('a limit outside 1..500 is a 400; a purpose or attribute not of the organisation is a 404; an individual gets a 403', async () => {
    for (const q of ['?limit=0', '?limit=501', '?limit=x'])
      expect((await call(purposeUsers(org.marketing.id, q), { token: org.tokens.owner })).status, q).toBe(400);
    expect(
      (await call(attributeUsers(org.marketing.id, org.delivery.address), { token: org.tokens.owner })).status,
    ).toBe(404);
    expect((await call(purposeUsers('01a20000-0000-7000-8000-000000000000'), { token: org.tokens.owner })).status).toBe(
      404,
    );
    expect(
      (
        await call(`${t.base}/organizations/${org.otherOrgId}/purposes/${org.marketing.id}/consented/users`, {
          token: org.tokens.mallory,
        })
      ).status,
    ).toBe(404);
    expect((await call(purposeUsers(org.marketing.id), { token: org.tokens.carol })).status).toBe(403);
  });

  it('only the organisation’s staff may list, and an outsider learns nothing of its purposes (403 before any 404)', async () => {
    const unknown = '01a20000-0000-7000-8000-000000000000';
    for (const who of ['carol', 'mallory']) {
      const token = org.tokens[who]!;
      expect((await call(purposeUsers(org.marketing.id), { token })).status, who).toBe(403);
      expect((await call(attributeUsers(org.marketing.id, org.marketing.email), { token })).status, who).toBe(403);
      expect((await call(purposeUsers(unknown), { token })).status, who).toBe(403);
      expect((await call(attributeUsers(org.marketing.id, unknown), { token })).status, who).toBe(403);
      expect((await call(purposeUsers(org.marketing.id, '?startid=not-an-id'), { token })).status, who).toBe(403);
    }
    for (const who of ['owner', 'admin', 'dpo', 'developer']) {
      expect((await call(purposeUsers(org.marketing.id), { token: org.tokens[who]! })).status, who).toBe(200);
    }
  });
});
