/**
 * The console's mobile push forms over HTTP (docs/web.md "Console"; docs/notifications.md "Mobile
 * push"): an owner sets, edits and removes the FCM and APNs credentials through the same service and
 * checks as `PUT …/notification-transports`, and the JSON API's GET shows them (identifiers only); the
 * keys never appear in a page; an APNs edit with the key field empty keeps the stored key; a key the
 * service refuses is a 4xx page with its message and stores nothing; removal takes the confirmation
 * step; a DPO, a developer and a post without the CSRF token change nothing.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call } from './helpers/assent.js';
import { consoleSuite } from './helpers/consent-org.js';
import { type ApnsStandIn, type FcmStandIn, startApns, startFcm } from './helpers/push.js';

const s = consoleSuite();
let fcm: FcmStandIn;
let apns: ApnsStandIn;
const page = () => `/console/${s.org.orgId}/integrations`;
const push = (path: string) => `${page()}/push/${path}`;
const transports = async () =>
  (await call(`${s.t.base}/organizations/${s.org.orgId}/notification-transports`, { token: s.org.tokens.owner })).body;
/** The stored sealed APNs key: the same text only when it was not written again. */
const sealedApnsKey = async () =>
  rowsOf<{ k: string | null }>(
    await s.t.store.db.execute(
      sql`SELECT apns_key_sealed AS k FROM notification_transports WHERE org_id = ${s.org.orgId}`,
    ),
  )[0]?.k;
/** The push section of a page, where a refused form's message shows. */
const pushSection = (html: string) => /<section class="card" aria-labelledby="push">[\s\S]*?<\/section>/.exec(html)![0];
/** A line from the middle of each private key: present in a page only if a key leaked into it. */
const keyLines = () => [
  JSON.parse(fcm.serviceAccount).private_key.split('\n')[2] as string,
  apns.key.split('\n')[1]!,
  'PRIVATE KEY',
];
const expectNoKey = (html: string) => {
  for (const line of keyLines()) expect(html).not.toContain(line);
};
const apnsForm = (over: Record<string, string> = {}) => ({
  key: apns.key,
  keyid: apns.keyId,
  teamid: apns.teamId,
  bundleid: apns.bundleId,
  environment: 'sandbox',
  ...over,
});

beforeAll(async () => {
  [fcm, apns] = await Promise.all([startFcm(), startApns()]);
});
afterAll(() => Promise.all([fcm?.close(), apns?.close()]));

describe('an owner sets the push credentials from the console', () => {
  it('FCM and APNs set from the forms are in the API’s GET, identifiers only; no page shows a key', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    const setFcm = await owner.post(push('fcm'), { serviceaccount: fcm.serviceAccount, _csrf: token });
    expect(setFcm.status).toBe(303);
    expect(setFcm.headers.get('location')).toBe(`${page()}?done=fcm`);
    const setApns = await owner.post(push('apns'), { ...apnsForm(), _csrf: token });
    expect(setApns.status).toBe(303);
    const body = await transports();
    expect(body).toMatchObject({
      FCM: { Enabled: true, ProjectID: fcm.projectId, ClientEmail: `assent@${fcm.projectId}.iam.gserviceaccount.com` },
      APNs: { Enabled: true, KeyID: apns.keyId, TeamID: apns.teamId, BundleID: apns.bundleId, Environment: 'sandbox' },
    });
    expect(JSON.stringify(body)).not.toMatch(/PRIVATE KEY|private_key/);
    for (const who of ['shop-owner@shop.example', 'shop-admin@shop.example']) {
      const html = await (await (await s.as(who)).get(`${page()}?done=apns`)).text();
      expect(html).toContain(`project ${fcm.projectId}`);
      expect(html).toContain(`${apns.bundleId}, key ${apns.keyId}, team ${apns.teamId}, sandbox`);
      expectNoKey(html);
      expect(pushSection(html)).toContain('leave empty to keep the stored one');
    }
  });

  it('an APNs edit with the key field empty keeps the stored key and changes the rest', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const before = await sealedApnsKey();
    expect(before).toBeTruthy();
    const res = await owner.post(push('apns'), {
      ...apnsForm({ key: '', bundleid: 'example.shop.app2', environment: 'production' }),
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(303);
    expect((await transports()).APNs).toMatchObject({
      Enabled: true,
      BundleID: 'example.shop.app2',
      Environment: 'production',
    });
    expect(await sealedApnsKey()).toBe(before);
  });
});

describe('input the service refuses shows beside the form with its 4xx, and stores nothing', () => {
  it('a service-account key that is not one is a 400 with the API’s message; FCM is unchanged', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const before = await transports();
    const res = await owner.post(push('fcm'), {
      serviceaccount: '{"type":"service_account"}',
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(400);
    const section = pushSection(await res.text());
    expect(section).toMatch(/<p class="error" role="alert">fcm\.serviceaccount [^<]+<\/p>/);
    expect(await transports()).toEqual(before);
  });

  it('a .p8 key that is not one is a 400; APNs and its stored key are unchanged; the typed key is not sent back', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const [before, sealed] = [await transports(), await sealedApnsKey()];
    const res = await owner.post(push('apns'), {
      ...apnsForm({ key: 'not-a-key-typed-here', bundleid: 'example.other.app' }),
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(pushSection(html)).toContain('<p class="error" role="alert">');
    expect(html).not.toContain('not-a-key-typed-here');
    expect(html).toContain('value="example.other.app"');
    const bad = await owner.post(push('apns'), { ...apnsForm({ keyid: 'short' }), _csrf: await owner.csrf() });
    expect(bad.status).toBe(400);
    expectNoKey(await bad.text());
    expect(await transports()).toEqual(before);
    expect(await sealedApnsKey()).toBe(sealed);
  });
});

describe('who may change the push credentials', () => {
  it('a DPO and a developer get 403 on every push form; nothing changes', async () => {
    const before = await transports();
    for (const who of ['shop-dpo@shop.example', 'shop-dev@shop.example']) {
      const c = await s.as(who);
      const token = await c.csrf();
      for (const [path, body] of [
        ['fcm', { serviceaccount: fcm.serviceAccount }],
        ['apns', apnsForm()],
        ['fcm/delete', { confirm: 'on' }],
        ['apns/delete', { confirm: 'on' }],
      ] as const)
        expect((await c.post(push(path), { ...body, _csrf: token })).status, `${who} ${path}`).toBe(403);
    }
    expect(await transports()).toEqual(before);
  });

  it('an owner’s post without the CSRF token is refused 403; nothing changes', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const before = await transports();
    expect((await owner.post(push('fcm/delete'), { confirm: 'on' })).status).toBe(403);
    expect((await owner.post(push('apns'), apnsForm({ bundleid: 'example.csrf.app' }))).status).toBe(403);
    expect(await transports()).toEqual(before);
  });
});

describe('removing push credentials takes the confirmation step', () => {
  it('without the box ticked it is a 400 and both stay', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    for (const which of ['fcm', 'apns'])
      expect((await owner.post(push(`${which}/delete`), { _csrf: token })).status, which).toBe(400);
    const body = await transports();
    expect([body.FCM.Enabled, body.APNs.Enabled]).toEqual([true, true]);
  });

  it('with it, each is gone from the API and the page offers to set it up again', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    const fcmGone = await owner.post(push('fcm/delete'), { confirm: 'on', _csrf: token });
    expect(fcmGone.status).toBe(303);
    expect((await transports()).FCM).toEqual({ Enabled: false, ProjectID: '', ClientEmail: '' });
    expect((await transports()).APNs.Enabled).toBe(true);
    expect((await owner.post(push('apns/delete'), { confirm: 'on', _csrf: token })).status).toBe(303);
    expect((await transports()).APNs).toMatchObject({ Enabled: false, KeyID: '' });
    const html = await (await owner.get(`${page()}?done=apns-deleted`)).text();
    expect(html).toMatch(/<dt>FCM<\/dt>\s*<dd>off<\/dd>/);
    expect(html).toContain('Set up FCM');
    expect(html).toContain('Set up APNs');
    expect(html).toContain('APNs credentials removed');
  });
});
