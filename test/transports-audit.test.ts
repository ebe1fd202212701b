/**
 * The audit of notification transports (docs/notifications.md "Transports"): an entry
 * `notifications.transports.update` is written only for a real change, from the API's
 * `PUT …/notification-transports` or the console's Integrations forms, and names exactly what
 * changed; sending the stored settings again writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { consoleSuite } from './helpers/consent-org.js';
import { type ApnsStandIn, type FcmStandIn, startApns, startFcm } from './helpers/push.js';
import { formValues } from './helpers/web-client.js';

const s = consoleSuite();
let fcm: FcmStandIn;
let apns: ApnsStandIn;
const api = (path: string) => `${s.t.base}/organizations/${s.org.orgId}${path}`;
const put = async (body: unknown) => {
  const res = await call(api('/notification-transports'), { method: 'PUT', body, token: s.org.tokens.owner });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
/** The organisation's transport entries, newest first. */
const entries = async (): Promise<Array<{ ID: string; ActorUserID: string; Detail: Record<string, unknown> }>> =>
  (await call(api('/audit-log?action=notifications.transports.update&limit=100'), { token: s.org.tokens.owner })).body
    .Entries;
const page = () => `/console/${s.org.orgId}/integrations`;

beforeAll(async () => {
  [fcm, apns] = await Promise.all([startFcm(), startApns()]);
});
afterAll(() => Promise.all([fcm?.close(), apns?.close()]));

describe('transports are audited only when they change, naming what changed', () => {
  it('API: re-sending unchanged transports writes no entry; no "removed" for a webhook that never existed', async () => {
    await put({ email: { enabled: false }, webhook: null });
    expect(await entries()).toEqual([]);
    await put({ email: { enabled: true } });
    const [first] = await entries();
    expect(first).toMatchObject({ ActorUserID: s.org.users.owner, Detail: { email: true } });
    expect(Object.keys(first!.Detail)).toEqual(['email']);
    await put({ email: { enabled: true }, webhook: null });
    expect(await entries()).toHaveLength(1);
  });

  it('API: the same webhook URL, FCM key or APNs settings sent again write nothing; a real change names only its fields', async () => {
    const apnsBody = { key: apns.key, keyid: apns.keyId, teamid: apns.teamId, bundleid: apns.bundleId };
    await put({ webhook: { url: 'https://hooks.shop.example/a' }, fcm: { serviceaccount: fcm.serviceAccount } });
    await put({ apns: { ...apnsBody, environment: 'sandbox' } });
    const before = await entries();
    expect(before[0]!.Detail).toEqual({ apns: 'set' });
    expect(before[1]!.Detail).toEqual({ webhook: 'https://hooks.shop.example/a', webhookSecret: 'new', fcm: 'set' });
    await put({
      email: { enabled: true },
      webhook: { url: 'https://hooks.shop.example/a' },
      fcm: { serviceaccount: fcm.serviceAccount },
      apns: { ...apnsBody, environment: 'sandbox' },
    });
    await put({ apns: { keyid: apns.keyId, teamid: apns.teamId, bundleid: apns.bundleId, environment: 'sandbox' } });
    expect(await entries()).toHaveLength(before.length);
    await put({ apns: { ...apnsBody, environment: 'production' } });
    await put({ webhook: null });
    const after = await entries();
    expect(after).toHaveLength(before.length + 2);
    expect(after[0]!.Detail).toEqual({ webhook: 'removed' });
    expect(after[1]!.Detail).toEqual({ apns: 'changed', apnsChanged: ['environment'] });
  });

  it('console: saving the transports form unchanged writes no entry; changing one field names that field', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const count = (await entries()).length;
    const form = formValues(await (await owner.get(page())).text(), `${page()}/transports`);
    const same = await owner.post(`${page()}/transports`, form);
    expect(same.status).toBe(303);
    expect(await entries()).toHaveLength(count);
    const { email: _email, ...withoutEmail } = form;
    expect((await owner.post(`${page()}/transports`, withoutEmail)).status).toBe(303);
    const latest = await entries();
    expect(latest).toHaveLength(count + 1);
    expect(latest[0]).toMatchObject({ ActorUserID: s.org.users.owner, Detail: { email: false } });
    expect(Object.keys(latest[0]!.Detail)).toEqual(['email']);
  });

  it('console: the push forms sent again unchanged write no entry', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    await put({ fcm: { serviceaccount: fcm.serviceAccount } });
    const count = (await entries()).length;
    const fcmForm = { serviceaccount: fcm.serviceAccount, _csrf: token };
    expect((await owner.post(`${page()}/push/fcm`, fcmForm)).status).toBe(303);
    const apnsForm = formValues(await (await owner.get(page())).text(), `${page()}/push/apns`);
    expect((await owner.post(`${page()}/push/apns`, apnsForm)).status).toBe(303);
    expect(await entries()).toHaveLength(count);
  });
});
