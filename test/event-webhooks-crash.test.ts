/**
 * Event webhooks survive crashes (docs/events.md "Delivery guarantees"): two real `assent serve` processes share one
 * PostgreSQL database under a load of consent PATCHes, each is killed (SIGKILL) and started again mid-load, and a
 * receiver on loopback verifies every delivery with `standardwebhooks`. Checked against the individuals' consent
 * histories: every committed change arrived at least once, each individual's in history order, and nothing arrived
 * for a change that was refused. Then the receiver is down for 30 s while the load goes on: once it is back, the
 * backlog drains.
 *
 * PostgreSQL only: two processes cannot share the embedded store, and one killed process's lock on it goes stale only
 * after 15 s; the same guarantees on PGlite, one process, are in event-webhooks.test.ts.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onPostgres } from './helpers/assent.js';
import { type ServedAssent, type ServeProcess, serveFresh, startServe } from './helpers/cli.js';
import { type Receiver, startReceiver, waitFor } from './helpers/receiver.js';

const PEOPLE = ['amir', 'astrid', 'bruno', 'camille', 'chen', 'daria', 'elias', 'emma'];
const CONSENT_TYPES = ['consent.allowed', 'consent.disallowed', 'consent.askme', 'consent.expired'];

interface Person {
  name: string;
  userId: string;
  token: string;
  /** The path of one of their attribute consents. */
  url: string;
  /** The path of their consent history. */
  history: string;
}

let s: ServedAssent;
let second: ServeProcess;
let receiver: Receiver;
let secret: string;
let orgUrl: string;
let ownerToken: string;
const people: Person[] = [];

/** Every delivery the receiver got that verifies, as [event ID, individual], in arrival order. */
function arrivals(): Array<{ id: string; subject: string }> {
  const wh = new Webhook(secret);
  const out: Array<{ id: string; subject: string }> = [];
  for (const r of receiver.received) {
    try {
      const e = wh.verify(r.raw, r.headers as Record<string, string>) as { id: string; subject: string };
      out.push({ id: e.id, subject: e.subject });
    } catch {}
  }
  return out;
}

/** A person's consent history event IDs since `since`, oldest first. */
async function historyIds(p: Person, base: string, since: string): Promise<string[]> {
  const ids: string[] = [];
  let url = `${base}/${p.history}?limit=100`;
  for (;;) {
    const res = await call(url, { token: p.token });
    expect(res.status).toBe(200);
    for (const e of res.body.Events) if (e.TimeStamp >= since) ids.push(e.ID);
    if (!res.body.Links?.Next) return ids.reverse();
    url = res.body.Links.Next;
  }
}

/** PATCHes consents round-robin over both processes until `until` resolves; answers the count of 200s. */
async function load(until: Promise<unknown>, bases: () => string[]): Promise<number> {
  let stop = false;
  void until.then(() => (stop = true));
  let ok = 0;
  const worker = async (k: number) => {
    for (let i = 0; !stop; i++) {
      const p = people[(k + i) % people.length]!;
      const base = bases()[i % bases().length]!;
      const value = i % 2 === 0 ? 'Allow' : 'Disallow';
      // Every fifth request is refused (an unknown value): nothing may arrive for it.
      const consented = i % 5 === 4 ? 'Perhaps' : value;
      try {
        const res = await call(`${base}/${p.url}`, { method: 'PATCH', token: p.token, body: { consented, days: 0 } });
        if (res.status === 200) ok++;
      } catch {
        await new Promise((r) => setTimeout(r, 50)); // the process is down: its changes in flight are unknown
      }
    }
  };
  await Promise.all(PEOPLE.map((_, k) => worker(k)));
  return ok;
}

describe.skipIf(!onPostgres)('event webhooks across crashes (PostgreSQL)', () => {
  beforeAll(async () => {
    receiver = await startReceiver();
    const env = {
      ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1',
      ASSENT_JOB_LEASE_SECONDS: '2',
      ASSENT_EVENT_WEBHOOK_FIRST_RETRY_SECONDS: '1',
    };
    s = await serveFresh('examples/demo.json', env);
    second = await startServe({ ...s.env, PORT: '' });
    const signIn = await call(`${s.base}/v1.1/users/login`, {
      body: { username: 'owner@acme.example', password: 'demo-owner-passphrase' },
    });
    ownerToken = signIn.body.Token.access_token;
    const orgId = signIn.body.User.Roles[0].OrgID as string;
    orgUrl = `organizations/${orgId}`;
    for (const name of PEOPLE) {
      const login = await call(`${s.base}/v1.1/users/login`, {
        body: { username: `${name}@acme.example`, password: 'demo-individual-passphrase' },
      });
      const userId = login.body.User.ID as string;
      const token = login.body.Token.access_token as string;
      const record = (await call(`${s.base}/${orgUrl}/users/${userId}/consents`, { token })).body;
      const purpose = record.ConsentsAndPurposes[0];
      people.push({
        name,
        userId,
        token,
        url: `${orgUrl}/users/${userId}/consents/${record.ID}/purposes/${purpose.Purpose.ID}/attributes/${purpose.Consents[0].ID}`,
        history: `${orgUrl}/users/${userId}/consents/history`,
      });
    }
    const hook = await call(`${s.base}/${orgUrl}/webhooks`, {
      method: 'POST',
      token: ownerToken,
      body: { payloadUrl: receiver.url, subscribedEvents: CONSENT_TYPES },
    });
    expect(hook.status).toBe(201);
    secret = hook.body.secret;
  }, 180_000);
  afterAll(async () => {
    await second?.stop('SIGKILL');
    await s?.cleanup();
    await receiver?.close();
  });

  it('every committed change arrives at least once, each individual’s in history order, none for a refused one', async () => {
    const since = new Date().toISOString();
    let secondProcess = second;
    const bases = () => [s.base, secondProcess.base];
    const crashes = (async () => {
      await new Promise((r) => setTimeout(r, 2000));
      await s.kill();
      await s.restart();
      await new Promise((r) => setTimeout(r, 2000));
      const env = { ...s.env, PORT: new URL(secondProcess.url).port };
      await secondProcess.stop('SIGKILL');
      secondProcess = await startServe(env);
      await new Promise((r) => setTimeout(r, 2000));
    })();
    const committed = await load(crashes, bases);
    second = secondProcess;
    expect(committed).toBeGreaterThan(50);

    const histories = new Map<string, string[]>();
    for (const p of people) histories.set(p.userId, await historyIds(p, s.base, since));
    const all = new Set([...histories.values()].flat());
    await waitFor(
      async () => new Set(arrivals().map((a) => a.id)),
      (got) => [...all].every((id) => got.has(id)),
      60_000,
    );
    const got = arrivals();
    const ids = new Set(got.map((a) => a.id));
    expect([...all].filter((id) => !ids.has(id))).toEqual([]); // every committed change arrived
    expect([...ids].filter((id) => !all.has(id))).toEqual([]); // nothing that is not in a history
    for (const p of people) {
      const firsts = [...new Set(got.filter((a) => a.subject === p.userId).map((a) => a.id))];
      expect(firsts, p.name).toEqual(histories.get(p.userId));
    }
  }, 180_000);

  it('a receiver down for 30 s under load: the backlog drains once it is back', async () => {
    const since = new Date().toISOString();
    receiver.answer = () => 503;
    const down = new Promise((r) => setTimeout(r, 30_000));
    const committed = await load(down, () => [s.base, second.base]);
    receiver.answer = () => 200;
    const back = Date.now();
    const histories = await Promise.all(people.map((p) => historyIds(p, s.base, since)));
    const all = histories.flat();
    expect(all.length).toBeGreaterThanOrEqual(committed);
    const drained = await waitFor(
      async () => new Set(arrivals().map((a) => a.id)),
      (got) => all.every((id) => got.has(id)),
      90_000,
    );
    expect(all.filter((id) => !drained.has(id))).toEqual([]);
    console.log(
      `receiver down 30 s: ${all.length} events, drained ${((Date.now() - back) / 1000).toFixed(1)} s after it came back`,
    );
  }, 180_000);
});
