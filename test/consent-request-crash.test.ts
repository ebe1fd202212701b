/**
 * A special consent request survives a crash: the real `assent serve` is killed (SIGKILL) in the
 * middle of a job and started again on the same store; the job finishes, every individual is
 * notified, and nobody under two idempotency keys. Deliveries in flight at the kill are sent again
 * with the same key (a receiver de-duplicates on it); the job counts each individual once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { type DemoRequest, restartAfterKill, serveDemoRequest } from './helpers/demo-request.js';
import { type Receiver, startReceiver, waitFor } from './helpers/receiver.js';

/** Individuals added to the demo organisation (alice is already subscribed). */
const ADDED = 150;
const BATCH = 20;

let demo: DemoRequest;
let hook: Receiver;

beforeAll(async () => {
  hook = await startReceiver();
  demo = await serveDemoRequest(ADDED, BATCH, hook.url, 'person');
}, 120_000);
afterAll(async () => {
  await demo?.s.cleanup();
  await hook?.close();
});

it('killing the process mid-job and starting it again finishes the job without notifying anyone under two keys', async () => {
  const { s, token, orgUrl, marketing } = demo;

  hook.delayMs = 25; // slow enough that the kill lands mid-job
  const res = await call(`${orgUrl}/purposes/${marketing}/attributes/consent`, { method: 'POST', body: {}, token });
  expect(res.status).toBe(202);
  const location = res.headers.get('location')!;
  await waitFor(
    async () => hook.received.length,
    (n) => n >= 40,
    30_000,
  );
  await s.kill();
  const atKill = hook.received.length;
  expect(atKill).toBeLessThan(ADDED); // the job was interrupted, not finished

  await restartAfterKill(s);
  const job = await waitFor(
    () => call(location, { token }),
    (r) => r.body?.State === 'completed',
    60_000,
  );
  const keys = new Set(hook.received.map((r) => String(r.headers['idempotency-key'])));
  const users = new Set(hook.received.map((r) => r.body.userId));
  // Everyone of the demo is asked: the ADDED individuals, alice, and the demo's own individuals.
  const notified = job.body.Notified as number;
  expect(notified).toBeGreaterThanOrEqual(ADDED + 1);
  expect(job.body).toMatchObject({ State: 'completed', Skipped: 0, Failed: 0 });
  expect(users.size).toBe(notified); // everyone the job counts was reached
  expect(keys.size).toBe(notified); // one key per individual
  // Sent again: only what was in flight at the kill (at most one settle chunk per batch worker).
  expect(hook.received.length - keys.size).toBeLessThanOrEqual(2 * BATCH);
}, 150_000);
