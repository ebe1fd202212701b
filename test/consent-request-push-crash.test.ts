/**
 * A special consent request through FCM and APNs survives a crash (docs/notifications.md "Mobile
 * push", "Crashes"): the real `assent serve` is killed (SIGKILL) in the middle of the fan-out and
 * started again on the same store; every individual's device gets the notification, nobody's under
 * two collapse IDs, and the job counts each individual once, split by transport.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { type DemoRequest, restartAfterKill, serveDemoRequest } from './helpers/demo-request.js';
import { type ApnsStandIn, type FcmStandIn, type Pushed, startApns, startFcm } from './helpers/push.js';
import { waitFor } from './helpers/receiver.js';

/** Individuals added to the demo organisation (alice is already subscribed). */
const ADDED = 150;
const BATCH = 20;

let demo: DemoRequest;
let fcm: FcmStandIn;
let apns: ApnsStandIn;

beforeAll(async () => {
  fcm = await startFcm();
  apns = await startApns();
  demo = await serveDemoRequest(ADDED, BATCH, 'http://127.0.0.1:9/unused', 'device', { ...fcm.env, ...apns.env });
  const { s, token, orgUrl } = demo;
  const set = await call(`${orgUrl}/notification-transports`, {
    method: 'PUT',
    body: {
      webhook: null,
      fcm: { serviceaccount: fcm.serviceAccount },
      apns: { key: apns.key, keyid: apns.keyId, teamid: apns.teamId, bundleid: apns.bundleId },
    },
    token,
  });
  expect(set.status).toBe(200);
  // Every individual gets a device: about half iPhones with APNs tokens, half Android phones.
  await s.stop();
  await s.store.query(`
    UPDATE users SET
      client_type = CASE WHEN substr(id::text, 36, 1) < '8' THEN 1 ELSE 2 END,
      client_token = CASE WHEN substr(id::text, 36, 1) < '8'
        THEN replace(id::text, '-', '') || replace(id::text, '-', '') ELSE 'fcm:' || id::text END`);
  await s.restart();
}, 180_000);
afterAll(async () => {
  await demo?.s.cleanup();
  await Promise.all([fcm?.close(), apns?.close()]);
});

const collapseId = (p: Pushed) => String(p.body.android?.collapse_key ?? p.headers['apns-collapse-id']);

it('killing the process mid-fan-out and starting it again reaches every device once, under one collapse ID each', async () => {
  const { s, token, orgUrl, marketing } = demo;
  fcm.delayMs = 25; // slow enough that the kill lands mid-job
  apns.delayMs = 25;
  const res = await call(`${orgUrl}/purposes/${marketing}/attributes/consent`, { method: 'POST', body: {}, token });
  expect(res.status).toBe(202);
  const location = res.headers.get('location')!;
  const all = () => [...fcm.received, ...apns.received];
  await waitFor(
    async () => all().length,
    (n) => n >= 40,
    30_000,
  );
  await s.kill();
  expect(all().length).toBeLessThan(ADDED); // the job was interrupted, not finished

  await restartAfterKill(s);
  const job = await waitFor(
    () => call(location, { token }),
    (r) => r.body?.State === 'completed',
    60_000,
  );
  expect(fcm.refused).toEqual([]);
  expect(apns.refused).toEqual([]);
  const tokens = new Set(all().map((p) => p.token));
  const collapse = new Set(all().map(collapseId));
  // Everyone of the demo with a device is asked: the ADDED individuals, alice, and the demo's own.
  const notified = job.body.Notified as number;
  expect(notified).toBeGreaterThanOrEqual(ADDED + 1);
  expect(job.body).toMatchObject({ State: 'completed', Skipped: 0, Failed: 0 });
  expect(job.body.ByTransport.FCM.Notified + job.body.ByTransport.APNs.Notified).toBe(notified);
  expect(job.body.ByTransport.FCM.Notified).toBeGreaterThan(0);
  expect(job.body.ByTransport.APNs.Notified).toBeGreaterThan(0);
  expect(tokens.size).toBe(notified); // every device reached, counted once
  expect(collapse.size).toBe(notified); // one collapse ID per individual: a repeat replaces the first
  // Sent again: only what was in flight at the kill (at most one settle chunk per batch worker).
  expect(all().length - tokens.size).toBeLessThanOrEqual(2 * BATCH);
}, 180_000);
