/**
 * Event webhooks delivered inline (`ASSENT_EVENT_WEBHOOK_DELIVERY=inline`, docs/configuration.md; docs/events.md
 * "Delivery guarantees"): the request thread's own dispatcher delivers, with no thread of its own and none of its
 * connections. The embedded store always delivers so; on PostgreSQL it is the setting's other value. A receiver on
 * loopback verifies each delivery with the `standardwebhooks` library, as a receiver in production would.
 */
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, onPostgres, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';
import { type Receiver, startReceiver, waitFor } from './helpers/receiver.js';
import { threadNices } from './helpers/threads.js';

let t: TestAssent;
let org: ConsentOrg;
let receiver: Receiver;
let recordId: string;

beforeAll(async () => {
  t = await startAssent({ ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1', ASSENT_EVENT_WEBHOOK_DELIVERY: 'inline' });
  org = await setUpConsentOrg(t);
  recordId = await consentIdOf(t, org, 'carol');
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

describe('inline delivery', () => {
  it('delivers each consent change in order, signed, from the request thread: no delivery thread, no connections of its own', async () => {
    const hook = await call(`${t.base}/organizations/${org.orgId}/webhooks`, {
      method: 'POST',
      token: org.tokens.owner,
      body: { payloadUrl: receiver.url, subscribedEvents: ['consent.allowed', 'consent.disallowed'] },
    });
    expect(hook.status).toBe(201);
    const url = `${consentsUrl(t, org, 'carol')}/${recordId}/purposes/${org.marketing.id}/attributes/${org.marketing.email}`;
    for (const consented of ['Allow', 'Disallow', 'Allow'])
      expect((await call(url, { method: 'PATCH', token: org.tokens.carol, body: { consented, days: 0 } })).status).toBe(
        200,
      );
    const wh = new Webhook(hook.body.secret);
    const got = await waitFor(
      async () => receiver.received.map((r) => wh.verify(r.raw, r.headers as Record<string, string>) as any),
      (v) => v.length >= 3,
    );
    expect(got.map((e) => e.type)).toEqual(['consent.allowed', 'consent.disallowed', 'consent.allowed']);
    const seqs = got.map((e) => e.data.HistorySeq);
    for (const [i, seq] of seqs.entries()) expect(seq).toBeGreaterThan(i === 0 ? 0 : seqs[i - 1]);
    // No thread lowered to nice 10: the delivery thread was never started.
    expect(threadNices().filter((n) => n === 10)).toHaveLength(0);
    if (onPostgres) {
      const named = await t.store.db.execute(sql`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND application_name = 'assent-webhook-delivery'`);
      expect(rowsOf<{ n: number }>(named)[0]?.n).toBe(0);
    }
  });
});
