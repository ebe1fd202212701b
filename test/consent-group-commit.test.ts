/**
 * Group commit (src/consent/records/group-commit.ts): changes of different individuals that arrive
 * together share one statement and one commit. What must hold whatever the grouping: every change
 * is written with its event or not at all, each answer comes after its own commit, and a change
 * that fails does not take the others of its statement down with it.
 */
import { describe, expect, it } from 'vitest';
import { call, onPostgres } from './helpers/assent.js';
import { consentSuite } from './helpers/consent-org.js';
import { whileTableHeld } from './helpers/pg-stats.js';

const suite = consentSuite();
const INDIVIDUALS = 24;

/** Subscribes `count` new individuals and answers their user and consent record IDs. */
async function addIndividuals(prefix: string, count: number): Promise<{ userId: string; consentId: string }[]> {
  const added = [];
  for (let i = 0; i < count; i++) {
    const res = await call(`${suite.t.base}/organizations/${suite.org.orgId}/users`, {
      token: suite.org.tokens.admin,
      body: { username: `${prefix}-${i}@shop.example`, name: `${prefix} ${i}` },
    });
    expect(res.status).toBe(201);
    added.push({ userId: res.body.User.ID as string, consentId: res.body.ConsentID as string });
  }
  return added;
}

/**
 * PATCHes one attribute of marketing for an individual,
 * through the developer's API key (acting for them), with a request ID.
 */
function patch(who: { userId: string; consentId: string }, attribute: string, consented: string, requestId: string) {
  const url =
    `${suite.t.base}/organizations/${suite.org.orgId}/users/${who.userId}/consents/${who.consentId}` +
    `/purposes/${suite.org.marketing.id}/attributes/${attribute}`;
  return call(url, {
    method: 'PATCH',
    token: suite.org.apiKeys.developer,
    scheme: 'ApiKey',
    body: { consented, days: 0 },
    headers: { 'x-request-id': requestId },
  });
}

/**
 * The transactions (xmin) that wrote the events with these request IDs:
 * fewer than the events when changes shared commits.
 */
async function eventsAndTransactions(prefix: string): Promise<{ events: number; transactions: number }> {
  const { rows } = await suite.t.store.raw(
    `SELECT count(*)::int AS events, count(DISTINCT xmin::text)::int AS transactions
     FROM consent_events WHERE request_id LIKE $1`,
    [`${prefix}-%`],
  );
  return rows[0] as { events: number; transactions: number };
}

/**
 * The grouping itself: without it, every event would have its own transaction. Checked on
 * PostgreSQL only: PGlite runs each statement on the main thread to its end, so no second write is
 * ever waiting while one runs, and every change commits alone there (the other checks still hold).
 */
function expectGrouped(written: { events: number; transactions: number }): void {
  if (onPostgres) expect(written.transactions).toBeLessThan(written.events);
  else expect(written.transactions).toBe(written.events);
}

describe(`group commit of consent changes (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('changes of many individuals at once share commits, and each is stored with its own event', async () => {
    const people = await addIndividuals('gc', INDIVIDUALS);
    const { marketing } = suite.org;
    const sendAll = () =>
      Promise.all(
        people.flatMap((who, i) => [
          patch(who, marketing.email, 'Allow', `gc-${i}-email`),
          patch(who, marketing.phone, i % 2 ? 'AskMe' : 'Allow', `gc-${i}-phone`),
        ]),
      );
    // On PostgreSQL the first writes wait on a lock of consent_events until the server has taken
    // every change, so that the grouping does not depend on how fast a loaded machine sends them.
    const answers = await (onPostgres
      ? whileTableHeld(suite.t, 'consent_events', sendAll, {
          pending: () => suite.t.ctx.pending.consentWrites(),
          expected: 2 * INDIVIDUALS,
        })
      : sendAll());
    expect(answers.map((a) => a.status)).toEqual(Array(2 * INDIVIDUALS).fill(200));
    const written = await eventsAndTransactions('gc');
    expect(written.events).toBe(2 * INDIVIDUALS);
    expectGrouped(written);

    for (const [i, who] of people.entries()) {
      const current = await call(
        `${suite.t.base}/organizations/${suite.org.orgId}/users/${who.userId}/consents/${who.consentId}/purposes/${marketing.id}`,
        { token: suite.org.apiKeys.developer, scheme: 'ApiKey' },
      );
      const value = (attribute: string) =>
        current.body.Consents.Consents.find((c: any) => c.ID === attribute).Status.Consent;
      expect([value(marketing.email), value(marketing.phone)]).toEqual(['Allow', i % 2 ? 'AskMe' : 'Allow']);
      const history = await call(
        `${suite.t.base}/organizations/${suite.org.orgId}/users/${who.userId}/consents/history`,
        { token: suite.org.tokens.dpo },
      );
      expect(history.body.Events.map((e: any) => [e.RequestID, e.OldValue]).sort()).toEqual([
        [`gc-${i}-email`, 'Disallow'],
        [`gc-${i}-phone`, 'Disallow'],
      ]);
    }
    const verify = await call(`${suite.t.base}/organizations/${suite.org.orgId}/consents/history/verify`, {
      token: suite.org.tokens.dpo,
    });
    expect(verify.body).toMatchObject({ Valid: true, FirstBrokenSeq: null });
  });

  it('a change that fails in the database fails alone: the changes grouped with it are still stored', async () => {
    const people = await addIndividuals('poison', INDIVIDUALS);
    // A fault injected into one change: its event insert raises, as a broken row or a lost connection would.
    await suite.t.store.raw(
      `CREATE FUNCTION test_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'poisoned change'; END $$`,
    );
    await suite.t.store.raw(
      `CREATE TRIGGER test_poison BEFORE INSERT ON consent_events
       FOR EACH ROW WHEN (NEW.request_id = 'poison-7') EXECUTE FUNCTION test_poison()`,
    );
    try {
      const answers = await Promise.all(
        people.map((who, i) => patch(who, suite.org.marketing.email, 'Allow', `poison-${i}`)),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map((_, i) => (i === 7 ? 500 : 200)));
      const written = await eventsAndTransactions('poison');
      // The others of its statement were retried alone, each in its own transaction.
      expect(written.events).toBe(INDIVIDUALS - 1);
      const poisoned = await call(
        `${suite.t.base}/organizations/${suite.org.orgId}/users/${people[7]!.userId}/consents/${people[7]!.consentId}` +
          `/purposes/${suite.org.marketing.id}`,
        { token: suite.org.apiKeys.developer, scheme: 'ApiKey' },
      );
      // Nothing of the failed change was stored: its consent is still the default.
      expect(poisoned.body.Consents.Consents.find((c: any) => c.ID === suite.org.marketing.email).Status.Consent).toBe(
        'Disallow',
      );
    } finally {
      await suite.t.store.raw('DROP TRIGGER test_poison ON consent_events');
      await suite.t.store.raw('DROP FUNCTION test_poison()');
    }
  });
});
