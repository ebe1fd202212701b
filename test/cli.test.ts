/**
 * The `assent` command line around a running server: admin commands next to `assent serve`, the
 * data-directory lock, configuration refusals, the generated master key, and graceful shutdown.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onPostgres } from './helpers/assent.js';
import {
  DEMO_ALICE,
  DEMO_FILE,
  freshStore,
  runCli,
  type ServeProcess,
  startServe,
  type TestStore,
} from './helpers/cli.js';

/** A store of the run's kind (PGlite or PostgreSQL) with a server on it. */
let store: TestStore;
let server: ServeProcess;
/** An embedded store with a server on it, on every run: the lock and the key file are embedded matters. */
let embedded: TestStore;
let embeddedServer: ServeProcess;
const scratch: string[] = [];

beforeAll(async () => {
  [store, embedded] = await Promise.all([freshStore(), freshStore({ embedded: true })]);
  [server, embeddedServer] = await Promise.all([startServe(store.env), startServe(embedded.env)]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), embeddedServer?.stop()]);
  await Promise.all([store?.cleanup(), embedded?.cleanup()]);
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('assent CLI', { timeout: 120_000 }, () => {
  it('assent import works while assent serve runs on the same store, and the server sees the new users at once', async () => {
    if (store.kind === 'pglite') expect(existsSync(path.join(store.dataDir, 'assent.sock'))).toBe(true);
    const res = await runCli(['import', DEMO_FILE], store.env);
    expect(res.code, res.stderr).toBe(0);
    const ids = JSON.parse(res.stdout);
    const login = await call(`${server.base}/v1.1/users/login`, { body: DEMO_ALICE });
    expect(login.status).toBe(200);
    expect(login.body.User.ID).toBe(ids.organisations.acme.users['alice@acme.example']);
    expect(server.child.exitCode).toBeNull();
  });

  it('a second assent serve on the same ASSENT_DATA_DIR exits 1 saying the data directory is in use', async () => {
    const second = await runCli(['serve'], { ...embedded.env, PORT: '0' }, 30_000);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(embedded.dataDir);
    expect(second.stderr).toMatch(/in use/i);
    // The first server is unharmed.
    expect((await call(`${embeddedServer.url}/readyz`)).status).toBe(200);
  });

  it('DATABASE_URL without ASSENT_SECRET refuses to start with exit 2 and a message naming ASSENT_SECRET', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'assent-nosecret-'));
    scratch.push(dataDir);
    // Unreachable on purpose: the refusal must come from the configuration, before any connection.
    const env = { DATABASE_URL: 'postgres://assent@127.0.0.1:1/assent', ASSENT_DATA_DIR: dataDir, PORT: '0' };
    for (const command of ['serve', 'migrate']) {
      const res = await runCli([command], env, 30_000);
      expect(res.code, command).toBe(2);
      expect(res.stderr, command).toContain('ASSENT_SECRET');
    }
  });

  it('on the embedded default, the server generates <dataDir>/master.key with mode 0600', () => {
    const file = path.join(embedded.dataDir, 'master.key');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').length).toBeGreaterThanOrEqual(32);
  });

  it('assent migrate succeeds on a fresh store and while a server is running', async () => {
    // Empty on purpose: every other store starts from the run's migrated template, so this is the
    // CLI's migration path from nothing (test/helpers/global-setup.ts migrates from empty too).
    const fresh = await freshStore({ empty: true });
    try {
      const res = await runCli(['migrate'], fresh.env);
      expect(res.code, res.stderr).toBe(0);
      expect(await fresh.query('select count(*)::int as n from users')).toEqual([{ n: 0 }]);
    } finally {
      await fresh.cleanup();
    }
    for (const [running, target] of [
      [server, store],
      [embeddedServer, embedded],
    ] as const) {
      const res = await runCli(['migrate'], target.env);
      expect(res.code, res.stderr).toBe(0);
      expect((await call(`${running.url}/readyz`)).status).toBe(200);
    }
  });

  it('an unknown command exits 2 with the usage', async () => {
    const res = await runCli(['frobnicate'], embedded.env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('frobnicate');
    expect(res.stderr).toMatch(/usage/i);
  });

  it('SIGTERM while a request is in flight lets it finish with a complete 200, then the process exits 0', async () => {
    const imported = await runCli(['import', DEMO_FILE], store.env); // idempotent; the demo users are needed
    expect(imported.code, imported.stderr).toBe(0);
    const res = await loginAcrossSigterm(server, false);
    expect(res.status).toBe(200);
    const parsed = JSON.parse(res.text);
    expect(parsed.Token.access_token).toBeTruthy();
    expect(parsed.User.Email).toBe('alice@acme.example');
    expect((await server.exited).code).toBe(0);
  });

  it('SIGTERM with a keep-alive client: the in-flight request gets its 200, the idle connection is closed, and the process exits 0 without waiting for the force timeout', async () => {
    const again = await startServe(store.env);
    const agent = new http.Agent({ keepAlive: true, timeout: 60_000 });
    try {
      const signalled = Date.now();
      const res = await loginAcrossSigterm(again, agent);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text).Token.access_token).toBeTruthy();
      const exit = await again.exited;
      // serve.ts forces exit(1) after 10 s; a clean shutdown must not need it.
      expect({ code: exit.code, withinForceTimeout: Date.now() - signalled < 9_000 }).toEqual({
        code: 0,
        withinForceTimeout: true,
      });
    } finally {
      agent.destroy();
      await again.stop('SIGKILL');
    }
  });
});

// PostgreSQL only: the handler is held in flight by a lock that another connection takes, which an
// embedded store (one process) cannot offer. docs/development.md "Development" lists the skipped tests.
describe.skipIf(!onPostgres)('graceful shutdown and clients that have gone', { timeout: 120_000 }, () => {
  it('SIGTERM while a login runs for a client that has gone: its handler finishes (the session is stored) before the store closes, and the process exits 0', async () => {
    const fresh = await freshStore();
    const again = await startServe(fresh.env);
    const holder = new pg.Client({ connectionString: fresh.env.DATABASE_URL });
    try {
      expect((await runCli(['import', DEMO_FILE], fresh.env)).code).toBe(0);
      await holdLoginThrottle(holder);
      const req = http.request(`${again.base}/v1.1/users/login`, {
        agent: false,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      req.on('error', () => {}); // the client leaves on purpose
      req.end(JSON.stringify(DEMO_ALICE));
      await until(() => again.stdout().includes('/v1.1/users/login'), 'the server to receive the login');
      await whileLoginWaits(holder);
      req.destroy();
      again.child.kill('SIGTERM');
      await until(() => again.stdout().includes('shutting down'), 'the server to start shutting down');
      await new Promise((r) => setTimeout(r, 200)); // the server closes its (now idle) sockets
      await holder.query('COMMIT');
      const exit = await again.exited;
      expect(exit.code).toBe(0);
      expect(again.stdout()).not.toContain('"level":50');
      const [stored] = await fresh.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM token_families f JOIN users u ON u.id = f.user_id
         WHERE u.username = 'alice@acme.example'`,
      );
      expect(stored!.n).toBe(1);
    } finally {
      await holder.end().catch(() => {});
      await again.stop('SIGKILL');
      await fresh.cleanup();
    }
  });
});

describe.skipIf(!onPostgres)('a shutdown that cannot finish', { timeout: 60_000 }, () => {
  it('past ASSENT_SHUTDOWN_GRACE_SECONDS the process exits 1 and its log names the method and route still running, never the body', async () => {
    const fresh = await freshStore();
    const again = await startServe({ ...fresh.env, ASSENT_SHUTDOWN_GRACE_SECONDS: '1' });
    const holder = new pg.Client({ connectionString: fresh.env.DATABASE_URL });
    try {
      expect((await runCli(['import', DEMO_FILE], fresh.env)).code).toBe(0);
      await holdLoginThrottle(holder); // for the whole test: the login never gets past its first statement
      const login = fetch(`${again.base}/v1.1/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(DEMO_ALICE),
      }).catch(() => null);
      await whileLoginWaits(holder);
      again.child.kill('SIGTERM');
      const exit = await again.exited;
      expect(exit.code).toBe(1);
      const forced = again
        .stdout()
        .split('\n')
        .find((line) => line.includes('shutdown forced after 1 s'));
      expect(forced, again.stdout().slice(-2000)).toBeDefined();
      expect(JSON.parse(forced!).running).toEqual([
        { method: 'POST', route: '/v1/v1.1/users/login', ageMs: expect.any(Number) },
      ]);
      expect(again.stdout()).not.toContain(DEMO_ALICE.password);
      await login;
    } finally {
      await holder.end().catch(() => {});
      await again.stop('SIGKILL');
      await fresh.cleanup();
    }
  });
});

/**
 * Connects `holder` and takes login_throttle in a transaction: a login's first statement reads that
 * table, so its handler waits there, in flight, until the transaction ends.
 */
async function holdLoginThrottle(holder: pg.Client): Promise<void> {
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('LOCK TABLE login_throttle IN ACCESS EXCLUSIVE MODE');
}

/**
 * Resolves once a login waits on `holder`'s lock of login_throttle: seen in pg_locks as a lock not
 * granted. Not pg_stat_activity: inside the holder's transaction it answers one snapshot, taken at
 * the first poll, and would never show a backend that starts waiting after it.
 */
async function whileLoginWaits(holder: pg.Client): Promise<void> {
  const deadline = Date.now() + 30_000;
  const waiting = async () =>
    (
      await holder.query(
        "SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'login_throttle'::regclass",
      )
    ).rows[0].n > 0;
  while (!(await waiting())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the login to wait on the lock');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Sends a login whose body is streamed in two halves, with SIGTERM delivered to the server (and
 * its shutdown begun) in between.
 * @param agent - the HTTP agent; false for a fresh connection without keep-alive.
 */
async function loginAcrossSigterm(
  target: ServeProcess,
  agent: http.Agent | false,
): Promise<{ status: number; text: string }> {
  const body = JSON.stringify(DEMO_ALICE);
  const requestId = `in-flight-${Date.now()}`;
  const req = http.request(`${target.base}/v1.1/users/login`, {
    agent,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId,
    },
  });
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, 20));
  await until(() => target.stdout().includes(`"requestId":"${requestId}"`), 'the server to receive the request');
  target.child.kill('SIGTERM');
  await until(() => target.stdout().includes('shutting down'), 'the server to start shutting down');
  await new Promise((r) => setTimeout(r, 200));
  req.end(body.slice(20));
  return response;
}
