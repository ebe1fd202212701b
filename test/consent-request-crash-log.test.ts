/**
 * The webhook delivery log survives a crash: the real `assent serve` is killed (SIGKILL) while its
 * webhook requests are held open by the receiver, then started again on the same store. Every
 * request the receiver saw is in the delivery log (docs/notifications.md "Special consent request", Webhook): the
 * ones in flight at the kill as `unknown`, the ones sent after the restart as `delivered`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { type DemoRequest, restartAfterKill, serveDemoRequest } from './helpers/demo-request.js';
import { type Receiver, startReceiver, waitFor } from './helpers/receiver.js';

/** Individuals added to the demo organisation (alice is already subscribed). */
const ADDED = 80;
const BATCH = 20;

let demo: DemoRequest;
let hook: Receiver;

beforeAll(async () => {
  hook = await startReceiver();
  demo = await serveDemoRequest(ADDED, BATCH, hook.url, 'held');
}, 120_000);
afterAll(async () => {
  await demo?.s.cleanup();
  await hook?.close();
});

/** Every row of the organisation's delivery log, page by page. */
async function wholeLog(orgUrl: string, token: string): Promise<any[]> {
  const rows: any[] = [];
  let next: string | undefined = `${orgUrl}/notification-transports/webhook/attempts?limit=100`;
  while (next) {
    const page = await call(next, { token });
    expect(page.status).toBe(200);
    rows.push(...page.body.Attempts);
    next = page.body.Links.Next;
  }
  return rows;
}

it('every webhook request that reached the receiver, including those in flight at a crash, is in the delivery log', async () => {
  const { s, token, orgUrl, marketing } = demo;

  hook.delayMs = 60_000; // the receiver holds every request open: none is answered before the kill
  const res = await call(`${orgUrl}/purposes/${marketing}/attributes/consent`, { method: 'POST', body: {}, token });
  expect(res.status).toBe(202);
  const location = res.headers.get('location')!;
  await waitFor(
    async () => hook.received.length,
    (n) => n >= BATCH,
    30_000,
  );
  await s.kill();
  const inFlight = new Set(hook.received.map((r) => r.body.userId as string));
  expect(inFlight.size).toBeGreaterThanOrEqual(BATCH);

  hook.delayMs = 0;
  await restartAfterKill(s);
  const job = await waitFor(
    () => call(location, { token }),
    (r) => r.body?.State === 'completed',
    60_000,
  );
  // Everyone of the demo is asked: the ADDED individuals, alice, and the demo's own individuals.
  expect(job.body).toMatchObject({ State: 'completed', Failed: 0 });
  expect(job.body.Notified).toBeGreaterThanOrEqual(ADDED + 1);

  const log = (await wholeLog(orgUrl, token)).filter((a) => a.JobID === job.body.ID);
  const logged = (userId: string) => log.filter((a) => a.UserID === userId);
  const seen = new Map<string, number>();
  for (const r of hook.received) seen.set(r.body.userId, (seen.get(r.body.userId) ?? 0) + 1);
  for (const [userId, requests] of seen) {
    expect(logged(userId).length, `requests of ${userId} the receiver saw`).toBeGreaterThanOrEqual(requests);
  }
  // The requests in flight at the kill: each is logged with an unknown outcome, then delivered once resumed.
  for (const userId of inFlight) {
    expect(
      logged(userId)
        .map((a) => a.State)
        .sort(),
      userId,
    ).toEqual(['delivered', 'unknown']);
  }
  expect(log.filter((a) => a.State === 'sending')).toEqual([]);
  expect(log.filter((a) => a.State === 'delivered')).toHaveLength(job.body.Notified);
}, 150_000);
