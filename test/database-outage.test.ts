/**
 * Database restarts, failovers and killed sessions, against two real `assent serve` processes on a
 * PostgreSQL cluster of the test's own (test/helpers/pg-cluster.ts), which the test kills sessions
 * of, restarts and stops without touching the shared server of TEST_DATABASE_URL.
 *
 * PostgreSQL only (skipped unless TEST_DATABASE_URL is set): PGlite runs inside the Assent process,
 * so its database cannot restart, fail over or become unreachable while the process serves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onPostgres, TEST_SECRET } from './helpers/assent.js';
import { runCli, type ServeProcess, startServe, writeFile } from './helpers/cli.js';
import { type PgCluster, startCluster } from './helpers/pg-cluster.js';
import { startProxy } from './helpers/tcp-proxy.js';

const PASSWORD = 'outage-test-passphrase';
const WORKERS = 8;
const people = Array.from({ length: WORKERS }, (_, i) => `person${i}@outage.example`);

let cluster: PgCluster;
let dir: string;
let env: Record<string, string>;
const servers: ServeProcess[] = [];
/** The imported organisation's IDs (what `assent import` prints). */
let ids: { orgId: string; purposeId: string; attributeId: string };

/** Runs `text` on database `db` of the test's cluster. */
async function sql(db: string, text: string, values: unknown[] = []): Promise<any[]> {
  const client = new pg.Client({ connectionString: cluster.urlOf(db) });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 100 ms until it holds; false after `ms`. */
async function within(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return true;
    await sleep(100);
  }
  return false;
}

beforeAll(async () => {
  if (!onPostgres) return;
  cluster = await startCluster();
  await sql('postgres', 'CREATE DATABASE assent');
  dir = mkdtempSync(path.join(os.tmpdir(), 'assent-outage-'));
  env = {
    ASSENT_DATA_DIR: dir,
    DATABASE_URL: cluster.urlOf('assent'),
    ASSENT_SECRET: TEST_SECRET,
    ASSENT_IP_DELAY_AFTER: '1000',
    ASSENT_IP_LOCK_AFTER: '2000',
    LOG_LEVEL: 'warn',
  };
  // Two replicas behind one address: the tokens of either are valid at both.
  env.ASSENT_PUBLIC_URL = 'http://assent.test';
  const file = writeFile(dir, 'import.json', {
    clients: [{ clientId: 'igrant-ios-app' }],
    organisations: [
      {
        key: 'outage',
        name: 'Outage',
        purposes: [
          { key: 'marketing', name: 'Marketing', lawfulUsage: false, attributes: [{ key: 'email', name: 'Email' }] },
        ],
        admins: [{ username: 'dpo@outage.example', password: PASSWORD, roles: ['dpo'] }],
        individuals: people.map((username) => ({ username, password: PASSWORD })),
      },
    ],
  });
  const imported = await runCli(['import', file], env);
  if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
  const org = JSON.parse(imported.stdout).organisations.outage;
  ids = { orgId: org.id, purposeId: org.purposes.marketing.id, attributeId: org.purposes.marketing.attributes.email };
  // One after the other (starting together is another test's subject).
  servers.push(await startServe(env));
  servers.push(await startServe(env));
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  await cluster?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One individual changing their consent in a loop: who they are and what was acknowledged. */
interface Worker {
  token: string;
  /** The individual's consents: `/organizations/{org}/users/{user}/consents`. */
  consents: string;
  /** The attribute's PATCH path, under `consents`. */
  url: string;
  /** `days` of every change answered 200 (each change sets a new value of `days`). */
  acknowledged: number[];
  /** Statuses other than 200, with their Retry-After. */
  refused: Array<{ status: number; retryAfter: string | null; body: unknown }>;
  /** Requests that got no answer at all (the process was gone). */
  unanswered: number;
}

async function signIn(base: string, username: string) {
  const res = await call(`${base}/v1.1/users/login`, { body: { username, password: PASSWORD } });
  if (res.status !== 200) throw new Error(`login of ${username}: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: res.body.Token.access_token as string, userId: res.body.User.ID as string };
}

describe.skipIf(!onPostgres)('a database restart, failover or killed session costs only the requests in flight', () => {
  it('8 clients changing consents on two processes through killed sessions and fast and immediate restarts: both processes live, every acknowledged change is stored, the chain verifies', async () => {
    const base = servers[0]!.base;
    const dpo = await signIn(base, 'dpo@outage.example');
    const workers: Worker[] = [];
    for (const username of people) {
      const { token, userId } = await signIn(base, username);
      const consents = `/organizations/${ids.orgId}/users/${userId}/consents`;
      const record = await call(`${base}${consents}`, { token });
      expect(record.status).toBe(200);
      workers.push({
        token,
        consents,
        url: `${consents}/${record.body.ID}/purposes/${ids.purposeId}/attributes/${ids.attributeId}`,
        acknowledged: [],
        refused: [],
        unanswered: 0,
      });
    }

    let running = true;
    const load = workers.map(async (w, i) => {
      for (let days = 1; running; days++) {
        const server = servers[(i + days) % 2]!;
        // AskMe keeps its days (an Allow with days is AskMe too, a Disallow keeps none: docs/api.md "AskMe with days").
        const body = { consented: 'AskMe', days };
        const res = await call(`${server.base}${w.url}`, { method: 'PATCH', token: w.token, body }).catch(
          () => undefined,
        );
        if (!res) w.unanswered++;
        else if (res.status === 200) w.acknowledged.push(days);
        else w.refused.push({ status: res.status, retryAfter: res.headers.get('retry-after'), body: res.body });
        if (res?.status !== 200) await sleep(50);
      }
    });
    const acknowledgedSoFar = () => workers.reduce((n, w) => n + w.acknowledged.length, 0);
    /** Waits until the load has made progress again (the database answers), at most 15 s. */
    const progress = async () => {
      const before = acknowledgedSoFar();
      const moved = await within(async () => acknowledgedSoFar() >= before + 2 * WORKERS, 15_000);
      expect(moved, servers.map((s) => `exit ${s.child.exitCode}: ${s.stderr().slice(-800)}`).join('\n')).toBe(true);
    };

    await progress();
    for (let round = 0; round < 3; round++) {
      // Only the sessions of this test's database (its own cluster, too).
      await sql(
        'assent',
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'assent' AND pid <> pg_backend_pid()",
      );
      await progress();
    }
    await cluster.restart('fast');
    await progress();
    await cluster.restart('immediate');
    await progress();
    running = false;
    await Promise.all(load);

    for (const s of servers) expect(s.child.exitCode, s.stderr() + s.stdout()).toBeNull();
    for (const w of workers) {
      expect(w.unanswered).toBe(0);
      // What was refused was refused as an outage: 503 with Retry-After, never a 500.
      for (const r of w.refused)
        expect(r).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/), body: { Code: 503 } });
    }
    expect(workers.some((w) => w.refused.length > 0)).toBe(true); // the disruptions did cut requests in flight

    // Every acknowledged change is in the individual's history.
    let events = 0;
    for (const w of workers) {
      const history = await call(`${base}${w.consents}/history?limit=500`, { token: w.token });
      expect(history.status).toBe(200);
      const stored = new Set<number>();
      let page = history;
      for (;;) {
        for (const e of page.body.Events) stored.add(e.NewDays);
        events += page.body.Events.length;
        if (!page.body.Links?.Next) break;
        const next = new URL(page.body.Links.Next, base); // under the public URL: fetched from a process itself
        page = await call(`${servers[0]!.url}${next.pathname}${next.search}`, { token: w.token });
      }
      expect(w.acknowledged.filter((d) => !stored.has(d))).toEqual([]);
    }
    const verify = await call(`${base}/organizations/${ids.orgId}/consents/history/verify`, { token: dpo.token });
    expect(verify.body).toEqual({ Valid: true, Events: events, FirstBrokenSeq: null, Reason: '' });
  }, 90_000);
});

describe.skipIf(!onPostgres)('while the database is down, answers are 503 with Retry-After', () => {
  it('a stopped database server: 503 with Retry-After and one warn line without the query string per request, background work logs warn not error, /readyz 503, /healthz 200; served again once it is back', async () => {
    const server = servers[0]!;
    const { token, userId } = await signIn(server.base, people[0]!);
    const history = `${server.base}/organizations/${ids.orgId}/users/${userId}/consents/history?limit=7&marker=query-must-not-be-logged`;
    expect((await call(history, { token })).status).toBe(200);
    const logStart = server.stdout().length;
    await cluster.stop();
    try {
      for (const requestId of ['outage-1', 'outage-2']) {
        const res = await call(history, { token, headers: { 'x-request-id': requestId } });
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
        expect(res.body).toEqual({ Code: 503, Message: expect.any(String) });
      }
      const login = await call(`${server.base}/v1.1/users/login`, {
        body: { username: people[1], password: PASSWORD },
      });
      expect([login.status, login.headers.get('retry-after') !== null]).toEqual([503, true]);
      expect((await call(`${server.url}/readyz`)).status).toBe(503);
      expect((await call(`${server.url}/healthz`)).status).toBe(200);
      // An outage is not a bug: logged at warn (40), once per request, with the path only.
      const lines = server
        .stdout()
        .split('\n')
        .filter((l) => l.includes('"outage-1"'))
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => [l.level, l.msg])).toEqual([[40, 'database unavailable']]);
      expect(lines[0].path).toBe(`/v1/organizations/${ids.orgId}/users/${userId}/consents/history`);
      expect(server.stdout()).not.toContain('query-must-not-be-logged');
      expect(server.stdout()).not.toContain('unhandled error');
      // The background work (the sealer's 1 s sweep, the job queue) fails each round while the
      // database is down: expected, so warn, never error (level 50), which pages someone for a bug.
      await new Promise((r) => setTimeout(r, 2_500));
      const during = server
        .stdout()
        .slice(logStart)
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      expect(during.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
      expect(during.some((l) => l.level === 40 && /: database unavailable$/.test(l.msg))).toBe(true);
    } finally {
      await cluster.start();
    }
    expect(await within(async () => (await call(history, { token })).status === 200, 10_000)).toBe(true);
    for (const s of servers) expect(s.child.exitCode).toBeNull();
  }, 60_000);
});

describe.skipIf(!onPostgres)('a database that stops answering without refusing', () => {
  it('connections cut and new ones never answered (a failover that leaves the old address silent): 503 with Retry-After within the connect timeout, not a hung request; served again once it answers', async () => {
    const proxy = await startProxy(cluster.port);
    const server = await startServe({ ...env, DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/assent` });
    try {
      const { token, userId } = await signIn(server.base, people[2]!);
      const consents = `${server.base}/organizations/${ids.orgId}/users/${userId}/consents`;
      expect((await call(consents, { token })).status).toBe(200);
      proxy.swallow();
      for (let i = 0; i < 2; i++) {
        const started = Date.now();
        // Without a connect timeout the request waits for ever; the abort turns that into a failure.
        const res = await fetch(consents, {
          headers: { authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(15_000),
        });
        expect([res.status, res.headers.get('retry-after')]).toEqual([503, '2']);
        expect(Date.now() - started).toBeLessThan(12_000);
      }
      proxy.forward();
      expect(await within(async () => (await call(consents, { token })).status === 200, 15_000)).toBe(true);
      expect(server.child.exitCode).toBeNull();
    } finally {
      await server.stop('SIGKILL');
      await proxy.close();
    }
  }, 60_000);
});

describe.skipIf(!onPostgres)('replicas started together on a fresh database', () => {
  it('two `assent serve` processes started at the same moment both serve, three times over', async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const database = `fresh_${attempt}`;
      await sql('postgres', `CREATE DATABASE ${database}`);
      const replicaEnv = { ...env, DATABASE_URL: cluster.urlOf(database) };
      // Migrations, the job queue's schema and queues, the first signing key: all created at start.
      const started = await Promise.allSettled([startServe(replicaEnv), startServe(replicaEnv)]);
      await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
      expect(started.map((s) => (s.status === 'fulfilled' ? 'serving' : String(s.reason).slice(0, 400)))).toEqual([
        'serving',
        'serving',
      ]);
      const keys = await sql(database, 'SELECT count(*)::int AS n FROM signing_keys WHERE retired_at IS NULL');
      expect(keys).toEqual([{ n: 1 }]);
    }
    // Six server starts: 23 s on an idle machine, over 120 s once with both CI suites on two loaded cores.
  }, 300_000);
});
