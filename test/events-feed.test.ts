/**
 * The organisation's change feed (docs/events.md): `GET {base}/organizations/{organizationID}/events`. Every change
 * emits its events once, in its own transaction; a refused change emits nothing; pages after a cursor return every
 * event once, in an order that keeps each individual's history order, even while changes go on.
 */
import { CloudEvent } from 'cloudevents';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';

let t: TestAssent;
let org: ConsentOrg;
let carolRecord: string;
const CONSENT_TYPES = 'consent.allowed,consent.disallowed,consent.askme,consent.expired';

const feedUrl = (query = '') => `${t.base}/organizations/${org.orgId}/events${query}`;
const attributeUrl = (purpose: string, attribute: string) =>
  `${consentsUrl(t, org, 'carol')}/${carolRecord}/purposes/${purpose}/attributes/${attribute}`;

/** Every event of the feed after `after`, page by page of `limit`, as the owner. */
async function readAll(query = '', after = '', limit = 1000): Promise<any[]> {
  const out: any[] = [];
  let cursor = after;
  for (;;) {
    const res = await call(feedUrl(`?limit=${limit}&after=${cursor}${query}`), { token: org.tokens.owner });
    expect(res.status).toBe(200);
    out.push(...res.body.Events);
    if (!res.body.Links.Next) return out;
    cursor = new URL(res.body.Links.Next).searchParams.get('after')!;
  }
}

/** The last `sequence` of the feed (the cursor to read what follows), or ''. */
async function head(): Promise<string> {
  return (await readAll()).at(-1)?.sequence ?? '';
}

/** Carol's history, oldest first. */
async function carolHistory(): Promise<any[]> {
  const events: any[] = [];
  let url = `${consentsUrl(t, org, 'carol')}/history?limit=100`;
  for (;;) {
    const res = await call(url, { token: org.tokens.carol });
    expect(res.status).toBe(200);
    events.push(...res.body.Events);
    if (!res.body.Links?.Next) return events.reverse();
    url = res.body.Links.Next;
  }
}

const patch = (attribute: string, consented: string, days = 0, purpose = org.marketing.id) =>
  call(attributeUrl(purpose, attribute), { method: 'PATCH', token: org.tokens.carol, body: { consented, days } });

beforeAll(async () => {
  t = await startAssent({ ASSENT_ASKME_SWEEP_SECONDS: '1' });
  org = await setUpConsentOrg(t);
  carolRecord = await consentIdOf(t, org, 'carol');
});
afterAll(() => t?.stop());

describe('what is emitted', () => {
  it('the subscriptions of the set-up are in the feed, as valid CloudEvents 1.0', async () => {
    const events = await readAll();
    const subscribed = events.filter((e) => e.type === 'individual.subscribed');
    expect(subscribed.map((e) => e.subject).sort()).toEqual([org.users.carol, org.users.dave].sort());
    for (const e of events) {
      expect(() => new CloudEvent(e).validate()).not.toThrow();
      expect(e).toMatchObject({
        specversion: '1.0',
        datacontenttype: 'application/json',
        source: `${t.config.publicUrl.replace(/\/$/, '')}/v1/organizations/${org.orgId}`,
      });
      expect(e.sequence).toMatch(/^\d{20}$/);
    }
    expect(events.map((e) => e.sequence)).toEqual(events.map((e) => e.sequence).sort());
  });

  it('a page is JSON in UTF-8 with its exact length, holding only the documented attributes', async () => {
    const res = await fetch(feedUrl('?limit=1000'), { headers: { authorization: `Bearer ${org.tokens.owner}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    const page = JSON.parse(bytes.toString('utf8'));
    expect(Object.keys(page).sort()).toEqual(['Events', 'Links']);
    const documented = [
      'specversion',
      'id',
      'type',
      'source',
      'subject',
      'time',
      'datacontenttype',
      'sequence',
      'data',
    ];
    expect(page.Events.length).toBeGreaterThan(0);
    for (const e of page.Events) for (const key of Object.keys(e)) expect(documented).toContain(key);
  });

  it('one consent event per change, with the ID of its history event and the documented data', async () => {
    const from = await head();
    expect((await patch(org.marketing.email, 'Allow')).status).toBe(200);
    expect((await patch(org.marketing.phone, 'AskMe', 7)).status).toBe(200);
    expect((await patch(org.delivery.address, 'Disallow', 0, org.delivery.id)).status).toBe(200);
    // A refused change emits nothing.
    expect((await patch(org.marketing.email, 'Maybe')).status).toBe(400);
    const events = await readAll('', from);
    expect(events.map((e) => e.type)).toEqual(['consent.allowed', 'consent.askme', 'consent.disallowed']);
    const history = (await carolHistory()).slice(-3);
    expect(events.map((e) => e.id)).toEqual(history.map((h) => h.ID));
    // Each carries its place in the evidence chain, as the history shows it.
    expect(events.map((e) => e.data.HistorySeq)).toEqual(history.map((h) => h.Seq));
    expect(history.every((h) => Number.isInteger(h.Seq) && h.Seq > 0)).toBe(true);
    expect(events[1]).toMatchObject({
      subject: org.users.carol,
      time: history[1].TimeStamp,
      data: {
        OrganizationID: org.orgId,
        UserID: org.users.carol,
        ConsentID: carolRecord,
        PurposeID: org.marketing.id,
        AttributeID: org.marketing.phone,
        OldValue: history[1].OldValue,
        NewValue: 'AskMe',
        OldDays: 0,
        NewDays: 7,
        HistoryEventID: history[1].ID,
        HistorySeq: history[1].Seq,
        Actor: { Type: 'individual', UserID: org.users.carol, APIKeyID: '' },
        Channel: { Endpoint: history[1].Channel.Endpoint },
      },
    });
  });

  it('an AskMe that runs out emits consent.expired when the sweep records the lapse', async () => {
    expect((await patch(org.marketing.phone, 'AskMe', 2)).status).toBe(200);
    const from = await head();
    await t.store.db.execute(sql`UPDATE attribute_consents
      SET decided_at = decided_at - interval '3 days', expires_at = expires_at - interval '3 days'
      WHERE record_id = ${carolRecord} AND attribute_id = ${org.marketing.phone}`);
    let expired: any[] = [];
    for (let i = 0; i < 50 && expired.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      expired = await readAll('&types=consent.expired', from);
    }
    expect(expired).toHaveLength(1);
    expect(expired[0].data).toMatchObject({ OldValue: 'AskMe', NewValue: 'Disallow', OldDays: 2, NewDays: 0 });
    expect(expired[0].data.Actor.Type).toBe('system');
    expect(expired[0].id).toBe((await carolHistory()).at(-1).ID);
  });

  it('catalogue changes emit purpose.* and data_attribute.* once each', async () => {
    const from = await head();
    const owner = { token: org.tokens.owner };
    const purposes = `${t.base}/organizations/${org.orgId}/purposes`;
    const created = await call(purposes, { ...owner, body: { purposes: [{ name: 'Feed test', lawfulusage: false }] } });
    expect(created.status).toBe(201);
    const purposeId = created.body.Organization.Purposes.find((p: any) => p.Name === 'Feed test').ID;
    expect((await call(`${purposes}/${purposeId}`, { ...owner, method: 'PUT', body: { name: 'Feed' } })).status).toBe(
      200,
    );
    const templates = `${t.base}/organizations/${org.orgId}/templates`;
    const attr = await call(templates, {
      ...owner,
      body: { templates: [{ consent: 'Age', purposeids: [purposeId] }] },
    });
    expect(attr.status).toBe(201);
    const attrId = attr.body.Templates?.[0]?.ID ?? attr.body[0]?.ID ?? attr.body.Template?.ID;
    expect(attrId).toBeTruthy();
    expect(
      (
        await call(`${templates}/${attrId}`, {
          ...owner,
          method: 'PUT',
          body: { consent: 'Age band', purposeids: [purposeId] },
        })
      ).status,
    ).toBe(200);
    expect((await call(`${templates}/${attrId}`, { ...owner, method: 'DELETE' })).status).toBeLessThan(300);
    expect((await call(`${purposes}/${purposeId}`, { ...owner, method: 'DELETE' })).status).toBeLessThan(300);
    // Refused: an unknown purpose changes nothing and emits nothing.
    expect((await call(`${purposes}/${purposeId}`, { ...owner, method: 'PUT', body: { name: 'x' } })).status).toBe(404);
    const events = await readAll('', from);
    expect(events.map((e) => e.type)).toEqual([
      'purpose.created',
      'purpose.updated',
      'data_attribute.created',
      'data_attribute.updated',
      'data_attribute.deleted',
      'purpose.deleted',
    ]);
    expect(events[1].data).toMatchObject({ OrganizationID: org.orgId, PurposeID: purposeId, Name: 'Feed' });
    expect(events[3].data).toMatchObject({ AttributeID: attrId, Name: 'Age band', PurposeIDs: [purposeId] });
    expect(events.every((e) => e.subject === undefined)).toBe(true);
  });

  it('unsubscribing and deleting an account emit individual.unsubscribed and individual.deleted', async () => {
    const from = await head();
    const dave = `${t.base}/organizations/${org.orgId}/users/${org.users.dave}`;
    expect((await call(dave, { method: 'DELETE', token: org.tokens.admin })).status).toBeLessThan(300);
    expect((await call(dave, { method: 'DELETE', token: org.tokens.admin })).status).toBe(404); // emits nothing
    const events = await readAll('&types=individual.unsubscribed,individual.deleted', from);
    expect(events.map((e) => [e.type, e.subject])).toEqual([['individual.unsubscribed', org.users.dave]]);
    expect(events[0].data).toMatchObject({ OrganizationID: org.orgId, UserID: org.users.dave });
  });
});

describe('paging', () => {
  it('while changes go on, the pages hold every event once, and each individual’s in history order', async () => {
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 40; i++) {
        const [a, b] = await Promise.all([
          patch(org.marketing.email, i % 2 ? 'Allow' : 'Disallow'),
          patch(org.delivery.address, i % 2 ? 'Disallow' : 'Allow', 0, org.delivery.id),
        ]);
        expect([a.status, b.status]).toEqual([200, 200]);
      }
      writing = false;
    })();
    const seen: any[] = [];
    let cursor = '';
    for (;;) {
      const done = !writing;
      const res = await call(feedUrl(`?limit=3&types=${CONSENT_TYPES}&after=${cursor}`), { token: org.tokens.dpo });
      expect(res.status).toBe(200);
      seen.push(...res.body.Events);
      if (res.body.Events.length > 0) cursor = res.body.Events.at(-1).sequence;
      if (done && !res.body.Links.Next) break;
    }
    await writer;
    const ids = seen.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const history = await carolHistory();
    // The union of the pages is the history; the feed keeps the history's order for the individual.
    expect(ids).toEqual(history.map((h) => h.ID));
    const seqs = seen.map((e) => Number(e.sequence));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('the type filter answers only those types', async () => {
    const events = await readAll('&types=purpose.created,individual.subscribed');
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['purpose.created', 'individual.subscribed']));
  });
});

describe('access and bad queries', () => {
  it('Owner, Admin, Dpo and Developer read it; an individual and another organisation’s staff do not', async () => {
    for (const who of ['owner', 'admin', 'dpo', 'developer'])
      expect((await call(feedUrl('?limit=1'), { token: org.tokens[who] })).status).toBe(200);
    expect((await call(feedUrl('?limit=1'), { token: org.apiKeys.developer, scheme: 'ApiKey' })).status).toBe(200);
    expect((await call(feedUrl(), { token: org.tokens.carol })).status).toBe(403);
    expect([403, 404]).toContain((await call(feedUrl(), { token: org.tokens.mallory })).status);
    expect((await call(feedUrl())).status).toBe(401);
  });

  it('a malformed cursor, a limit outside 1..1000 or an unknown type is a 400 that changes nothing', async () => {
    const before = await readAll();
    for (const query of ['?after=abc', '?after=-1', '?limit=0', '?limit=1001', '?limit=x', '?types=consent.maybe'])
      expect((await call(feedUrl(query), { token: org.tokens.owner })).status, query).toBe(400);
    expect(await readAll()).toEqual(before);
  });

  it('account deletion emits individual.deleted in each organisation, before the membership goes', async () => {
    const from = await head();
    expect((await call(`${t.base}/users/unregister`, { method: 'POST', token: org.tokens.carol })).status).toBeLessThan(
      300,
    );
    const events = await readAll('', from);
    expect(events.map((e) => [e.type, e.subject])).toEqual([['individual.deleted', org.users.carol]]);
  });
});
