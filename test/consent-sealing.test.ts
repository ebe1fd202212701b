/**
 * Consent events are written with their change and sealed into the organisation's hash chain just
 * after the commit (src/consent/evidence/sealer.ts). These tests check what that must never lose: every
 * committed event ends up sealed, in one unbroken chain, and the chain's readers see it sealed.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { consentIdOf, consentSuite, consentsUrl } from './helpers/consent-org.js';

const suite = consentSuite();

const verify = async () =>
  (
    await call(`${suite.t.base}/organizations/${suite.org.orgId}/consents/history/verify`, {
      token: suite.org.tokens.dpo,
    })
  ).body;

async function patch(user: string, attribute: string, consented: string) {
  const record = await consentIdOf(suite.t, suite.org, user);
  const url = `${consentsUrl(suite.t, suite.org, user)}/${record}/purposes/${suite.org.marketing.id}/attributes/${attribute}`;
  return call(url, { method: 'PATCH', token: suite.org.tokens[user], body: { consented, days: 0 } });
}

describe('sealing consent events into the chain (GDPR Art. 7(1) evidence)', () => {
  it('a change is shown sealed (seq, hash, link) by the history read right after it', async () => {
    expect((await patch('carol', suite.org.marketing.email, 'Allow')).status).toBe(200);
    const page = await call(`${consentsUrl(suite.t, suite.org, 'carol')}/history?limit=1`, {
      token: suite.org.tokens.carol,
    });
    const [event] = page.body.Events;
    expect(event).toMatchObject({ NewValue: 'Allow', AttributeID: suite.org.marketing.email });
    expect(event.Seq).toBeGreaterThan(0);
    expect(event.Hash).toMatch(/^[0-9a-f]{64}$/);
    expect(event.Link).toMatch(/^[0-9a-f]{64}$/);
  });

  it('parallel changes to several records are all sealed into one unbroken chain', async () => {
    const before = (await verify()).Events as number;
    const users = ['carol', 'dave'];
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        patch(
          users[i % 2]!,
          i % 4 < 2 ? suite.org.marketing.email : suite.org.marketing.phone,
          ['Allow', 'Disallow', 'AskMe'][i % 3]!,
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    expect(await verify()).toEqual({ Valid: true, Events: before + 40, FirstBrokenSeq: null, Reason: '' });
  });

  it('an event committed but never sealed (its process died after the commit) is sealed by the sweep within 3 s', async () => {
    const before = (await verify()).Events as number;
    const id = randomUUID();
    const recordId = await consentIdOf(suite.t, suite.org, 'dave');
    await suite.t.store.raw(
      `INSERT INTO consent_events (id, org_id, record_id, user_id, purpose_id, attribute_id, old_value, new_value,
         old_days, new_days, occurred_at, actor, channel, request_id)
       VALUES ($1, $2, $3, $4, $5, $6, 'Disallow', 'Allow', 0, 0, now(), '{"type":"individual"}',
         '{"endpoint":"test","userAgent":""}', 'test-orphan')`,
      [id, suite.org.orgId, recordId, suite.org.users.dave, suite.org.marketing.id, suite.org.marketing.email],
    );
    // What the change's statement also wrote: the event's place in the sealer's queue.
    await suite.t.store.raw(
      `INSERT INTO consent_event_queue (org_id, written, event_id)
       SELECT org_id, written, id FROM consent_events WHERE id = $1`,
      [id],
    );
    const sealedSeq = async () =>
      (await suite.t.store.raw('SELECT seq FROM consent_event_seals WHERE event_id = $1', [id])).rows[0] as
        | { seq: string | number }
        | undefined;
    const until = Date.now() + 3000;
    while ((await sealedSeq()) === undefined && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(Number((await sealedSeq())?.seq)).toBe(before + 1);
    expect(await verify()).toEqual({ Valid: true, Events: before + 1, FirstBrokenSeq: null, Reason: '' });
  });
  it('a backlog of more than one sealing batch (1000 events) is sealed in order, each event once, and leaves the queue empty', async () => {
    const before = (await verify()).Events as number;
    const recordId = await consentIdOf(suite.t, suite.org, 'carol');
    // 2500 committed events waiting in the queue, as a process that died after writing them leaves
    // them (the same columns and queue row that a change's statement writes).
    await suite.t.store.raw(
      `WITH events AS (
         INSERT INTO consent_events (id, org_id, record_id, user_id, purpose_id, attribute_id, old_value, new_value,
           old_days, new_days, occurred_at, actor, channel, request_id)
         SELECT gen_random_uuid(), $1, $2, $3, $4, $5, 'Disallow', 'Allow', 0, 0, now(), '{"type":"individual"}',
           '{"endpoint":"test","userAgent":""}', 'backlog-' || n
         FROM generate_series(1, 2500) AS n ORDER BY n RETURNING org_id, written, id)
       INSERT INTO consent_event_queue (org_id, written, event_id) SELECT org_id, written, id FROM events`,
      [suite.org.orgId, recordId, suite.org.users.carol, suite.org.marketing.id, suite.org.marketing.email],
    );
    expect(await verify()).toEqual({ Valid: true, Events: before + 2500, FirstBrokenSeq: null, Reason: '' });
    const queued = await suite.t.store.raw('SELECT count(*)::int AS n FROM consent_event_queue WHERE org_id = $1', [
      suite.org.orgId,
    ]);
    expect(queued.rows[0]).toEqual({ n: 0 });
    // Sealed in the order they were written: backlog-1 first, backlog-2500 last.
    const order = await suite.t.store.raw(
      `SELECT e.request_id FROM consent_event_seals s JOIN consent_events e ON e.id = s.event_id
       WHERE s.org_id = $1 AND e.request_id LIKE 'backlog-%' ORDER BY s.seq`,
      [suite.org.orgId],
    );
    expect(order.rows.map((r) => (r as { request_id: string }).request_id)).toEqual(
      Array.from({ length: 2500 }, (_, i) => `backlog-${i + 1}`),
    );
  });
});
