/**
 * The special consent request (docs/api.md "Permissions and consents", the 202 operation) through the webhook transport: who is
 * notified, once each, signed; the job resource; retries and the delivery log; who may call it;
 * bad input that changes nothing; SSRF refusal.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';
import { type Receiver, startReceiver, verifySignature, waitFor } from './helpers/receiver.js';

let t: TestAssent;
let org: ConsentOrg;
let hook: Receiver;
let secret: string;
/** Individuals created for these tests, by name. */
const extra: Record<string, string> = {};

const orgUrl = () => `${t.base}/organizations/${org.orgId}`;
const requestUrl = (purpose: string) => `${orgUrl()}/purposes/${purpose}/attributes/consent`;
const transports = (body: unknown, token = org.tokens.owner) =>
  call(`${orgUrl()}/notification-transports`, { method: 'PUT', body, token });
const jobCount = async () =>
  rowsOf<{ n: number }>(await t.store.db.execute(sql`SELECT count(*)::int AS n FROM consent_request_jobs`))[0]!.n;

async function finished(location: string) {
  const res = await waitFor(
    () => call(location, { token: org.tokens.owner }),
    (r) => r.body?.State === 'completed' || r.body?.State === 'failed',
  );
  expect(res.status).toBe(200);
  return res.body;
}

async function setAttribute(user: string, purpose: string, attribute: string, consented: string) {
  const record = await consentIdOf(t, org, user);
  const res = await call(`${consentsUrl(t, org, user)}/${record}/purposes/${purpose}/attributes/${attribute}`, {
    method: 'PATCH',
    body: { consented, days: 0 },
    token: org.tokens[user],
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  t = await startAssent({
    ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1',
    ASSENT_NOTIFY_BATCH_SIZE: '2',
    ASSENT_WEBHOOK_RETRIES: '2',
    ASSENT_WEBHOOK_RETRY_DELAY_SECONDS: '1',
  });
  org = await setUpConsentOrg(t);
  hook = await startReceiver();
  for (const name of ['erin', 'frank', 'grace']) {
    const res = await call(`${orgUrl()}/users`, {
      body: { username: `${name}@shop.example`, name, email: `${name}@shop.example` },
      token: org.tokens.owner,
    });
    expect(res.status).toBe(201);
    extra[name] = res.body.User?.ID ?? res.body.ID;
  }
  // carol allows both marketing attributes; dave, erin, frank and grace decided nothing (Disallow by default).
  await setAttribute('carol', org.marketing.id, org.marketing.email, 'Allow');
  await setAttribute('carol', org.marketing.id, org.marketing.phone, 'Allow');
  // dave says Disallow to the lawful-basis delivery address.
  await setAttribute('dave', org.delivery.id, org.delivery.address, 'Disallow');
  const res = await transports({ webhook: { url: hook.url } });
  expect(res.status).toBe(200);
  secret = res.body.Webhook.Secret;
});
afterAll(async () => {
  await hook?.close();
  await t?.stop();
});

describe('notification transports', () => {
  it('setting a webhook answers its signing secret once; GET never shows it', async () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const res = await call(`${orgUrl()}/notification-transports`, { token: org.tokens.admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      Email: { Enabled: false, Delivery: 'outbox' },
      Webhook: { Enabled: true, URL: hook.url },
      FCM: { Enabled: false, ProjectID: '', ClientEmail: '' },
      APNs: { Enabled: false, KeyID: '', TeamID: '', BundleID: '', Environment: 'production' },
    });
    expect(JSON.stringify(res.body)).not.toContain(secret);
  });

  it('refuses a webhook URL that is not https (or an allowed http host) or names a private address, and changes nothing', async () => {
    for (const url of [
      'http://example.com/hook',
      'ftp://example.com/',
      'not a url',
      'https://user:pw@example.com/',
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest',
      'https://[::1]/hook',
    ]) {
      const res = await transports({ webhook: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.Message).toMatch(/^webhook\.url /);
    }
    expect((await call(`${orgUrl()}/notification-transports`, { token: org.tokens.owner })).body.Webhook.URL).toBe(
      hook.url,
    );
  });

  it('only Owner and Admin may read or change transports (403 for Dpo, Developer, individuals)', async () => {
    for (const who of ['dpo', 'developer', 'carol']) {
      expect((await call(`${orgUrl()}/notification-transports`, { token: org.tokens[who] })).status, who).toBe(403);
      expect((await transports({ email: { enabled: true } }, org.tokens[who])).status, who).toBe(403);
    }
  });
});

describe('special consent request (docs/api.md "Permissions and consents")', () => {
  it('answers 202 with a Location naming the job, and notifies every individual who disallows an attribute, once, signed', async () => {
    hook.received.length = 0;
    const res = await call(requestUrl(org.marketing.id), { method: 'POST', body: {}, token: org.tokens.owner });
    expect(res.status).toBe(202);
    const location = res.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${t.base}/organizations/${org.orgId}/jobs/[0-9a-f-]{36}$`));
    const job = await finished(location);
    const expected = [org.users.dave, extra.erin, extra.frank, extra.grace].sort();
    expect(job).toMatchObject({
      State: 'completed',
      Type: 'consent-request',
      PurposeID: org.marketing.id,
      Notified: 4,
      Skipped: 0,
      SkippedReason: '',
      Failed: 0,
      Error: '',
    });
    expect(job.AttributeIDs.sort()).toEqual([org.marketing.email, org.marketing.phone].sort());
    expect(hook.received.map((r) => r.body.userId).sort()).toEqual(expected);
    for (const r of hook.received) {
      expect(verifySignature(r, secret)).toBe(true);
      expect(r.headers['idempotency-key']).toBe(`${job.ID}.${r.body.userId}`);
      expect(r.body).toMatchObject({
        type: 'consent.request',
        organisationId: org.orgId,
        purposeId: org.marketing.id,
        jobId: job.ID,
      });
    }
    expect(
      verifySignature({ ...hook.received[0]!, raw: hook.received[0]!.raw.replace('consent', 'Consent') }, secret),
    ).toBe(false);
  });

  it('with no body at all, asks about every attribute of the purpose', async () => {
    hook.received.length = 0;
    const res = await call(requestUrl(org.marketing.id), { method: 'POST', token: org.tokens.admin });
    expect(res.status).toBe(202);
    expect((await finished(res.headers.get('location')!)).Notified).toBe(4);
  });

  it('attributeids narrows the request to individuals who disallow one of the listed attributes', async () => {
    await setAttribute('dave', org.marketing.id, org.marketing.email, 'Allow');
    hook.received.length = 0;
    const res = await call(requestUrl(org.marketing.id), {
      method: 'POST',
      body: { attributeids: [org.marketing.email] },
      token: org.tokens.owner,
    });
    expect(res.status).toBe(202);
    const job = await finished(res.headers.get('location')!);
    expect(job.Notified).toBe(3);
    expect(hook.received.map((r) => r.body.userId)).not.toContain(org.users.dave);
    expect(hook.received[0]!.body.attributeIds).toEqual([org.marketing.email]);
  });

  it('for a lawful-basis purpose, only individuals who chose Disallow are asked', async () => {
    hook.received.length = 0;
    const res = await call(requestUrl(org.delivery.id), { method: 'POST', body: {}, token: org.tokens.owner });
    const job = await finished(res.headers.get('location')!);
    expect(job.Notified).toBe(1);
    expect(hook.received.map((r) => r.body.userId)).toEqual([org.users.dave]);
  });

  it('only Owner and Admin may send one: Dpo, Developer, an individual and another organisation get 403, and no job is made', async () => {
    const before = await jobCount();
    for (const who of ['dpo', 'developer', 'carol', 'mallory']) {
      expect(
        (await call(requestUrl(org.marketing.id), { method: 'POST', body: {}, token: org.tokens[who] })).status,
        who,
      ).toBe(403);
    }
    expect(
      (
        await call(requestUrl(org.marketing.id), {
          method: 'POST',
          body: {},
          token: org.apiKeys.developer,
          scheme: 'ApiKey',
        })
      ).status,
    ).toBe(403);
    expect((await call(requestUrl(org.marketing.id), { method: 'POST', body: {} })).status).toBe(401);
    expect(await jobCount()).toBe(before);
  });

  it('bad input is a clear 4xx and makes no job', async () => {
    const before = await jobCount();
    const post = (purpose: string, body: unknown) =>
      call(requestUrl(purpose), { method: 'POST', body, token: org.tokens.owner });
    expect((await post('not-an-id', {})).status).toBe(404);
    expect((await post('00000000-0000-4000-8000-000000000000', {})).status).toBe(404);
    const foreign = await post(org.marketing.id, { attributeids: [org.delivery.address] });
    expect(foreign.status).toBe(404);
    expect(foreign.body.Message).toMatch(/not found in this purpose/);
    expect((await post(org.marketing.id, { attributeids: { email: true } })).status).toBe(400);
    const empty = await post(org.empty, {});
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ Code: 400, Message: 'The purpose has no data attributes to ask about' });
    expect(await jobCount()).toBe(before);
  });

  it('without any transport the request still answers 202 (docs/api.md "Permissions and consents"); the job counts everyone as skipped and says why', async () => {
    await transports({ webhook: null });
    hook.received.length = 0;
    const res = await call(requestUrl(org.marketing.id), { method: 'POST', body: {}, token: org.tokens.owner });
    expect(res.status).toBe(202);
    const job = await finished(res.headers.get('location')!);
    // Skipped: dave, erin, frank, grace.
    expect(job).toMatchObject({ State: 'completed', Notified: 0, Skipped: 4, Failed: 0, Error: '' });
    expect(job.SkippedReason).toMatch(/no notification transport/);
    expect(hook.received).toHaveLength(0);
    secret = (await transports({ webhook: { url: hook.url } })).body.Webhook.Secret;
  });

  it('an unknown job, or another organisation’s, is a 404; Dpo may read jobs', async () => {
    expect(
      (await call(`${orgUrl()}/jobs/00000000-0000-4000-8000-000000000000`, { token: org.tokens.owner })).status,
    ).toBe(404);
    expect((await call(`${orgUrl()}/jobs/nope`, { token: org.tokens.owner })).status).toBe(404);
    const res = await call(requestUrl(org.delivery.id), { method: 'POST', body: {}, token: org.tokens.owner });
    const location = res.headers.get('location')!;
    await finished(location);
    expect((await call(location, { token: org.tokens.dpo })).status).toBe(200);
    expect((await call(location.replace(org.orgId, org.otherOrgId), { token: org.tokens.mallory })).status).toBe(404);
  });
});

describe('webhook failures', () => {
  it('a failed delivery is retried with backoff until it succeeds; the delivery log shows each attempt', async () => {
    hook.received.length = 0;
    const failedOnce = new Set<string>();
    hook.answer = (r) => {
      if (failedOnce.has(r.body.userId)) return 200;
      failedOnce.add(r.body.userId);
      return 503;
    };
    const res = await call(requestUrl(org.delivery.id), { method: 'POST', body: {}, token: org.tokens.owner });
    const job = await finished(res.headers.get('location')!);
    hook.answer = () => 200;
    expect(job).toMatchObject({ State: 'completed', Notified: 1, Failed: 0 });
    expect(hook.received.map((r) => r.headers['idempotency-key'])).toEqual([
      `${job.ID}.${org.users.dave}`,
      `${job.ID}.${org.users.dave}`,
    ]);
    const log = await call(`${orgUrl()}/notification-transports/webhook/attempts?limit=2`, { token: org.tokens.owner });
    expect(log.status).toBe(200);
    expect(log.body.Attempts.map((a: any) => [a.JobID, a.Attempt, a.State, a.Status, a.Error])).toEqual([
      [job.ID, 2, 'delivered', 200, ''],
      [job.ID, 1, 'failed', 503, 'answered HTTP 503'],
    ]);
    expect(log.body.Links.Next).toContain('startid=');
    expect(JSON.stringify(log.body)).not.toContain('remote body');
  });

  it('a delivery that keeps failing is counted as failed after the last retry, and the job still completes', async () => {
    hook.received.length = 0;
    hook.answer = () => 500;
    const res = await call(requestUrl(org.delivery.id), { method: 'POST', body: {}, token: org.tokens.owner });
    const job = await finished(res.headers.get('location')!);
    hook.answer = () => 200;
    expect(job).toMatchObject({ State: 'completed', Notified: 0, Failed: 1 });
    expect(hook.received).toHaveLength(3); // the first attempt and ASSENT_WEBHOOK_RETRIES=2 retries
  });

  it('SSRF: a webhook host that resolves to a non-public address is never contacted', async () => {
    const port = new URL(hook.url).port;
    await transports({ webhook: { url: `https://localhost:${port}/hook` } });
    hook.received.length = 0;
    const res = await call(requestUrl(org.delivery.id), { method: 'POST', body: {}, token: org.tokens.owner });
    const job = await finished(res.headers.get('location')!);
    expect(job).toMatchObject({ State: 'completed', Notified: 0, Failed: 1 });
    expect(hook.received).toHaveLength(0);
    const log = await call(`${orgUrl()}/notification-transports/webhook/attempts?limit=1`, { token: org.tokens.owner });
    expect(log.body.Attempts[0]).toMatchObject({ Status: 0, Error: 'localhost resolves to a non-public address' });
    secret = (await transports({ webhook: { url: hook.url } })).body.Webhook.Secret;
  });
});

describe('recipients of a lawful-basis purpose (the scan walks stored refusals, not every subscription)', () => {
  /** Sets an attribute for an individual through the developer's API key, acting on their behalf. */
  async function setFor(userId: string, consented: string, days = 0) {
    const base = `${orgUrl()}/users/${userId}/consents`;
    const record = await call(base, { token: org.apiKeys.developer });
    expect(record.status).toBe(200);
    const res = await call(`${base}/${record.body.ID}/purposes/${org.delivery.id}/attributes/${org.delivery.address}`, {
      method: 'PATCH',
      body: { consented, days },
      token: org.apiKeys.developer,
    });
    expect(res.status).toBe(200);
  }

  it('across batches of 2: every Disallow and every AskMe that ran out is asked once; an individual no longer subscribed is not', async () => {
    await setFor(extra.erin!, 'Disallow');
    await setFor(extra.frank!, 'Disallow');
    await setFor(extra.grace!, 'AskMe', 1);
    // One day is too long to wait: move grace's AskMe expiry into the past (the sweep may also turn it into Disallow
    // first; both count).
    await t.store.db.execute(
      sql`UPDATE attribute_consents SET expires_at = now() - interval '1 second'
        WHERE user_id = ${extra.grace!} AND purpose_id = ${org.delivery.id}`,
    );
    expect(
      (await call(`${orgUrl()}/users/${extra.frank!}`, { method: 'DELETE', token: org.tokens.owner })).status,
    ).toBeLessThan(300);
    hook.received.length = 0;
    const res = await call(requestUrl(org.delivery.id), { method: 'POST', body: {}, token: org.tokens.owner });
    const job = await finished(res.headers.get('location')!);
    expect(job).toMatchObject({ State: 'completed', Notified: 3, Failed: 0, Skipped: 0 });
    expect(hook.received.map((r) => r.body.userId).sort()).toEqual([org.users.dave, extra.erin, extra.grace].sort());
  });
});
