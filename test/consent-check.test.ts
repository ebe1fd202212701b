/**
 * The bulk consent check (docs/api.md "Bulk consent check"; docs/consents.md "Bulk consent check"), through the public
 * HTTP API: values as the consents API shows them, the history's sequence number, who may call it, and bad input.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, onPostgres, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentsUrl, setConsent, setUpConsentOrg } from './helpers/consent-org.js';

let t: TestAssent;
let org: ConsentOrg;
const ids: Record<string, string> = {};
const checkUrl = (orgId = org.orgId) => `${t.base}/organizations/${orgId}/consents/check`;
const check = (body: unknown, token = org.tokens.developer, orgId?: string) =>
  call(checkUrl(orgId), { method: 'POST', body, token });
const set = (user: string, purpose: string, attribute: string, consented: string, days = 0) =>
  setConsent(t, org, ids[user]!, purpose, attribute, consented, days);
const chainHead = async () =>
  Number(
    rowsOf<{ seq: string | number }>(
      await t.store.db.execute(
        sql`SELECT coalesce(max(seq), 0) AS seq FROM consent_chain_heads WHERE org_id = ${org.orgId}`,
      ),
    )[0]!.seq,
  );
const eventCount = async () =>
  Number(
    rowsOf<{ n: string | number }>(
      await t.store.db.execute(sql`SELECT count(*) AS n FROM consent_events WHERE org_id = ${org.orgId}`),
    )[0]!.n,
  );

beforeAll(async () => {
  t = await startAssent();
  org = await setUpConsentOrg(t);
  ids.Carol = org.users.carol!;
  ids.Dave = org.users.dave!;
  for (const name of ['Erin', 'Frank', 'Grace', 'Heidi', 'Ivan']) {
    const res = await call(`${t.base}/organizations/${org.orgId}/users`, {
      token: org.tokens.admin,
      body: { username: `${name.toLowerCase()}@shop.example`, name },
    });
    ids[name] = res.body.User.ID;
  }
  await set('Carol', org.marketing.id, org.marketing.email, 'Allow');
  await set('Dave', org.marketing.id, org.marketing.phone, 'AskMe');
  const erin = await set('Erin', org.marketing.id, org.marketing.email, 'AskMe', 1);
  // Erin's AskMe ran out a minute ago, and the sweep has not stored it as Disallow yet.
  await t.store.db.execute(
    sql`UPDATE attribute_consents SET expires_at = now() - interval '1 minute',
      decided_at = now() - interval '1 day 1 minute' WHERE record_id = ${erin}`,
  );
  await set('Frank', org.marketing.id, org.marketing.email, 'AskMe', 5);
  await set('Frank', org.delivery.id, org.delivery.address, 'Disallow');
  await set('Grace', org.marketing.id, org.marketing.email, 'Disallow');
  await set('Heidi', org.marketing.id, org.marketing.email, 'Allow');
  const gone = await call(`${t.base}/organizations/${org.orgId}/users/${ids.Heidi}`, {
    method: 'DELETE',
    token: org.tokens.admin,
  });
  expect(gone.status).toBe(204);
});
afterAll(() => t?.stop());

const subscribed = ['Carol', 'Dave', 'Erin', 'Frank', 'Grace', 'Ivan'];

describe('bulk consent check (docs/api.md "Bulk consent check")', () => {
  it('reads, per individual and attribute, what GET …/users/{userID}/consents shows', async () => {
    for (const purpose of [org.marketing.id, org.delivery.id]) {
      const res = await check({ userids: subscribed.map((n) => ids[n]), purposeid: purpose });
      expect(res.status).toBe(200);
      expect(res.body.PurposeID).toBe(purpose);
      expect(res.body.Individuals.map((i: any) => i.UserID)).toEqual(subscribed.map((n) => ids[n]));
      for (const [n, who] of subscribed.entries()) {
        const mine = await call(consentsUrl(t, org, ids[who]!), { token: org.tokens.dpo });
        expect(mine.status).toBe(200);
        const shown = mine.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === purpose);
        const got = res.body.Individuals[n];
        expect(got.Subscribed).toBe(true);
        expect(got.Attributes.map((a: any) => [a.AttributeID, a.Value])).toEqual(
          shown.Consents.map((c: any) => [c.ID, c.Status.Consented]),
        );
        const counted = got.Attributes.filter((a: any) => a.Counts).length;
        expect(counted).toBe(shown.Count.Consented);
      }
    }
  });

  it('Allow, Disallow, AskMe within its days, AskMe run out, and the defaults of both lawful bases', async () => {
    const marketing = await check({ userids: subscribed.map((n) => ids[n]), purposeid: org.marketing.id });
    const email = (who: string) =>
      marketing.body.Individuals[subscribed.indexOf(who)].Attributes.find(
        (a: any) => a.AttributeID === org.marketing.email,
      );
    expect(email('Carol')).toEqual({ AttributeID: org.marketing.email, Value: 'Allow', Counts: true });
    expect(email('Grace')).toEqual({ AttributeID: org.marketing.email, Value: 'Disallow', Counts: false });
    expect(email('Erin')).toEqual({ AttributeID: org.marketing.email, Value: 'Disallow', Counts: false });
    const frank = email('Frank');
    expect(frank).toMatchObject({ Value: 'AskMe', Counts: true, Days: 5 });
    expect(Date.parse(frank.Expires) - Date.parse(marketing.body.ReadAt)).toBeGreaterThan(4.9 * 86_400_000);
    // Undecided under consent: Disallow; an AskMe without days never runs out and has no Days.
    expect(email('Ivan')).toEqual({ AttributeID: org.marketing.email, Value: 'Disallow', Counts: false });
    const dave = marketing.body.Individuals[1].Attributes;
    expect(dave).toEqual([
      { AttributeID: org.marketing.email, Value: 'Disallow', Counts: false },
      { AttributeID: org.marketing.phone, Value: 'AskMe', Counts: true },
    ]);
    // Undecided under a lawful basis: Allow; a stored Disallow stays Disallow.
    const delivery = await check({ userids: [ids.Ivan, ids.Frank], purposeid: org.delivery.id });
    expect(delivery.body.LawfulUsage).toBe(true);
    expect(delivery.body.Individuals.map((i: any) => i.Attributes)).toEqual([
      [{ AttributeID: org.delivery.address, Value: 'Allow', Counts: true }],
      [{ AttributeID: org.delivery.address, Value: 'Disallow', Counts: false }],
    ]);
  });

  it('only the attributes asked, in their order, repeats once', async () => {
    const res = await check({
      userids: [ids.Dave],
      purposeid: org.marketing.id,
      attributeids: [org.marketing.phone, org.marketing.email, org.marketing.phone],
    });
    expect(res.status).toBe(200);
    expect(res.body.Individuals[0].Attributes.map((a: any) => a.AttributeID)).toEqual([
      org.marketing.phone,
      org.marketing.email,
    ]);
    const none = await check({ userids: [ids.Dave], purposeid: org.empty });
    expect(none.status).toBe(200);
    expect(none.body.Individuals).toEqual([{ UserID: ids.Dave, Subscribed: true, Attributes: [] }]);
  });

  it('says Subscribed: false, alike, for the unsubscribed, another organisation’s user and no user', async () => {
    const stranger = randomUUID();
    const res = await check({
      userids: [ids.Heidi, org.users.mallory, stranger, ids.Carol.toUpperCase()],
      purposeid: org.marketing.id,
    });
    expect(res.status).toBe(200);
    expect(res.body.Individuals).toEqual([
      { UserID: ids.Heidi, Subscribed: false, Attributes: [] },
      { UserID: org.users.mallory, Subscribed: false, Attributes: [] },
      { UserID: stranger, Subscribed: false, Attributes: [] },
      expect.objectContaining({ UserID: ids.Carol!.toUpperCase(), Subscribed: true }),
    ]);
  });

  it('Seq is the chain head, and moves after a change, which the values then reflect', async () => {
    const before = await check({ userids: [ids.Ivan], purposeid: org.marketing.id });
    expect(before.body.Seq).toBe(await chainHead());
    expect(before.body.Seq).toBe(await eventCount());
    const verify = await call(`${t.base}/organizations/${org.orgId}/consents/history/verify`, {
      token: org.tokens.dpo,
    });
    expect(verify.body).toMatchObject({ Valid: true, Events: before.body.Seq });
    await set('Ivan', org.marketing.id, org.marketing.email, 'Allow');
    // No wait for the sealer: the check seals what was committed before it.
    const after = await check({ userids: [ids.Ivan], purposeid: org.marketing.id });
    expect(after.body.Seq).toBe(before.body.Seq + 1);
    expect(after.body.Seq).toBe(await chainHead());
    expect(after.body.Individuals[0].Attributes[0]).toEqual({
      AttributeID: org.marketing.email,
      Value: 'Allow',
      Counts: true,
    });
    expect(Date.parse(after.body.ReadAt)).toBeGreaterThanOrEqual(Date.parse(before.body.ReadAt));
  });

  it('is for the organisation’s Owner, Admin, Dpo and Developer only', async () => {
    const body = { userids: [ids.Carol], purposeid: org.marketing.id };
    for (const who of ['owner', 'admin', 'dpo', 'developer'])
      expect((await check(body, org.tokens[who])).status).toBe(200);
    const key = await call(checkUrl(), { method: 'POST', body, token: org.apiKeys.developer, scheme: 'ApiKey' });
    expect(key.status).toBe(200);
    expect((await check(body, org.tokens.carol)).status).toBe(403);
    expect((await check(body, org.tokens.mallory)).status).toBe(403);
    expect((await call(checkUrl(), { method: 'POST', body })).status).toBe(401);
    // Mallory's own organisation has no such purpose.
    expect((await check(body, org.tokens.mallory, org.otherOrgId)).status).toBe(404);
  });

  it('answers every bad input with a 4xx JSON error and changes nothing', async () => {
    const events = await eventCount();
    const head = await chainHead();
    const ok = { userids: [ids.Carol], purposeid: org.marketing.id };
    const cases: Array<[number, unknown, string?]> = [
      [404, ok, randomUUID()],
      [404, ok, 'not-an-id'],
      [404, { ...ok, purposeid: randomUUID() }],
      [404, { ...ok, purposeid: 'marketing' }],
      [404, { ...ok, attributeids: [org.delivery.address] }],
      [404, { ...ok, attributeids: [org.marketing.email, 'nope'] }],
      [400, { ...ok, attributeids: [] }],
      [400, { ...ok, userids: [] }],
      [400, { ...ok, userids: ['not-a-uuid'] }],
      [400, { ...ok, userids: [ids.Carol, ids.Dave, ids.Carol!.toUpperCase()] }],
      [400, { ...ok, userids: [42] }],
      [400, { userids: [ids.Carol] }],
      [404, { ...ok, purposeid: 7 }],
      [400, 'not json'],
    ];
    for (const [status, body, orgId] of cases) {
      const res = await check(body, org.tokens.owner, orgId);
      expect([res.status, JSON.stringify(body)]).toEqual([status, JSON.stringify(body)]);
      expect(res.body.Code).toBe(status);
      expect(typeof res.body.Message).toBe('string');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }
    const dup = await check({ ...ok, userids: [ids.Carol, ids.Carol] }, org.tokens.owner);
    expect(dup.body.Message).toMatch(/userids\[1\] repeats userids\[0\]/);
    expect((await check({ ...ok, userids: ['x'] })).body.Message).toMatch(/userids\[0\] is not a user ID/);
    expect(await eventCount()).toBe(events);
    expect(await chainHead()).toBe(head);
  });

  it('accepts 1,000 user IDs and refuses 1,001', async () => {
    // 1,000 subscribed individuals, a third Allow, a third Disallow, a third undecided, written directly.
    const orgId = org.orgId;
    await t.store.db.execute(sql`WITH u AS (
        INSERT INTO users (id, username, name)
        SELECT gen_random_uuid(), 'bulk-' || g || '@shop.example', 'Bulk ' || g FROM generate_series(1, 1000) g
        RETURNING id),
      s AS (INSERT INTO subscriptions (user_id, org_id) SELECT id, ${orgId}::uuid FROM u RETURNING user_id),
      r AS (INSERT INTO consent_records (id, org_id, user_id)
        SELECT gen_random_uuid(), ${orgId}::uuid, user_id FROM s RETURNING id, user_id)
      INSERT INTO attribute_consents (record_id, purpose_id, attribute_id, user_id, value, days, decided_at)
      SELECT r.id, ${org.marketing.id}::uuid, ${org.marketing.email}::uuid, r.user_id,
        CASE WHEN row_number() OVER () % 2 = 0 THEN 'Allow' ELSE 'Disallow' END, 0, now()
      FROM r WHERE r.user_id::text < '9'`);
    const bulk = rowsOf<{ id: string }>(
      await t.store.db.execute(sql`SELECT id FROM users WHERE username LIKE 'bulk-%' ORDER BY username`),
    ).map((r) => r.id);
    expect(bulk).toHaveLength(1000);
    const body = { userids: bulk, purposeid: org.marketing.id };
    await check(body); // warm: the plan, the pool, the catalogue cache
    const times: number[] = [];
    let res: Awaited<ReturnType<typeof check>> | undefined;
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      res = await check(body);
      times.push(performance.now() - start);
    }
    expect(res!.status).toBe(200);
    expect(res!.body.Individuals).toHaveLength(1000);
    expect(res!.body.Individuals.every((i: any) => i.Subscribed && i.Attributes.length === 2)).toBe(true);
    // Serialised by JSON.stringify (not the schema's serialiser): exactly the documented shape, as JSON in UTF-8.
    expect(res!.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(res!.body).sort()).toEqual([
      'Individuals',
      'LawfulUsage',
      'OrgID',
      'PurposeID',
      'ReadAt',
      'Seq',
    ]);
    for (const one of res!.body.Individuals) {
      expect(Object.keys(one).sort()).toEqual(['Attributes', 'Subscribed', 'UserID']);
      for (const a of one.Attributes)
        for (const key of Object.keys(a)) expect(['AttributeID', 'Value', 'Counts', 'Days', 'Expires']).toContain(key);
    }
    times.sort((a, b) => a - b);
    console.log(
      `consent check, 1,000 individuals × 2 attributes on ${onPostgres ? 'PostgreSQL' : 'PGlite'}, 20 calls over HTTP: ` +
        `median ${times[10]!.toFixed(1)} ms, max ${times[19]!.toFixed(1)} ms`,
    );
    const tooMany = await check({ ...body, userids: [...bulk, randomUUID()] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.Message).toMatch(/1000/);
  });
});
