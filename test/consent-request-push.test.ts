/**
 * The special consent request to individuals' devices (docs/api.md "Permissions and consents": "sends a notification to users'
 * mobile devices"; docs/notifications.md "Mobile push"), against loopback stand-ins that check what
 * FCM and APNs check (test/helpers/push.ts): credentials sealed and never shown; an iOS device
 * reached through APNs, an Android one through FCM, anyone else through the webhook; a token the
 * service reports gone cleared and never retried; a 429 with `Retry-After` and a 503 retried later.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { runCli } from './helpers/cli.js';
import { type ConsentOrg, runConsentRequest, setUpConsentOrg } from './helpers/consent-org.js';
import {
  APNS_UNREGISTERED,
  type ApnsStandIn,
  FCM_UNREGISTERED,
  type FcmStandIn,
  startApns,
  startFcm,
} from './helpers/push.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

let t: TestAssent;
let org: ConsentOrg;
let fcm: FcmStandIn;
let apns: ApnsStandIn;
let hook: Receiver;

/** carol's iPhone registered with APNs itself (a hex device token); dave's Android phone (an FCM token). */
const CAROL_TOKEN = 'a1'.repeat(32);
const DAVE_TOKEN = 'dAvE-fcm-token:APA91bH_test';

const orgUrl = () => `${t.base}/organizations/${org.orgId}`;
const transports = (body: unknown, token = org.tokens.owner) =>
  call(`${orgUrl()}/notification-transports`, { method: 'PUT', body, token });
const setClient = (who: string, token: string, type: number | string) =>
  call(`${t.base}/user`, { method: 'PATCH', body: { client: { token, type } }, token: org.tokens[who] });

const request = () => runConsentRequest(t, org, org.marketing.id);

beforeAll(async () => {
  fcm = await startFcm();
  apns = await startApns();
  hook = await startReceiver();
  t = await startAssent({
    ...fcm.env,
    ...apns.env,
    ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1',
    ASSENT_WEBHOOK_RETRIES: '2',
    ASSENT_WEBHOOK_RETRY_DELAY_SECONDS: '1',
  });
  org = await setUpConsentOrg(t);
});
afterAll(async () => {
  await t?.stop();
  await Promise.all([fcm?.close(), apns?.close(), hook?.close()]);
});
beforeEach(async () => {
  for (const s of [fcm, apns]) {
    s.received.length = 0;
    s.refused.length = 0;
    s.answer = () => ({ status: 200 });
  }
  expect((await setClient('carol', CAROL_TOKEN, 'iOS')).status).toBe(200);
  expect((await setClient('dave', DAVE_TOKEN, 2)).status).toBe(200);
});

describe('push credentials', () => {
  it('are sealed and never shown: PUT and GET answer only their public identifiers', async () => {
    const res = await transports({
      fcm: { serviceAccount: fcm.serviceAccount },
      apns: { key: apns.key, keyid: apns.keyId, teamid: apns.teamId, bundleid: apns.bundleId, environment: 'sandbox' },
    });
    expect(res.status).toBe(200);
    const read = await call(`${orgUrl()}/notification-transports`, { token: org.tokens.admin });
    for (const body of [res.body, read.body]) {
      expect(body.FCM).toEqual({
        Enabled: true,
        ProjectID: fcm.projectId,
        ClientEmail: `assent@${fcm.projectId}.iam.gserviceaccount.com`,
      });
      expect(body.APNs).toEqual({
        Enabled: true,
        KeyID: apns.keyId,
        TeamID: apns.teamId,
        BundleID: apns.bundleId,
        Environment: 'sandbox',
      });
      expect(JSON.stringify(body)).not.toMatch(/PRIVATE KEY|private_key/);
    }
    const [row] = rowsOf<{ fcm: string; apns: string }>(
      await t.store.db.execute(
        sql`SELECT fcm_key_sealed AS fcm, apns_key_sealed AS apns FROM notification_transports WHERE org_id = ${org.orgId}`,
      ),
    );
    expect(row!.fcm).not.toContain('PRIVATE KEY');
    expect(row!.apns).not.toContain('PRIVATE KEY');
  });

  it('each change is in the audit log with its actor, naming what changed and never a key or secret (ASVS 5.0 V16.3.2)', async () => {
    const before = (await call(`${orgUrl()}/audit-log?limit=1`, { token: org.tokens.owner })).body.Entries[0]?.ID;
    const set = await transports({ webhook: { url: hook.url }, fcm: { serviceAccount: fcm.serviceAccount } });
    expect(set.status).toBe(200);
    expect(set.body.Webhook.Secret).toMatch(/.{20,}/);
    expect((await transports({ apns: null }, org.tokens.admin)).status).toBe(200);
    const entries = (await call(`${orgUrl()}/audit-log?limit=2`, { token: org.tokens.owner })).body.Entries;
    expect(entries.map((e: { ID: string }) => e.ID)).not.toContain(before);
    expect(entries).toMatchObject([
      { Action: 'notifications.transports.update', ActorUserID: org.users.admin, Detail: { apns: 'removed' } },
      {
        Action: 'notifications.transports.update',
        ActorUserID: org.users.owner,
        Detail: { webhook: hook.url, webhookSecret: 'new' },
      },
    ]);
    // The FCM key sent was the one stored already: no change, so the entry does not name it.
    expect(entries[1].Detail).not.toHaveProperty('fcm');
    expect(JSON.stringify(entries)).not.toMatch(/PRIVATE KEY|private_key/);
    expect(JSON.stringify(entries)).not.toContain(set.body.Webhook.Secret);
    // Put back what the other tests expect: both push transports, no webhook.
    const restored = await transports({
      webhook: null,
      apns: { key: apns.key, keyid: apns.keyId, teamid: apns.teamId, bundleid: apns.bundleId, environment: 'sandbox' },
    });
    expect(restored.status).toBe(200);
  });

  it('a malformed key, key ID or service account is a 400 and changes nothing', async () => {
    const before = (await call(`${orgUrl()}/notification-transports`, { token: org.tokens.owner })).body;
    const bad = [
      { fcm: { serviceaccount: '{"type":"service_account"}' } },
      { fcm: { serviceaccount: 'not json' } },
      { apns: { key: 'not a key', keyid: apns.keyId, teamid: apns.teamId, bundleid: apns.bundleId } },
      { apns: { key: apns.key, keyid: 'short', teamid: apns.teamId, bundleid: apns.bundleId } },
      { apns: { key: apns.key, keyid: apns.keyId, teamid: apns.teamId, bundleid: 'no dots' } },
    ];
    for (const body of bad) {
      const res = await transports(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body)).not.toContain('PRIVATE KEY');
    }
    expect((await call(`${orgUrl()}/notification-transports`, { token: org.tokens.owner })).body).toEqual(before);
  });

  it('only an admin of the organisation may set them', async () => {
    expect((await transports({ fcm: null }, org.tokens.carol)).status).toBe(403);
  });
});

describe('push endpoint settings', () => {
  it('a malformed endpoint or an unreadable CA file refuses to start with exit 2, naming the variable', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'assent-push-config-'));
    try {
      for (const [name, value] of [
        ['ASSENT_FCM_URL', 'ftp://fcm.example'],
        ['ASSENT_FCM_TOKEN_URL', 'not a url'],
        ['ASSENT_APNS_HOST', 'https://api.push.apple.com'],
        ['ASSENT_APNS_CA_FILE', path.join(dataDir, 'missing.pem')],
      ]) {
        const res = await runCli(['migrate'], { ASSENT_DATA_DIR: dataDir, [name!]: value! }, 30_000);
        expect(res.code, name).toBe(2);
        expect(res.stderr, name).toContain(name);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Four CLI starts, each allowed 30 s (runCli): on a loaded CI machine they took over 30 s together.
  }, 120_000);
});

describe('Client.Type', () => {
  it('takes 1/2 or a device name in any case, stores the integer, and refuses an unknown name', async () => {
    expect((await setClient('carol', CAROL_TOKEN, 'IOS')).body.User.Client).toEqual({ Token: CAROL_TOKEN, Type: 1 });
    expect((await setClient('dave', DAVE_TOKEN, 'Android')).body.User.Client).toEqual({ Token: DAVE_TOKEN, Type: 2 });
    expect((await setClient('dave', DAVE_TOKEN, 'fcm')).body.User.Client.Type).toBe(2);
    const res = await setClient('dave', 'x', 'nokia');
    expect(res.status).toBe(400);
    expect((await call(`${t.base}/user`, { token: org.tokens.dave })).body.User.Client.Token).toBe(DAVE_TOKEN);
  });
});

describe('delivery', () => {
  beforeAll(async () => {
    const res = await transports({
      fcm: { serviceaccount: JSON.parse(fcm.serviceAccount) },
      apns: { key: apns.key, keyid: apns.keyId, teamid: apns.teamId, bundleid: apns.bundleId },
      webhook: { url: hook.url },
    });
    expect(res.status).toBe(200);
  });

  it('reaches the iOS device through APNs and the Android one through FCM, once each, as the services require', async () => {
    const job = await request();
    expect(job).toMatchObject({ State: 'completed', Notified: 2, Failed: 0, Skipped: 0 });
    expect(job.ByTransport).toEqual({
      Webhook: { Notified: 0, Failed: 0 },
      Email: { Notified: 0, Failed: 0 },
      FCM: { Notified: 1, Failed: 0 },
      APNs: { Notified: 1, Failed: 0 },
    });
    expect(fcm.refused).toEqual([]);
    expect(apns.refused).toEqual([]);
    expect(fcm.received.map((p) => p.token)).toEqual([DAVE_TOKEN]);
    expect(apns.received.map((p) => p.token)).toEqual([CAROL_TOKEN]);
    expect(apns.received[0]!.headers['apns-push-type']).toBe('alert');
    expect(apns.received[0]!.body.aps.alert.body).toContain('Marketing');
    expect(fcm.received[0]!.body.data).toMatchObject({ type: 'consent.request', jobId: job.ID });
    expect(hook.received).toEqual([]);
  });

  it('falls back to the webhook for a device the organisation cannot push to', async () => {
    expect((await transports({ apns: null })).status).toBe(200);
    try {
      const job = await request();
      expect(job.ByTransport.Webhook.Notified).toBe(1); // carol: an APNs token, no APNs transport
      expect(job.ByTransport.FCM.Notified).toBe(1);
      expect(apns.received).toEqual([]);
      expect(hook.received.map((r) => r.body.userId)).toEqual([org.users.carol]);
    } finally {
      hook.received.length = 0;
      await transports({ apns: { key: apns.key, keyid: apns.keyId, teamid: apns.teamId, bundleid: apns.bundleId } });
    }
  });

  it('a token the service reports gone (APNs 410, FCM UNREGISTERED) is cleared from the user and never retried', async () => {
    fcm.answer = () => FCM_UNREGISTERED;
    apns.answer = () => APNS_UNREGISTERED;
    const job = await request();
    expect(job).toMatchObject({ State: 'completed', Notified: 0, Failed: 2 });
    expect(job.ByTransport.FCM).toEqual({ Notified: 0, Failed: 1 });
    expect(job.ByTransport.APNs).toEqual({ Notified: 0, Failed: 1 });
    for (const who of ['carol', 'dave']) {
      expect((await call(`${t.base}/user`, { token: org.tokens[who] })).body.User.Client.Token).toBe('');
    }
    await new Promise((r) => setTimeout(r, 2500)); // past the first retry's delay
    expect(fcm.received).toHaveLength(1);
    expect(apns.received).toHaveLength(1);
  });

  it('a 429 with Retry-After (FCM) and a 503 (APNs) are retried later, and then delivered', async () => {
    let first = true;
    fcm.answer = () => {
      if (!first) return { status: 200 };
      first = false;
      return {
        status: 429,
        headers: { 'retry-after': '3' },
        body: { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } },
      };
    };
    apns.answer = () =>
      apns.received.length === 1 ? { status: 503, body: { reason: 'ServiceUnavailable' } } : { status: 200 };
    const job = await request();
    expect(job).toMatchObject({ State: 'completed', Notified: 2, Failed: 0 });
    expect(fcm.received).toHaveLength(2);
    expect(apns.received).toHaveLength(2);
    // Retry-After (3 s) outweighs the 1 s backoff; APNs sends none, so its retry follows the backoff.
    expect(fcm.received[1]!.at - fcm.received[0]!.at).toBeGreaterThanOrEqual(2900);
    expect(apns.received[1]!.at - apns.received[0]!.at).toBeGreaterThanOrEqual(900);
    expect(fcm.grants).toBeGreaterThan(0);
  });
});
