import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents } from '../src/consent/evidence/append-store.js';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentsUrl, setConsent, setUpConsentOrg } from './helpers/consent-org.js';

let t: TestAssent;
let org: ConsentOrg;
const ids: Record<string, string> = {};
let loyalty: { id: string; card: string };
const orgUrl = (path: string, orgId = org.orgId) => `${t.base}/organizations/${orgId}${path}`;
const DAY = 86_400_000;
const none = { Allow: 0, Disallow: 0, AskMe: 0 };

const set = (user: string, purpose: string, attribute: string, consented: string, days = 0) =>
  setConsent(t, org, ids[user]!, purpose, attribute, consented, days);

/** 12:00 UTC, `daysAgo` days before today. */
const noonDaysAgo = (daysAgo: number) => new Date(Math.floor(Date.now() / DAY) * DAY - daysAgo * DAY + DAY / 2);

/**
 * Gives a user's attribute a history made days ago, as the changes would have written it: the events (noon UTC of
 * each day), and the last one's value stored. The API cannot date a change in the past.
 * @param changes - [days ago, old value, new value, new days], oldest first.
 */
async function pastChanges(
  user: string,
  purposeId: string,
  attributeId: string,
  changes: [number, string, string, number][],
) {
  const record = (await call(consentsUrl(t, org, ids[user]!), { token: org.tokens.owner })).body.ID;
  const events = changes.map(([daysAgo, oldValue, newValue, newDays]) => ({
    recordId: record,
    userId: ids[user]!,
    purposeId,
    attributeId,
    oldValue: oldValue as 'Allow',
    newValue: newValue as 'Allow',
    oldDays: 0,
    newDays,
    occurredAt: noonDaysAgo(daysAgo).toISOString(),
    actor: { type: 'individual' as const, userId: ids[user]! },
    channel: { endpoint: 'test', userAgent: '' },
    requestId: `past-${user}-${daysAgo}`,
  }));
  const [daysAgo, , value, days] = changes.at(-1)!;
  const decided = noonDaysAgo(daysAgo);
  const expires = days > 0 ? new Date(decided.getTime() + days * DAY).toISOString() : null;
  await t.store.db.transaction(async (tx) => {
    await appendEvents(tx, org.orgId, events);
    await tx.execute(sql`INSERT INTO attribute_consents
      (record_id, purpose_id, attribute_id, user_id, value, days, decided_at, expires_at)
      VALUES (${record}, ${purposeId}, ${attributeId}, ${ids[user]}, ${value}, ${days}, ${decided.toISOString()}, ${expires})`);
  });
}

const overview = () => call(orgUrl('/consents/overview'), { token: org.tokens.owner });
const trend = (q = '', token = org.tokens.owner) => call(orgUrl(`/consents/trend${q}`), { token });

beforeAll(async () => {
  // No sweep during the tests: a lapsed AskMe stays stored as AskMe, and no system event lands in today's changes.
  t = await startAssent({ ASSENT_ASKME_SWEEP_SECONDS: '3600' });
  org = await setUpConsentOrg(t);
  ids.carol = org.users.carol!;
  ids.dave = org.users.dave!;
  for (const name of ['erin', 'frank', 'grace', 'heidi']) {
    const res = await call(orgUrl('/users'), { token: org.tokens.admin, body: { username: `${name}@shop.example` } });
    ids[name] = res.body.User.ID;
  }
  // A consent-based purpose with one attribute, consented to and then deleted.
  const purposes = await call(orgUrl('/purposes'), {
    token: org.tokens.owner,
    body: { purposes: [{ name: 'Loyalty', lawfulusage: false }] },
  });
  const loyaltyId = purposes.body.Organization.Purposes.find((p: { Name: string }) => p.Name === 'Loyalty').ID;
  const card = await call(orgUrl('/templates'), {
    token: org.tokens.owner,
    body: { templates: [{ consent: 'Card number', purposeids: [loyaltyId] }] },
  });
  loyalty = { id: loyaltyId, card: card.body.Templates[0].ID };

  const m = org.marketing;
  const d = org.delivery;
  await set('carol', m.id, m.email, 'Allow');
  await set('carol', m.id, m.phone, 'AskMe');
  await set('carol', d.id, d.address, 'Disallow');
  await set('carol', loyalty.id, loyalty.card, 'Allow');
  await set('dave', m.id, m.email, 'Disallow');
  await set('dave', m.id, m.phone, 'AskMe', 30);
  // Erin chose AskMe for 1 day, 2 days ago: it ran out yesterday (not yet swept), and the consents API reads Disallow.
  await pastChanges('erin', m.id, m.email, [[2, 'Disallow', 'AskMe', 1]]);
  await set('frank', d.id, d.address, 'AskMe', 5);
  await set('frank', m.id, m.email, 'Allow');
  await set('frank', m.id, m.email, 'Disallow');
  await set('heidi', m.id, m.email, 'Allow');
  expect((await call(orgUrl(`/users/${ids.heidi}`), { method: 'DELETE', token: org.tokens.admin })).status).toBe(204);
  expect((await call(orgUrl(`/purposes/${loyalty.id}`), { method: 'DELETE', token: org.tokens.owner })).status).toBe(
    204,
  );
});
afterAll(() => t?.stop());

/** Tallies, per attribute, the values the individual consents API shows for every subscribed individual. */
async function tallyFromConsentsApi() {
  const users = await call(orgUrl('/users?limit=500'), { token: org.tokens.owner });
  const tally: Record<string, { Allow: number; Disallow: number; AskMe: number }> = {};
  for (const user of users.body.Users) {
    const record = await call(consentsUrl(t, org, user.ID), { token: org.tokens.owner });
    expect(record.status).toBe(200);
    for (const purpose of record.body.ConsentsAndPurposes)
      for (const consent of purpose.Consents) {
        const key = `${purpose.Purpose.ID}/${consent.ID}`;
        tally[key] ??= { ...none };
        tally[key][consent.Status.Consent as 'Allow']++;
      }
  }
  return { individuals: users.body.Users.length, tally };
}

describe('consent overview', () => {
  it('counts, per live purpose and attribute, the subscribed individuals who Allow, Disallow, AskMe or have not decided', async () => {
    const res = await overview();
    expect(res.status).toBe(200);
    expect(res.body.OrgID).toBe(org.orgId);
    expect(res.body.Individuals).toBe(5); // Heidi unsubscribed; staff are not subscribed
    const count = await call(orgUrl('/users/count'), { token: org.tokens.owner });
    expect(res.body.Individuals).toBe(count.body.SubscribeUserCount);
    expect(res.body.Purposes).toEqual([
      {
        ID: org.marketing.id,
        Name: 'Marketing',
        LawfulUsage: false,
        Attributes: [
          // Carol Allow; Dave and Frank Disallow, Erin's lapsed AskMe; Grace undecided.
          { ID: org.marketing.email, Name: 'Email', Allow: 1, Disallow: 3, AskMe: 0, Undecided: 1, Consented: 1 },
          // Carol AskMe without days, Dave AskMe for 30 days.
          { ID: org.marketing.phone, Name: 'Phone', Allow: 0, Disallow: 0, AskMe: 2, Undecided: 3, Consented: 2 },
        ],
      },
      {
        ID: org.delivery.id,
        Name: 'Delivery',
        LawfulUsage: true,
        // Under a lawful basis the undecided read Allow, so they count as consented.
        Attributes: [
          { ID: org.delivery.address, Name: 'Address', Allow: 0, Disallow: 1, AskMe: 1, Undecided: 3, Consented: 4 },
        ],
      },
      { ID: org.empty, Name: 'Empty', LawfulUsage: false, Attributes: [] },
    ]);
    expect(Date.now() - Date.parse(res.body.At)).toBeLessThan(60_000);
  });

  it('a soft-deleted purpose is absent, though Carol consented to it', async () => {
    const res = await overview();
    expect(res.body.Purposes.map((p: { ID: string }) => p.ID)).not.toContain(loyalty.id);
    expect((await trend(`?purposeid=${loyalty.id}`)).status).toBe(404);
  });

  it('matches the consented-users pages and what the individual consents API shows each individual', async () => {
    const res = await overview();
    const { individuals, tally } = await tallyFromConsentsApi();
    expect(individuals).toBe(res.body.Individuals);
    for (const purpose of res.body.Purposes)
      for (const a of purpose.Attributes) {
        const page = await call(orgUrl(`/purposes/${purpose.ID}/attributes/${a.ID}/consented/users?limit=500`), {
          token: org.tokens.developer,
        });
        expect(page.body.Users.length, a.Name).toBe(a.Consented);
        expect(a.Allow + a.Disallow + a.AskMe + a.Undecided, a.Name).toBe(individuals);
        // The consents API shows an undecided attribute as the purpose's default.
        const shown = tally[`${purpose.ID}/${a.ID}`];
        expect(shown, a.Name).toEqual({
          Allow: a.Allow + (purpose.LawfulUsage ? a.Undecided : 0),
          Disallow: a.Disallow + (purpose.LawfulUsage ? 0 : a.Undecided),
          AskMe: a.AskMe,
        });
      }
  });
});

describe('consent trend', () => {
  it("counts each day's changes by new value; totals at each day's end, today's those of the overview", async () => {
    const res = await trend('?days=3');
    expect(res.status).toBe(200);
    expect(res.body.Days).toHaveLength(3);
    const [before, yesterday, today] = res.body.Days;
    expect(today.Date).toBe(res.body.To.slice(0, 10));
    expect(res.body.From).toBe(`${before.Date}T00:00:00.000Z`);
    expect(Date.parse(`${yesterday.Date}T00:00:00Z`) - Date.parse(`${before.Date}T00:00:00Z`)).toBe(DAY);
    expect(Date.parse(`${today.Date}T00:00:00Z`) - Date.parse(`${yesterday.Date}T00:00:00Z`)).toBe(DAY);
    // Heidi (unsubscribed) and Carol's Loyalty card (purpose deleted) are left out.
    expect(today.Changes).toEqual({ Allow: 2, Disallow: 3, AskMe: 3 });
    expect(today.Totals).toEqual({ Allow: 1, Disallow: 4, AskMe: 3 });
    // Erin's AskMe for 1 day, 2 days ago, read Disallow from yesterday noon.
    expect(before).toMatchObject({ Changes: { ...none, AskMe: 1 }, Totals: { ...none, AskMe: 1 } });
    expect(yesterday).toMatchObject({ Changes: none, Totals: { ...none, Disallow: 1 } });
    expect(res.body).toMatchObject({ OrgID: org.orgId, PurposeID: '' });
  });

  it('counts no change made before the window', async () => {
    const res = await trend('?days=1');
    expect(res.body.Days).toEqual([
      {
        Date: res.body.To.slice(0, 10),
        Changes: { Allow: 2, Disallow: 3, AskMe: 3 },
        Totals: { Allow: 1, Disallow: 4, AskMe: 3 },
      },
    ]);
  });

  it('is 90 days by default, and one purpose with purposeid', async () => {
    const all = await trend();
    expect(all.body.Days).toHaveLength(90);
    const quiet = { Changes: none, Totals: none };
    expect(all.body.Days.slice(0, 87)).toEqual(
      all.body.Days.slice(0, 87).map((d: any) => ({ Date: d.Date, ...quiet })),
    );
    expect(all.body.Days[87].Changes).toEqual({ ...none, AskMe: 1 });
    const delivery = await trend(`?days=1&purposeid=${org.delivery.id}`);
    expect(delivery.status).toBe(200);
    expect(delivery.body.PurposeID).toBe(org.delivery.id);
    expect(delivery.body.Days).toEqual([
      {
        Date: delivery.body.To.slice(0, 10),
        Changes: { ...none, Disallow: 1, AskMe: 1 },
        Totals: { ...none, Disallow: 1, AskMe: 1 },
      },
    ]);
  });

  it('a days outside 1..366 or not a whole number is a 400, and an unknown purpose a 404', async () => {
    for (const q of ['?days=0', '?days=367', '?days=x', '?days=1.5', '?days=-1', '?days=%2090']) {
      const res = await trend(q);
      expect(res.status, q).toBe(400);
      expect(res.body, q).toEqual({ Code: 400, Message: 'days must be a whole number from 1 to 366' });
    }
    expect((await trend('?days=366')).body.Days).toHaveLength(366);
    for (const purposeid of ['01a20000-0000-7000-8000-000000000000', 'nope'])
      expect((await trend(`?purposeid=${purposeid}`)).status, purposeid).toBe(404);
  });

  it('totals of past days replay the history: the last event before the window, and an AskMe read Disallow from its expiry', async () => {
    // Grace's history, made days ago: Allow 6 days ago, AskMe for 2 days 4 days ago (ran out 2 days ago, not swept).
    await pastChanges('grace', org.delivery.id, org.delivery.address, [
      [6, 'Allow', 'Allow', 0],
      [4, 'Allow', 'AskMe', 2],
    ]);
    const trendOf = async (days: number) => (await trend(`?days=${days}&purposeid=${org.delivery.id}`)).body.Days;
    const totals = async (days: number) => (await trendOf(days)).map((d: any) => d.Totals);
    const today = { Allow: 0, Disallow: 2, AskMe: 1 }; // Carol and Grace Disallow, Frank AskMe
    const [allow, askMe, disallow] = [
      { ...none, Allow: 1 },
      { ...none, AskMe: 1 },
      { ...none, Disallow: 1 },
    ];
    expect(await totals(8)).toEqual([none, allow, allow, askMe, askMe, disallow, disallow, today]);
    // Window from 3 days ago: Grace's last event before it (the AskMe) holds until its expiry inside it.
    expect(await totals(4)).toEqual([askMe, disallow, disallow, today]);
    // Window from yesterday: nothing of Grace's happened in it, so she reads as now all through.
    expect(await totals(2)).toEqual([disallow, today]);
    expect((await trendOf(8)).map((d: any) => d.Changes)).toEqual([
      none,
      allow,
      none,
      askMe,
      none,
      none,
      none,
      { ...none, Disallow: 1, AskMe: 1 },
    ]);
    const address = (await overview()).body.Purposes[1].Attributes[0];
    expect(address).toMatchObject({ Allow: 0, Disallow: 2, AskMe: 1, Undecided: 2, Consented: 3 });
  });
});

describe('who may read the overview and trend', () => {
  it('Dpo and Developer may; an individual gets a 403, by token or API key; an unknown organisation is a 404', async () => {
    for (const token of [org.tokens.dpo, org.tokens.developer, org.tokens.admin]) {
      expect((await call(orgUrl('/consents/overview'), { token })).status).toBe(200);
      expect((await trend('?days=1', token)).status).toBe(200);
    }
    for (const path of ['/consents/overview', '/consents/trend']) {
      expect((await call(orgUrl(path), { token: org.tokens.carol })).status, path).toBe(403);
      expect((await call(orgUrl(path), { token: org.apiKeys.carol, scheme: 'ApiKey' })).status, path).toBe(403);
      expect((await call(orgUrl(path, org.otherOrgId), { token: org.tokens.owner })).status, path).toBe(403);
      expect((await call(orgUrl(path), {})).status, path).toBe(401);
      for (const unknown of ['01a20000-0000-7000-8000-000000000000', 'nope'])
        expect((await call(orgUrl(path, unknown), { token: org.tokens.owner })).status, path).toBe(404);
    }
  });

  it('the service checks the roles itself, for the console calling it without the HTTP guard', async () => {
    const individual = { userId: ids.carol!, via: 'access' as const };
    await expect(t.ctx.listings.overview(individual, org.orgId)).rejects.toMatchObject({
      code: 'ASSENT_ERR_ACCESS_DENIED',
    });
    await expect(t.ctx.listings.trend(individual, org.orgId, {})).rejects.toMatchObject({
      code: 'ASSENT_ERR_ACCESS_DENIED',
    });
    const dpo = { userId: org.users.dpo!, via: 'access' as const };
    expect((await t.ctx.listings.overview(dpo, org.orgId)).Individuals).toBe(5);
  });
});

describe('the catalogue the overview and trend count', () => {
  it('follows changes made by another process behind the cached copy: an attribute linked, a purpose deleted', async () => {
    expect((await overview()).status).toBe(200); // the cache is warm
    const { rows } = await t.store.raw(
      'INSERT INTO data_attributes (id, org_id, name) VALUES (gen_random_uuid(), $1, $2) RETURNING id',
      [org.orgId, 'Postal code'],
    );
    const postalCode = (rows[0] as { id: string }).id;
    await t.store.raw('INSERT INTO purpose_attributes (purpose_id, attribute_id) VALUES ($1, $2)', [
      org.empty,
      postalCode,
    ]);
    await t.store.raw('UPDATE purposes SET deleted_at = now() WHERE id = $1', [org.delivery.id]);

    const res = await overview();
    expect(res.body.Purposes.map((p: { ID: string }) => p.ID)).toEqual([org.marketing.id, org.empty]);
    expect(res.body.Purposes[1].Attributes).toEqual([
      { ID: postalCode, Name: 'Postal code', Allow: 0, Disallow: 0, AskMe: 0, Undecided: 5, Consented: 0 },
    ]);
    // Marketing alone: Carol's, Dave's and Frank's changes of today; Erin's lapsed AskMe among the Disallow.
    const today = (await trend('?days=1')).body.Days[0];
    expect(today).toMatchObject({
      Changes: { Allow: 2, Disallow: 2, AskMe: 2 },
      Totals: { Allow: 1, Disallow: 3, AskMe: 2 },
    });
    expect((await trend(`?purposeid=${org.delivery.id}`)).status).toBe(404);
  });
});
