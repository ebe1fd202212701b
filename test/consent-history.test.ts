import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';

let t: TestAssent;
let org: ConsentOrg;
let carolRecord: string;
const verifyUrl = () => `${t.base}/organizations/${org.orgId}/consents/history/verify`;
const historyUrl = (query = '') => `${consentsUrl(t, org, 'carol')}/history${query}`;
const attributeUrl = (purpose: string, attribute: string) =>
  `${consentsUrl(t, org, 'carol')}/${carolRecord}/purposes/${purpose}/attributes/${attribute}`;
let beforeChanges: string;
let afterFirst: string;

/**
 * Runs `statement` as someone with the owner's rights over the evidence tables would: with their
 * append-only triggers disabled for the moment (the chain must still catch the change).
 */
async function tamper(statement: ReturnType<typeof sql>) {
  await t.store.db.transaction(async (tx) => {
    await tx.execute(sql`ALTER TABLE consent_events DISABLE TRIGGER consent_events_append_only`);
    await tx.execute(sql`ALTER TABLE consent_event_seals DISABLE TRIGGER consent_event_seals_append_only`);
    await tx.execute(statement);
    await tx.execute(sql`ALTER TABLE consent_events ENABLE TRIGGER consent_events_append_only`);
    await tx.execute(sql`ALTER TABLE consent_event_seals ENABLE TRIGGER consent_event_seals_append_only`);
  });
}

beforeAll(async () => {
  t = await startAssent();
  org = await setUpConsentOrg(t);
  carolRecord = await consentIdOf(t, org, 'carol');
  beforeChanges = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 20));
  const first = await call(attributeUrl(org.marketing.id, org.marketing.email), {
    method: 'PATCH',
    token: org.tokens.carol,
    body: { consented: 'Allow', days: 0 },
    headers: { 'user-agent': 'AssentTest/1.0' },
  });
  expect(first.status).toBe(200);
  await new Promise((r) => setTimeout(r, 20));
  afterFirst = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 20));
  expect(
    (
      await call(attributeUrl(org.marketing.id, org.marketing.phone), {
        method: 'PATCH',
        token: org.apiKeys.developer,
        scheme: 'ApiKey',
        body: { consented: 'AskMe', days: 7 },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await call(attributeUrl(org.delivery.id, org.delivery.address), {
        method: 'PATCH',
        token: org.tokens.carol,
        body: { consented: 'Disallow', days: 0 },
      })
    ).status,
  ).toBe(200);
});
afterAll(() => t?.stop());

describe('every change appends one event', () => {
  it('records individual, purpose, attribute, old and new value and days, time, actor, channel and request ID', async () => {
    const res = await call(historyUrl(), { token: org.tokens.carol });
    expect(res.status).toBe(200);
    const events = res.body.Events;
    expect(events.map((e: any) => e.Seq)).toEqual([3, 2, 1]);
    const first = events[2];
    expect(first).toMatchObject({
      ConsentID: carolRecord,
      UserID: org.users.carol,
      PurposeID: org.marketing.id,
      AttributeID: org.marketing.email,
      OldValue: 'Disallow',
      NewValue: 'Allow',
      OldDays: 0,
      NewDays: 0,
      Actor: { Type: 'individual', UserID: org.users.carol, APIKeyID: '' },
      Channel: {
        Endpoint:
          'PATCH /v1/organizations/:organizationID/users/:userID/consents/:consentID/purposes/:purposeID/attributes/:attributeID',
        UserAgent: 'AssentTest/1.0',
      },
    });
    expect(first.RequestID).not.toBe('');
    expect(first.PrevLink).toBe('0'.repeat(64));
    expect(events[1]).toMatchObject({
      NewValue: 'AskMe',
      NewDays: 7,
      Actor: { Type: 'apiKey', UserID: org.users.developer },
    });
    expect(events[1].Actor.APIKeyID).not.toBe('');
    expect(events[0]).toMatchObject({ PurposeID: org.delivery.id, OldValue: 'Allow', NewValue: 'Disallow' });
    expect(events[1].PrevLink).toBe(first.Link);
  });

  it('the request ID of the event is the X-Request-Id the change was answered with', async () => {
    const res = await call(attributeUrl(org.marketing.id, org.marketing.email), {
      method: 'PATCH',
      token: org.tokens.dave,
      body: { consented: 'Allow', days: 0 },
    });
    expect(res.status).toBe(403); // dave may not change carol's record, and nothing is recorded
    const ok = await call(attributeUrl(org.marketing.id, org.marketing.email), {
      method: 'PATCH',
      token: org.tokens.carol,
      body: { consented: 'Allow', days: 0 },
    });
    const [latest] = (await call(historyUrl('?limit=1'), { token: org.tokens.carol })).body.Events;
    expect(latest.RequestID).toBe(ok.headers.get('x-request-id'));
    expect(latest).toMatchObject({ OldValue: 'Allow', NewValue: 'Allow', Seq: 4 });
  });
});

describe('reading the history', () => {
  it('pages newest first with Links.Next carrying limit and startid', async () => {
    const page1 = await call(historyUrl('?limit=2'), { token: org.tokens.carol });
    expect(page1.body.Events.map((e: any) => e.Seq)).toEqual([4, 3]);
    const next = new URL(page1.body.Links.Next);
    expect(next.searchParams.get('limit')).toBe('2');
    expect(next.searchParams.get('startid')).toBe('3');
    const page2 = await call(page1.body.Links.Next, { token: org.tokens.carol });
    expect(page2.body.Events.map((e: any) => e.Seq)).toEqual([2, 1]);
    expect(page2.body.Links.Next).toBeUndefined();
  });

  it('filters by purpose and by time range', async () => {
    const byPurpose = await call(historyUrl(`?purposeid=${org.delivery.id}`), { token: org.tokens.carol });
    expect(byPurpose.body.Events.map((e: any) => e.Seq)).toEqual([3]);
    const early = await call(
      historyUrl(`?from=${encodeURIComponent(beforeChanges)}&to=${encodeURIComponent(afterFirst)}`),
      { token: org.tokens.carol },
    );
    expect(early.body.Events.map((e: any) => e.Seq)).toEqual([1]);
  });

  it('a bad limit or time is a 400', async () => {
    for (const q of ['?limit=0', '?limit=501', '?limit=ten', '?from=yesterday', '?to=2026-13-01T00:00:00Z']) {
      const res = await call(historyUrl(q), { token: org.tokens.carol });
      expect(res.status, q).toBe(400);
    }
  });

  it('the individual and the Dpo may read it; the Owner, the Developer and another individual may not', async () => {
    expect((await call(historyUrl(), { token: org.tokens.dpo })).status).toBe(200);
    for (const who of ['owner', 'developer', 'dave'])
      expect((await call(historyUrl(), { token: org.tokens[who] })).status, who).toBe(403);
  });

  it('at=<instant> answers what the record was then', async () => {
    const at = (instant: string) =>
      call(
        `${t.base}/organizations/${org.orgId}/consents/history?at=${encodeURIComponent(instant)}&userid=${org.users.carol}`,
        { token: org.tokens.dpo },
      );
    const then = await at(afterFirst);
    expect(then.status).toBe(200);
    const marketing = then.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === org.marketing.id);
    expect(marketing.Consents.map((c: any) => c.Status.Consented)).toEqual(['Allow', 'Disallow']);
    const now = await at(new Date().toISOString());
    const marketingNow = now.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === org.marketing.id);
    expect(marketingNow.Consents.map((c: any) => [c.Status.Consented, c.Status.Days])).toEqual([
      ['Allow', 0],
      ['AskMe', 7],
    ]);
    expect((await at('not-a-time')).status).toBe(400);
  });

  it('deleting a purpose keeps its evidence; the current record stops showing it', async () => {
    const del = await call(`${t.base}/organizations/${org.orgId}/purposes/${org.delivery.id}`, {
      method: 'DELETE',
      token: org.tokens.owner,
    });
    expect(del.status).toBe(204);
    const record = await call(consentsUrl(t, org, 'carol'), { token: org.tokens.carol });
    expect(record.body.ConsentsAndPurposes.map((p: any) => p.Purpose.ID)).toEqual([org.marketing.id]);
    const events = await call(historyUrl(`?purposeid=${org.delivery.id}`), { token: org.tokens.carol });
    expect(events.body.Events).toHaveLength(1);
    expect((await call(verifyUrl(), { token: org.tokens.dpo })).body.Valid).toBe(true);
  });
});

describe('tamper evidence', () => {
  it('consent evidence is append-only in the database: UPDATE, DELETE and TRUNCATE of events and seals are refused', async () => {
    for (const statement of [
      sql`UPDATE consent_events SET new_value = 'Allow' WHERE org_id = ${org.orgId}`,
      sql`DELETE FROM consent_events WHERE org_id = ${org.orgId}`,
      sql`TRUNCATE consent_events`,
      sql`UPDATE consent_event_seals SET seq = seq + 100 WHERE org_id = ${org.orgId}`,
      sql`DELETE FROM consent_event_seals WHERE org_id = ${org.orgId}`,
      sql`TRUNCATE consent_event_seals`,
    ]) {
      const refused = await t.store.db.execute(statement).then(
        () => null,
        (err: Error & { cause?: Error }) => err.cause ?? err,
      );
      expect(refused?.message).toMatch(
        /consent evidence is append-only: (UPDATE|DELETE|TRUNCATE) on consent_(events|event_seals) refused/,
      );
    }
    expect((await call(verifyUrl(), { token: org.tokens.dpo })).body).toEqual({
      Valid: true,
      Events: 4,
      FirstBrokenSeq: null,
      Reason: '',
    });
  });

  it('the chain verifies; an event edited in SQL breaks it at that event', async () => {
    const ok = await call(verifyUrl(), { token: org.tokens.dpo });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ Valid: true, Events: 4, FirstBrokenSeq: null, Reason: '' });
    await tamper(
      sql`UPDATE consent_events SET new_value = 'Allow'
        WHERE id = (SELECT event_id FROM consent_event_seals WHERE org_id = ${org.orgId} AND seq = 3)`,
    );
    const broken = await call(verifyUrl(), { token: org.tokens.owner });
    expect(broken.body).toMatchObject({
      Valid: false,
      FirstBrokenSeq: 3,
      Reason: 'the event content does not match its hash',
    });
    await tamper(
      sql`UPDATE consent_events SET new_value = 'Disallow'
        WHERE id = (SELECT event_id FROM consent_event_seals WHERE org_id = ${org.orgId} AND seq = 3)`,
    );
    expect((await call(verifyUrl(), { token: org.tokens.dpo })).body.Valid).toBe(true);
  });

  it('a deleted last event is found through the chain head', async () => {
    await tamper(
      sql`DELETE FROM consent_events
        WHERE id = (SELECT event_id FROM consent_event_seals WHERE org_id = ${org.orgId} AND seq = 4)`,
    );
    const res = await call(verifyUrl(), { token: org.tokens.dpo });
    expect(res.body).toMatchObject({ Valid: false, FirstBrokenSeq: 4 });
  });

  it('a seal deleted in the middle of the chain is found at its place', async () => {
    await tamper(sql`DELETE FROM consent_event_seals WHERE org_id = ${org.orgId} AND seq = 2`);
    const res = await call(verifyUrl(), { token: org.tokens.dpo });
    expect(res.body).toMatchObject({ Valid: false, FirstBrokenSeq: 2, Reason: 'event 2 is missing (found 3)' });
  });

  it('only the Owner, Admin or Dpo may verify', async () => {
    expect((await call(verifyUrl(), { token: org.tokens.developer })).status).toBe(403);
    expect((await call(verifyUrl(), { token: org.tokens.carol })).status).toBe(403);
  });
});
