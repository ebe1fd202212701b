/**
 * Retries drain at the rate of first attempts: a receiver that refuses every delivery for a while
 * (a short outage during a special consent request) and then recovers gets every retry within a
 * few seconds of their due time, not at a fixed small batch per poll (16 per 2 s before, so the
 * 400 retries here took about 50 s).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mapLimit } from '../src/platform/util/pool.js';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, setUpConsentOrg } from './helpers/consent-org.js';
import { type Received, type Receiver, startReceiver, waitFor } from './helpers/receiver.js';

const ADDED = 400;
/** carol and dave decided nothing on the marketing purpose either. */
const EXPECTED = ADDED + 2;
/**
 * Seconds from the receiver's recovery by which every retry must
 * have arrived (the first retry is due 1 s after its failure).
 */
const BOUND_SECONDS = 12;

let t: TestAssent;
let org: ConsentOrg;
let hook: Receiver;

beforeAll(async () => {
  t = await startAssent({
    ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1',
    ASSENT_WEBHOOK_RETRIES: '3',
    ASSENT_WEBHOOK_RETRY_DELAY_SECONDS: '1',
  });
  org = await setUpConsentOrg(t);
  hook = await startReceiver();
  const numbers = Array.from({ length: ADDED }, (_, i) => i);
  await mapLimit(numbers, 8, async (i) => {
    expect(
      (
        await call(`${t.base}/organizations/${org.orgId}/users`, {
          body: { username: `drain${i}@shop.example` },
          token: org.tokens.owner,
        })
      ).status,
    ).toBe(201);
  });
}, 120_000);
afterAll(async () => {
  await hook?.close();
  await t?.stop();
});

it('after a receiver outage, every failed delivery is retried and arrives within seconds of its due time', async () => {
  expect(
    (
      await call(`${t.base}/organizations/${org.orgId}/notification-transports`, {
        method: 'PUT',
        body: { webhook: { url: hook.url } },
        token: org.tokens.owner,
      })
    ).status,
  ).toBe(200);
  let down = true;
  const delivered: Received[] = [];
  hook.answer = (r) => {
    if (down) return 503;
    delivered.push(r);
    return 200;
  };
  // Individuals refused so far: under load an early failure's retry (due 1 s later) may arrive
  // before the last first attempt, so the count of requests alone would overshoot.
  const refused = () => new Set(hook.received.map((r) => r.body.userId)).size;
  const res = await call(`${t.base}/organizations/${org.orgId}/purposes/${org.marketing.id}/attributes/consent`, {
    method: 'POST',
    body: {},
    token: org.tokens.owner,
  });
  expect(res.status).toBe(202);
  const location = res.headers.get('location')!;
  // The outage lasts until every first attempt has been refused.
  expect(
    await waitFor(
      async () => refused(),
      (n) => n >= EXPECTED,
      30_000,
    ),
  ).toBe(EXPECTED);
  down = false;
  const recovered = Date.now();
  const job = await waitFor(
    () => call(location, { token: org.tokens.owner }),
    (r) => r.body?.State === 'completed',
    BOUND_SECONDS * 1000,
  );
  const seconds = (Date.now() - recovered) / 1000;
  expect(job.body, `drained in ${seconds} s`).toMatchObject({ State: 'completed', Notified: EXPECTED, Failed: 0 });
  expect(seconds).toBeLessThan(BOUND_SECONDS);
  // Each individual: refused at least once, then delivered exactly once, under one idempotency key.
  expect(delivered).toHaveLength(EXPECTED);
  expect(new Set(delivered.map((r) => r.body.userId)).size).toBe(EXPECTED);
  expect(new Set(hook.received.map((r) => r.headers['idempotency-key'])).size).toBe(EXPECTED);
}, 120_000);
