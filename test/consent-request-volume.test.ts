/**
 * The special consent request at a volume where one batch spans several settle chunks (more than
 * 64 individuals): every individual is notified once, counted once and logged once, and the job
 * completes.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, runConsentRequest, setUpConsentOrg } from './helpers/consent-org.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

const ADDED = 300;
let t: TestAssent;
let org: ConsentOrg;
let hook: Receiver;

beforeAll(async () => {
  t = await startAssent({ ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1' });
  org = await setUpConsentOrg(t);
  hook = await startReceiver();
  for (let i = 0; i < ADDED; i++) {
    expect(
      (
        await call(`${t.base}/organizations/${org.orgId}/users`, {
          body: { username: `bulk${i}@shop.example` },
          token: org.tokens.owner,
        })
      ).status,
    ).toBe(201);
  }
});
afterAll(async () => {
  await hook?.close();
  await t?.stop();
});

it('one batch of several hundred individuals: each is notified, counted and logged exactly once, and the job completes', async () => {
  expect(
    (
      await call(`${t.base}/organizations/${org.orgId}/notification-transports`, {
        method: 'PUT',
        body: { webhook: { url: hook.url } },
        token: org.tokens.owner,
      })
    ).status,
  ).toBe(200);
  // Answers at varying speed, so that deliveries finish while earlier ones are being stored.
  hook.delayMs = 3;
  const job = { body: await runConsentRequest(t, org, org.marketing.id, 60_000) };
  const expected = ADDED + 2; // carol and dave decided nothing either
  expect(job.body).toMatchObject({ State: 'completed', Notified: expected, Skipped: 0, Failed: 0 });
  expect(new Set(hook.received.map((r) => r.headers['idempotency-key'])).size).toBe(expected);
  expect(hook.received).toHaveLength(expected);
  const [counts] = rowsOf<{ attempts: number; pending: number }>(
    await t.store.db.execute(sql`
    SELECT (SELECT count(*)::int FROM webhook_attempts WHERE job_id = ${job.body.ID}) AS attempts,
           (SELECT count(*)::int FROM consent_request_deliveries
             WHERE job_id = ${job.body.ID} AND state <> 'sent') AS pending`),
  );
  expect(counts).toEqual({ attempts: expected, pending: 0 });
}, 120_000);
