/**
 * Event webhooks (docs/events.md "Webhooks"): `{base}/organizations/{organizationID}/webhooks` and its deliveries.
 * A receiver on loopback verifies every delivery with the `standardwebhooks` library, as a receiver in production
 * would, and records ids, types and order; the expectations are checked against the consent history.
 */
import net from 'node:net';
import { CloudEvent } from 'cloudevents';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, onPostgres, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';
import { startDns } from './helpers/oidc.js';
import { type Received, type Receiver, startReceiver, waitFor } from './helpers/receiver.js';
import { threadNices } from './helpers/threads.js';

let t: TestAssent;
let org: ConsentOrg;
let receiver: Receiver;
let dns: Awaited<ReturnType<typeof startDns>>;
const records: Record<string, string> = {};
/** The address the test DNS gives `rebind.example.test`: public when saved, then private (DNS rebinding). */
let rebindTo: [number, number, number, number] = [93, 184, 216, 34];
/** Hosts of every socket connect attempted in this process (Assent runs in it). */
const connects: string[] = [];
const originalConnect = net.Socket.prototype.connect;

const hooksUrl = (path = '') => `${t.base}/organizations/${org.orgId}/webhooks${path}`;
const CONSENT_TYPES = ['consent.allowed', 'consent.disallowed', 'consent.askme', 'consent.expired'];

/** Registers a webhook at the receiver as the owner; answers the created webhook (with its secret). */

/** A UUIDv7 (RFC 9562 §5.7): version 7, variant 10. */
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/**
 * The webhook's deliveries log once `done` holds: a delivery is logged when its attempt is recorded, a moment after
 * the receiver got it (docs/events.md "The deliveries log").
 */
async function loggedDeliveries(hookId: string, done: (deliveries: any[]) => boolean): Promise<any[]> {
  return waitFor(
    async () => (await call(hooksUrl(`/${hookId}/deliveries`), { token: org.tokens.owner })).body.deliveries as any[],
    done,
  );
}

async function createHook(body: Record<string, unknown> = {}): Promise<any> {
  const res = await call(hooksUrl(), {
    method: 'POST',
    token: org.tokens.owner,
    body: { payloadUrl: receiver.url, subscribedEvents: CONSENT_TYPES, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Sets one of a person's marketing attributes. */
function patch(person: 'carol' | 'dave', attribute: 'email' | 'phone', consented: string) {
  const url = `${consentsUrl(t, org, person)}/${records[person]}/purposes/${org.marketing.id}/attributes/${org.marketing[attribute]}`;
  return call(url, { method: 'PATCH', token: org.tokens[person], body: { consented, days: 0 } });
}

/** The deliveries the receiver got for `hookSecret` (verified), in arrival order. */
function verified(secret: string): Array<Received & { event: any }> {
  const wh = new Webhook(secret);
  const out: Array<Received & { event: any }> = [];
  for (const r of receiver.received) {
    try {
      out.push({ ...r, event: wh.verify(r.raw, r.headers as Record<string, string>) });
    } catch {}
  }
  return out;
}

/** A person's history, oldest first. */
async function history(person: 'carol' | 'dave'): Promise<any[]> {
  const res = await call(`${consentsUrl(t, org, person)}/history?limit=100`, { token: org.tokens[person] });
  expect(res.status).toBe(200);
  return [...res.body.Events].reverse();
}

beforeAll(async () => {
  net.Socket.prototype.connect = function (this: net.Socket, ...args: any[]) {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const host = String(typeof first === 'object' && first !== null ? (first.host ?? first.path ?? '') : args[1]);
    connects.push(host);
    // Never let a packet leave for a non-loopback address from a test.
    if (!/^(127\.0\.0\.1|localhost|::1|\/|$)/.test(host)) {
      process.nextTick(() => this.destroy(new Error(`test: connect to ${host} blocked`)));
      return this;
    }
    return (originalConnect as any).apply(this, args);
  } as any;
  dns = await startDns((name) => (name === 'rebind.example.test' ? rebindTo : [10, 0, 0, 1]));
  t = await startAssent({
    ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1',
    ASSENT_EVENT_WEBHOOK_FIRST_RETRY_SECONDS: '1',
    ASSENT_DNS_SERVERS: dns.server,
  });
  org = await setUpConsentOrg(t);
  records.carol = await consentIdOf(t, org, 'carol');
  records.dave = await consentIdOf(t, org, 'dave');
  receiver = await startReceiver();
});
afterAll(async () => {
  net.Socket.prototype.connect = originalConnect;
  await t?.stop();
  await receiver?.close();
  await dns?.close();
});

describe('the webhook resource', () => {
  it('lists the event types to any signed-in caller', async () => {
    const res = await call(`${t.base}/organizations/webhooks/event-types`, { token: org.tokens.carol });
    expect(res.status).toBe(200);
    expect(res.body.eventTypes).toEqual(
      expect.arrayContaining([...CONSENT_TYPES, 'purpose.created', 'individual.deleted']),
    );
    expect(res.body.eventTypes).toHaveLength(13);
    expect((await call(`${t.base}/organizations/webhooks/event-types`)).status).toBe(401);
  });

  it('shows a generated whsec_ secret once, sealed: never in a read, a list or the audit log', async () => {
    const hook = await createHook({ disabled: true });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(hook.secret.slice(6), 'base64')).toHaveLength(32);
    expect(hook).toMatchObject({ payloadUrl: receiver.url, disabled: true, contentType: 'application/json' });
    const read = await call(hooksUrl(`/${hook.id}`), { token: org.tokens.owner });
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    const list = await call(hooksUrl(), { token: org.tokens.owner });
    expect(JSON.stringify(list.body)).not.toContain(hook.secret.slice(6));
    const audit = await call(`${t.base}/organizations/${org.orgId}/audit-log`, { token: org.tokens.owner });
    expect(audit.status).toBe(200);
    const created = audit.body.Entries.find((e: { Action: string }) => e.Action === 'webhook.create');
    expect(created).toMatchObject({ ActorEmail: 'shop-owner@shop.example', TargetType: 'webhook' });
    expect(JSON.stringify(audit.body)).not.toContain(hook.secret.slice(6));
    const stored = await t.store.raw('SELECT secret_sealed FROM webhooks WHERE id = $1', [hook.id]);
    expect(JSON.stringify(stored)).not.toContain(hook.secret.slice(6));
  });

  it('owner and admin manage webhooks; dpo and developer read them; an individual gets nothing', async () => {
    const hook = await createHook({ disabled: true });
    for (const who of ['dpo', 'developer']) {
      expect((await call(hooksUrl(), { token: org.tokens[who] })).status).toBe(200);
      expect((await call(hooksUrl(`/${hook.id}/deliveries`), { token: org.tokens[who] })).status).toBe(200);
      const create = await call(hooksUrl(), {
        method: 'POST',
        token: org.tokens[who],
        body: { payloadUrl: receiver.url, subscribedEvents: CONSENT_TYPES },
      });
      expect(create.status).toBe(403);
      expect((await call(hooksUrl(`/${hook.id}`), { method: 'DELETE', token: org.tokens[who] })).status).toBe(403);
    }
    expect((await call(hooksUrl(), { token: org.tokens.carol })).status).toBe(403);
    const admin = await call(hooksUrl(`/${hook.id}/secret`), { method: 'POST', token: org.tokens.admin });
    expect(admin.status).toBe(200);
    expect(admin.body.secret).toMatch(/^whsec_/);
  });

  it('refuses bad input with a 400 and creates nothing', async () => {
    const before = (await call(hooksUrl(), { token: org.tokens.owner })).body.webhooks.length;
    const bad = [
      { payloadUrl: receiver.url, subscribedEvents: ['consent.maybe'] },
      { payloadUrl: receiver.url, subscribedEvents: [] },
      { payloadUrl: receiver.url, subscribedEvents: CONSENT_TYPES, contentType: 'text/plain' },
      { payloadUrl: receiver.url, subscribedEvents: CONSENT_TYPES, secret: 'not-whsec' },
      {
        payloadUrl: receiver.url,
        subscribedEvents: CONSENT_TYPES,
        secret: `whsec_${Buffer.alloc(8).toString('base64')}`,
      },
      { payloadUrl: 'not a url', subscribedEvents: CONSENT_TYPES },
    ];
    for (const body of bad) {
      const res = await call(hooksUrl(), { method: 'POST', token: org.tokens.owner, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ Code: 400, Message: expect.any(String) });
    }
    expect((await call(hooksUrl(), { token: org.tokens.owner })).body.webhooks).toHaveLength(before);
    expect((await call(hooksUrl('/not-an-id'), { token: org.tokens.owner })).status).toBe(404);
    expect((await call(hooksUrl('/01930000-0000-7000-8000-000000000000'), { token: org.tokens.owner })).status).toBe(
      404,
    );
  });

  it('SSRF: a payload URL on loopback, link-local or private ranges, or not https, is refused when saved', async () => {
    const refused = [
      'https://127.0.0.2/hook',
      'https://[::1]/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/hook',
      'https://192.168.1.1/hook',
      'https://localhost/hook',
      'https://internal.example.test/hook', // the test DNS maps it to 10.0.0.1
      'http://example.com/hook',
      'https://user:pass@example.com/hook',
    ];
    for (const payloadUrl of refused) {
      const res = await call(hooksUrl(), {
        method: 'POST',
        token: org.tokens.owner,
        body: { payloadUrl, subscribedEvents: CONSENT_TYPES },
      });
      expect(res.status, payloadUrl).toBe(400);
    }
  });
});

describe('deliveries', () => {
  // A test that fails leaves no webhook, answer or delay behind to skew the next one's counts.
  afterEach(async () => {
    receiver.answer = () => 200;
    receiver.delayMs = 0;
    const listed = await call(hooksUrl(), { token: org.tokens.owner });
    for (const w of listed.body.webhooks)
      await call(hooksUrl(`/${w.id}`), { method: 'DELETE', token: org.tokens.owner });
  });

  it('delivers each consent change signed (Standard Webhooks), as a CloudEvent whose id is the history event ID', async () => {
    receiver.received.length = 0;
    const hook = await createHook();
    expect((await patch('carol', 'email', 'Allow')).status).toBe(200);
    expect((await patch('carol', 'email', 'Disallow')).status).toBe(200);
    const got = await waitFor(
      async () => verified(hook.secret),
      (v) => v.length >= 2,
    );
    expect(got).toHaveLength(2);
    const events = got.map((r) => r.event);
    for (const e of events) expect(() => new CloudEvent(e).validate()).not.toThrow();
    expect(events.map((e) => e.type)).toEqual(['consent.allowed', 'consent.disallowed']);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual(events.map((e) => e.id));
    const carol = (await history('carol')).slice(-2);
    expect(events.map((e) => e.id)).toEqual(carol.map((h) => h.ID));
    expect(events.map((e) => e.data.HistorySeq)).toEqual(carol.map((h) => h.Seq));
    expect(events[0]).toMatchObject({
      subject: org.users.carol,
      source: `${t.config.publicUrl.replace(/\/$/, '')}/v1/organizations/${org.orgId}`,
    });
    const deliveries = await call(hooksUrl(`/${hook.id}/deliveries`), { token: org.tokens.dpo });
    expect(deliveries.status).toBe(200);
    const logged = await loggedDeliveries(hook.id, (d) => d.length === 2 && d.every((x) => x.state !== 'pending'));
    expect(logged).toHaveLength(2);
    const [last] = logged;
    expect(last).toMatchObject({ eventId: events[1].id, eventType: 'consent.disallowed', state: 'succeeded' });
    expect(last.attempts[0]).toMatchObject({ attempt: 1, status: 200 });
    expect(last.attempts[0].requestHeaders['webhook-id']).toBe(events[1].id);
    expect(last.attempts[0].responseHeaders).toHaveProperty('date');
    // Delivery IDs are time-ordered (UUIDv7, docs/events.md "The deliveries log"): the later event's sorts after.
    for (const d of logged) expect(d.id).toMatch(UUID_V7);
    expect(logged[0].id > logged[1].id).toBe(true);
    await call(hooksUrl(`/${hook.id}`), { method: 'DELETE', token: org.tokens.owner });
  });

  // PostgreSQL only: the embedded store lives in the request thread's memory, so it delivers from there (docs/events.md).
  it.skipIf(!onPostgres)(
    'on PostgreSQL, delivers from a thread of its own, with its own named connections',
    async () => {
      receiver.received.length = 0;
      const hook = await createHook();
      expect((await patch('carol', 'email', 'Allow')).status).toBe(200);
      await waitFor(
        async () => verified(hook.secret),
        (v) => v.length >= 1,
      );
      const named = await t.store.db.execute(sql`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = 'assent-webhook-delivery'`);
      expect(rowsOf<{ n: number }>(named)[0]?.n).toBeGreaterThanOrEqual(1);
      await call(hooksUrl(`/${hook.id}`), { method: 'DELETE', token: org.tokens.owner });
    },
  );

  // PostgreSQL only, as above; Linux's /proc shows each thread's nice value.
  it.skipIf(!onPostgres)('on PostgreSQL, the delivery thread yields the cores to the requests (nice 10)', () => {
    const nices = threadNices();
    expect(nices.filter((n) => n === 10)).toHaveLength(1);
    expect(nices.filter((n) => n === 0).length).toBeGreaterThan(1);
  });

  // PostgreSQL only, as above. The worker's end stands in for a crash of the thread (an uncaught error in a library).
  it.skipIf(!onPostgres)('on PostgreSQL, a delivery thread that ends is started again and delivers', async () => {
    receiver.received.length = 0;
    const hook = await createHook();
    const thread = t.ctx.webhooks.delivery as unknown as { worker?: { terminate(): Promise<number> } };
    expect(thread.worker).toBeDefined();
    await thread.worker?.terminate();
    expect((await patch('carol', 'email', 'Disallow')).status).toBe(200);
    const got = await waitFor(
      async () => verified(hook.secret),
      (v) => v.length >= 1,
      15_000,
    );
    expect(got.map((r) => r.event.type)).toEqual(['consent.disallowed']);
    await call(hooksUrl(`/${hook.id}`), { method: 'DELETE', token: org.tokens.owner });
  });

  it('delivers only the subscribed types, and the catalogue events when subscribed', async () => {
    receiver.received.length = 0;
    const hook = await createHook({ subscribedEvents: ['purpose.created', 'purpose.deleted'] });
    await patch('dave', 'email', 'Allow');
    const created = await call(`${t.base}/organizations/${org.orgId}/purposes`, {
      method: 'POST',
      token: org.tokens.owner,
      body: { purposes: [{ name: 'Webhook test purpose', lawfulusage: false }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const got = await waitFor(
      async () => verified(hook.secret),
      (v) => v.length >= 1,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(verified(hook.secret).map((r) => r.event.type)).toEqual(['purpose.created']);
    expect(got[0]!.event.subject).toBeUndefined();
    await call(hooksUrl(`/${hook.id}`), { method: 'DELETE', token: org.tokens.owner });
  });

  it('retries 5xx with backoff; one individual waits for their earlier event, another does not', async () => {
    receiver.received.length = 0;
    const hook = await createHook();
    let failCarol = 2;
    receiver.answer = (r) => (r.body.subject === org.users.carol && failCarol-- > 0 ? 503 : 200);
    await patch('carol', 'phone', 'Allow');
    await patch('carol', 'phone', 'Disallow');
    await patch('dave', 'phone', 'Allow');
    const got = await waitFor(
      async () => verified(hook.secret),
      (v) => v.filter((r) => r.event.subject === org.users.carol).length >= 4,
      30_000,
    );
    receiver.answer = () => 200;
    const carol = got.filter((r) => r.event.subject === org.users.carol).map((r) => r.event.type);
    // The first is tried three times (503, 503, 200) before the second is sent.
    expect(carol).toEqual(['consent.allowed', 'consent.allowed', 'consent.allowed', 'consent.disallowed']);
    const daveAt = got.findIndex((r) => r.event.subject === org.users.dave);
    const carolDone = got.findIndex((r, i) => i > 1 && r.event.subject === org.users.carol);
    expect(daveAt).toBeLessThan(carolDone); // dave's event did not wait for carol's retries
    const deliveries = await loggedDeliveries(hook.id, (d) =>
      d.some((x) => x.eventType === 'consent.allowed' && x.attempts.length === 3),
    );
    const first = deliveries.find((d: any) => d.eventType === 'consent.allowed' && d.attempts.length === 3);
    expect(first.attempts.map((a: any) => a.status)).toEqual([503, 503, 200]);
    expect(
      new Set(
        got
          .filter((r) => r.event.subject === org.users.carol)
          .slice(0, 3)
          .map((r) => r.event.id),
      ).size,
    ).toBe(1);
    await call(hooksUrl(`/${hook.id}`), { method: 'DELETE', token: org.tokens.owner });
  });

  it('events queued behind an individual’s delivery go out in history order; a retry among them holds the later ones', async () => {
    receiver.received.length = 0;
    const hook = await createHook();
    // The first delivery is answered slowly, so that the next three queue behind it in carol's lane and are claimed
    // together, as one run; the first attempt of the third is answered 503.
    receiver.delayMs = 1500;
    let carolRequests = 0;
    receiver.answer = (r) => (r.body.subject === org.users.carol && ++carolRequests === 3 ? 503 : 200);
    expect((await patch('carol', 'email', 'Allow')).status).toBe(200);
    await waitFor(
      async () => receiver.received.length,
      (n) => n >= 1,
    );
    receiver.delayMs = 0;
    for (const value of ['Disallow', 'Allow', 'Disallow'])
      expect((await patch('carol', 'email', value)).status).toBe(200);
    const got = await waitFor(
      async () => verified(hook.secret).filter((r) => r.event.subject === org.users.carol),
      (v) => v.length >= 5,
      30_000,
    );
    const ids = (await history('carol')).slice(-4).map((e: any) => e.ID);
    // In history order: the third is tried again (503, then 2xx) before the fourth goes out.
    expect(got.map((r) => r.event.id)).toEqual([ids[0], ids[1], ids[2], ids[2], ids[3]]);
    const deliveries = await loggedDeliveries(hook.id, (d) =>
      ids.every((id: string) => d.some((x) => x.eventId === id && x.state !== 'pending')),
    );
    const statuses = (id: string) =>
      deliveries.find((d: any) => d.eventId === id).attempts.map((a: any) => [a.attempt, a.status]);
    expect(ids.map(statuses)).toEqual([
      [[1, 200]],
      [[1, 200]],
      [
        [1, 503],
        [2, 200],
      ],
      [[1, 200]],
    ]);
    expect(deliveries.every((d: any) => d.state === 'succeeded')).toBe(true);
    receiver.answer = () => 200;
    await call(hooksUrl(`/${hook.id}`), { method: 'DELETE', token: org.tokens.owner });
  });

  it('a 4xx other than 408 and 429 fails at once; a redelivery sends the same event ID again', async () => {
    receiver.received.length = 0;
    const hook = await createHook();
    receiver.answer = () => 400;
    await patch('carol', 'email', 'Allow');
    const failed = await waitFor(
      async () => (await call(hooksUrl(`/${hook.id}/deliveries?state=failed`), { token: org.tokens.owner })).body,
      (b) => b.deliveries.length === 1,
    );
    expect(failed.deliveries[0].attempts).toHaveLength(1);
    receiver.answer = () => 200;
    const again = await call(hooksUrl(`/${hook.id}/deliveries/${failed.deliveries[0].id}/redeliver`), {
      method: 'POST',
      token: org.tokens.owner,
    });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ eventId: failed.deliveries[0].eventId, redeliveryOf: failed.deliveries[0].id });
    expect(again.body.id).toMatch(UUID_V7);
    const got = await waitFor(
      async () => verified(hook.secret),
      (v) => v.length >= 2,
    );
    expect(got.map((r) => r.event.id)).toEqual([failed.deliveries[0].eventId, failed.deliveries[0].eventId]);
    expect(
      (
        await call(hooksUrl(`/${hook.id}/deliveries/${failed.deliveries[0].id}/redeliver`), {
          method: 'POST',
          token: org.tokens.dpo,
        })
      ).status,
    ).toBe(403);
    await call(hooksUrl(`/${hook.id}`), { method: 'DELETE', token: org.tokens.owner });
  });

  it('ping sends a signed webhook.ping now and answers its delivery', async () => {
    receiver.received.length = 0;
    const hook = await createHook({ disabled: true });
    const ping = await call(hooksUrl(`/${hook.id}/ping`), { method: 'POST', token: org.tokens.owner });
    expect(ping.status).toBe(200);
    expect(ping.body).toMatchObject({ eventType: 'webhook.ping', state: 'succeeded' });
    expect(ping.body.id).toMatch(UUID_V7);
    expect(verified(hook.secret).map((r) => r.event.type)).toEqual(['webhook.ping']);
    receiver.answer = () => 500;
    const failing = await call(hooksUrl(`/${hook.id}/ping`), { method: 'POST', token: org.tokens.owner });
    receiver.answer = () => 200;
    expect(failing.body).toMatchObject({ state: 'failed', attempts: [{ status: 500 }] });
    await call(hooksUrl(`/${hook.id}`), { method: 'DELETE', token: org.tokens.owner });
  });

  it('after a secret rotation deliveries verify with the new secret and, for a grace period, the old one', async () => {
    receiver.received.length = 0;
    const hook = await createHook();
    const rotated = await call(hooksUrl(`/${hook.id}/secret`), { method: 'POST', token: org.tokens.owner });
    expect(rotated.body.secret).not.toBe(hook.secret);
    await patch('dave', 'email', 'Disallow');
    await waitFor(
      async () => verified(rotated.body.secret),
      (v) => v.length >= 1,
    );
    expect(verified(rotated.body.secret)).toHaveLength(1);
    expect(verified(hook.secret)).toHaveLength(1);
    await call(hooksUrl(`/${hook.id}`), { method: 'DELETE', token: org.tokens.owner });
  });

  it('a disabled webhook gets nothing; enabled again, it starts at the head of the feed', async () => {
    receiver.received.length = 0;
    const hook = await createHook({ disabled: true });
    await patch('dave', 'phone', 'Disallow');
    await new Promise((r) => setTimeout(r, 1500));
    expect(verified(hook.secret)).toHaveLength(0);
    const enabled = await call(hooksUrl(`/${hook.id}`), {
      method: 'PUT',
      token: org.tokens.owner,
      body: { payloadUrl: receiver.url, subscribedEvents: CONSENT_TYPES, disabled: false },
    });
    expect(enabled.status).toBe(200);
    expect(enabled.body.disabled).toBe(false);
    await patch('dave', 'phone', 'Allow');
    const got = await waitFor(
      async () => verified(hook.secret),
      (v) => v.length >= 1,
    );
    expect(got.map((r) => r.event.type)).toEqual(['consent.allowed']);
    await call(hooksUrl(`/${hook.id}`), { method: 'DELETE', token: org.tokens.owner });
    expect((await call(hooksUrl(`/${hook.id}/deliveries`), { token: org.tokens.owner })).status).toBe(404);
  });

  it('SSRF: a name that resolves to a private address at send time is refused then, and no redirect is followed', async () => {
    rebindTo = [93, 184, 216, 34];
    const hook = await createHook({ payloadUrl: 'https://rebind.example.test/hook', disabled: true });
    rebindTo = [10, 0, 0, 1];
    const ping = await call(hooksUrl(`/${hook.id}/ping`), { method: 'POST', token: org.tokens.owner });
    expect(ping.body).toMatchObject({ state: 'failed' });
    expect(ping.body.attempts[0].status).toBeUndefined();
    expect(ping.body.attempts[0].error).toMatch(/address|refused|not allowed|private|special/i);
    await call(hooksUrl(`/${hook.id}`), { method: 'DELETE', token: org.tokens.owner });

    const redirecting = await createHook({ disabled: true });
    receiver.answer = () => 302;
    const redirected = await call(hooksUrl(`/${redirecting.id}/ping`), { method: 'POST', token: org.tokens.owner });
    receiver.answer = () => 200;
    expect(redirected.body).toMatchObject({
      state: 'failed',
      attempts: [{ status: 302, error: 'redirects are not followed' }],
    });
    await call(hooksUrl(`/${redirecting.id}`), { method: 'DELETE', token: org.tokens.owner });
    expect(connects.filter((h) => /^(10\.|93\.|169\.254)/.test(h))).toEqual([]);
  });
});
