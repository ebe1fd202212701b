/**
 * Event webhooks that keep failing (docs/events.md "Retries"): a delivery is retried for the retry window and then
 * marked failed; a webhook whose every attempt has failed for the disable window is disabled and its organisation's
 * Owners are mailed; enabled again, it delivers the events committed from then on. The windows are shortened here
 * (`ASSENT_EVENT_WEBHOOK_*`), the rules are the production ones.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';
import { type Receiver, startReceiver, waitFor } from './helpers/receiver.js';

let t: TestAssent;
let org: ConsentOrg;
let receiver: Receiver;
let record: string;

const hooksUrl = (p = '') => `${t.base}/organizations/${org.orgId}/webhooks${p}`;

beforeAll(async () => {
  t = await startAssent({
    ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1',
    ASSENT_EVENT_WEBHOOK_FIRST_RETRY_SECONDS: '1',
    ASSENT_EVENT_WEBHOOK_RETRY_WINDOW_SECONDS: '3',
    ASSENT_EVENT_WEBHOOK_DISABLE_AFTER_SECONDS: '4',
    ASSENT_PURGE_SECONDS: '1',
  });
  org = await setUpConsentOrg(t);
  record = await consentIdOf(t, org, 'carol');
  receiver = await startReceiver();
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

it('retries for the window, then fails the delivery; after the disable window the webhook is disabled and the Owner mailed', async () => {
  receiver.answer = () => 503;
  const created = await call(hooksUrl(), {
    method: 'POST',
    token: org.tokens.owner,
    body: { payloadUrl: receiver.url, subscribedEvents: ['consent.allowed', 'consent.disallowed'] },
  });
  expect(created.status).toBe(201);
  const id = created.body.id;
  const url = `${consentsUrl(t, org, 'carol')}/${record}/purposes/${org.marketing.id}/attributes/${org.marketing.email}`;
  expect(
    (await call(url, { method: 'PATCH', token: org.tokens.carol, body: { consented: 'Allow', days: 0 } })).status,
  ).toBe(200);

  const failed = await waitFor(
    async () => (await call(hooksUrl(`/${id}/deliveries?state=failed`), { token: org.tokens.owner })).body.deliveries,
    (d: any[]) => d.length === 1,
  );
  expect(failed).toHaveLength(1);
  const attempts = failed[0].attempts;
  expect(attempts.length).toBeGreaterThanOrEqual(2); // tried again within the window...
  expect(attempts.every((a: any) => a.status === 503)).toBe(true);
  // ...and not past it: every retry is scheduled inside the window and sent when it is due, by the timer of the
  // process that scheduled it (a claim and a send, some milliseconds), so the last attempt starts at most that late.
  const spanMs = Date.parse(attempts.at(-1).at) - Date.parse(failed[0].createdAt);
  expect(spanMs).toBeLessThanOrEqual(3000 + 500);

  const disabled = await waitFor(
    async () => (await call(hooksUrl(`/${id}`), { token: org.tokens.dpo })).body,
    (w: any) => w.disabled === true,
  );
  expect(disabled).toMatchObject({ disabled: true, disabledReason: 'failing' });
  expect(disabled.failingSince).toBeTruthy();
  const outbox = path.join(t.config.dataDir, 'outbox');
  const mails = await waitFor(
    async () => (existsSync(outbox) ? readdirSync(outbox) : []).map((f) => readFileSync(path.join(outbox, f), 'utf8')),
    (m) => m.some((text) => text.includes('A webhook of your organisation was disabled')),
  );
  const mail = mails.find((text) => text.includes('A webhook of your organisation was disabled'))!;
  expect(mail).toContain('shop-owner@shop.example');
  expect(mail).toContain(id);
  expect(mails.filter((text) => text.includes('disabled') && text.includes('shop-dpo@shop.example'))).toEqual([]);

  // A disabled webhook gets nothing; enabled again (receiver fixed) it gets what is committed from then on.
  receiver.answer = () => 200;
  receiver.received.length = 0;
  expect(
    (await call(url, { method: 'PATCH', token: org.tokens.carol, body: { consented: 'Disallow', days: 0 } })).status,
  ).toBe(200);
  await new Promise((r) => setTimeout(r, 1500));
  expect(receiver.received).toHaveLength(0);
  const enabled = await call(hooksUrl(`/${id}`), {
    method: 'PUT',
    token: org.tokens.admin,
    body: { payloadUrl: receiver.url, subscribedEvents: ['consent.allowed', 'consent.disallowed'], disabled: false },
  });
  expect(enabled.body).toMatchObject({ disabled: false });
  expect(enabled.body.disabledReason).toBeUndefined();
  expect(
    (await call(url, { method: 'PATCH', token: org.tokens.carol, body: { consented: 'Allow', days: 0 } })).status,
  ).toBe(200);
  await waitFor(
    async () => receiver.received.length,
    (n) => n >= 1,
  );
  expect(receiver.received.map((r) => r.body.type)).toEqual(['consent.allowed']);
  // The failed delivery can be sent again, now that the receiver works.
  const again = await call(hooksUrl(`/${id}/deliveries/${failed[0].id}/redeliver`), {
    method: 'POST',
    token: org.tokens.owner,
  });
  expect(again.status).toBe(202);
  await waitFor(
    async () => receiver.received.length,
    (n) => n >= 2,
  );
  expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(failed[0].eventId);
}, 60_000);

it('the purge deletes deliveries finished more than 30 days ago, with their attempts, and keeps the others', async () => {
  receiver.answer = () => 200;
  const created = await call(hooksUrl(), {
    method: 'POST',
    token: org.tokens.owner,
    body: { payloadUrl: receiver.url, subscribedEvents: ['consent.allowed', 'consent.disallowed'], disabled: true },
  });
  const id = created.body.id;
  const [old, recent] = [
    (await call(hooksUrl(`/${id}/ping`), { method: 'POST', token: org.tokens.owner })).body,
    (await call(hooksUrl(`/${id}/ping`), { method: 'POST', token: org.tokens.owner })).body,
  ];
  expect([old.state, recent.state]).toEqual(['succeeded', 'succeeded']);
  await t.store.raw(`UPDATE webhook_deliveries SET finished_at = now() - interval '31 days' WHERE id = $1`, [old.id]);
  const left = await waitFor(
    async () => (await call(hooksUrl(`/${id}/deliveries`), { token: org.tokens.owner })).body.deliveries,
    (d: any[]) => d.length === 1,
    10_000,
  );
  expect(left.map((d: any) => d.id)).toEqual([recent.id]);
  // Its attempts are kept in its row (attempt_log): gone with it.
  const stored = await t.store.raw('SELECT count(*)::int AS n FROM webhook_deliveries WHERE id = $1', [old.id]);
  expect(stored.rows).toEqual([{ n: 0 }]);
});
