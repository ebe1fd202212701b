/**
 * Starts a real Assent server on 127.0.0.1 for a test file: on a fresh PGlite directory by
 * default, or on a fresh PostgreSQL database when TEST_DATABASE_URL is set.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { type Context, createContext } from '../../src/app/context.js';
import { runImport } from '../../src/app/organisations-as-code/import.js';
import type { ImportResult } from '../../src/app/organisations-as-code/schema.js';
import { buildApp } from '../../src/app/server.js';
import { redirectUriImport } from '../../src/federation/openid/redirect-uris.js';
import { type Config, loadConfig } from '../../src/platform/config/load.js';
import { lockDataDir } from '../../src/platform/db/lock.js';
import { openPglite, openPostgres, type Store } from '../../src/platform/db/open.js';

/** A running test server. */
export interface TestAssent {
  /** Origin, e.g. http://127.0.0.1:41234. */
  url: string;
  /** `{base}` = url + /v1. */
  base: string;
  config: Config;
  ctx: Context;
  store: Store;
  /** Environment that points a CLI process at the same store. */
  env: Record<string, string>;
  /** IDs of the demo import. */
  ids: ImportResult;
  stop(): Promise<void>;
}

/** The test secret for PostgreSQL runs (ASSENT_SECRET is mandatory there). */
export const TEST_SECRET = 'test-master-secret-of-at-least-32-characters';

/**
 * The ports `freePort` picks from: below the kernel's ephemeral range (`ip_local_port_range`, 32768-60999 by
 * default), from which the OS takes the local port of every outgoing connection. A port taken from that range with
 * `listen(0)` and bound again later can meanwhile become the local end of a database or HTTP client connection
 * (seen in CI: EADDRINUSE under two suites' load); below it, only another test's pick can collide.
 */
function portRange(): [low: number, high: number] {
  let ephemeralLow = 32768;
  try {
    ephemeralLow =
      Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    // Not Linux: keep the default range's bound.
  }
  const high = Math.max(2048, ephemeralLow);
  return [Math.max(1025, high - 12000), high];
}

/** A free TCP port on 127.0.0.1, outside the ephemeral range (`portRange`), checked by binding it once. */
export async function freePort(): Promise<number> {
  const [low, high] = portRange();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in ${low}-${high} after 50 attempts`);
}

/** True when the suite runs against a real PostgreSQL. */
export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * Creates a fresh database for one test file on TEST_DATABASE_URL's server: empty, or (`migrated`)
 * a copy of the run's migrated template (test/helpers/global-setup.ts), which is much faster than
 * running every migration again.
 * @param opts.migrated - copy the migrated template instead of creating an empty database.
 * @returns its URL and a function that drops it.
 */
export async function freshPostgresDatabase(
  opts: { migrated?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  const name = `assent_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await admin.query(
    opts.migrated ? `CREATE DATABASE ${name} TEMPLATE ${inject('postgresTemplate')}` : `CREATE DATABASE ${name}`,
  );
  await admin.end();
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * Makes `dataDir` a migrated PGlite data directory: a recursive copy of the run's migrated template
 * (test/helpers/global-setup.ts) into `dataDir/pgdata`, where `openPglite` looks. Opening it then
 * skips initdb and every migration.
 * @param dataDir - an empty data directory (ASSENT_DATA_DIR).
 */
export function copyPgliteTemplate(dataDir: string): void {
  const template = inject('pgliteTemplate');
  // None on a PostgreSQL run (global-setup.ts): the embedded store then migrates when it opens.
  if (template) cpSync(template, path.join(dataDir, 'pgdata'), { recursive: true });
}

/** The demo organisation used by most tests (a copy of examples/demo.json's shape). */
export function demoImport() {
  return {
    clients: [{ clientId: 'igrant-ios-app' }, { clientId: 'privacy-dashboard' }],
    organisations: [
      {
        key: 'acme',
        name: 'Acme',
        location: 'Stockholm',
        type: 'Retail',
        purposes: [{ key: 'marketing', name: 'Marketing', attributes: [{ key: 'email', name: 'Email address' }] }],
        admins: [
          {
            username: 'owner@acme.example',
            password: 'owner-passphrase',
            name: 'Owner',
            roles: ['owner', 'admin', 'dpo', 'developer'],
          },
        ],
        individuals: [
          {
            username: 'alice@acme.example',
            password: 'alice-passphrase',
            name: 'Alice',
            email: 'alice@acme.example',
            phone: '+46700000001',
          },
          { username: 'bob@acme.example', password: 'bob-passphrase', name: 'Bob', email: 'bob@acme.example' },
        ],
      },
    ],
  };
}

/**
 * Starts a server with the demo data imported.
 * @param env - extra environment (e.g. throttle thresholds).
 */
export async function startAssent(env: Record<string, string> = {}): Promise<TestAssent> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'assent-test-'));
  const pgdb = onPostgres ? await freshPostgresDatabase({ migrated: true }) : undefined;
  if (!pgdb) copyPgliteTemplate(dataDir);
  const fullEnv: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    ASSENT_DATA_DIR: dataDir,
    ASSENT_IP_DELAY_AFTER: '1000',
    ASSENT_IP_LOCK_AFTER: '2000',
    ...(pgdb ? { DATABASE_URL: pgdb.url, ASSENT_SECRET: TEST_SECRET } : {}),
    ...env,
  };
  // `{port}` in the public URL is the port chosen here (passkeys need a host name such as localhost: WebAuthn refuses
  // an IP address as the relying party's ID).
  if (fullEnv.ASSENT_PUBLIC_URL) fullEnv.ASSENT_PUBLIC_URL = fullEnv.ASSENT_PUBLIC_URL.replace('{port}', String(port));
  const config = loadConfig(fullEnv);
  const release = pgdb ? async () => {} : await lockDataDir(dataDir);
  const store = pgdb ? openPostgres(pgdb.url) : await openPglite(dataDir);
  await store.migrate(); // nothing pending on the template's copy, as on a restarted server
  const ids = await runImport(store.db, demoImport(), config.argon2, redirectUriImport);
  const ctx = await createContext(config, store);
  const app = await buildApp(ctx, { logLevel: 'silent' });
  await ctx.startWorkers(app.log);
  await app.listen({ port, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    base: `${url}/v1`,
    config,
    ctx,
    store,
    env: fullEnv,
    ids,
    async stop() {
      // Each step is bounded and named, so that a shutdown that hangs says where instead of
      // running into the hook's timeout.
      await step(
        'app.close',
        () => app.close(),
        () => JSON.stringify(app.requestsInFlight()),
      );
      await step('stopWorkers', () => ctx.stopWorkers());
      await step('store.close', () => store.close().catch(() => {})); // a test may have closed it already
      await step('release', () => release());
      await step('drop database', async () => pgdb?.drop());
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs one step of a test server's shutdown, failing with its name when it takes longer than 20 s.
 * @param state - what to add to the timeout's message (e.g. the requests still running).
 * @throws Error naming the step on timeout, or what the step throws.
 */
async function step(name: string, run: () => Promise<unknown>, state?: () => string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const detail = state ? ` (${state()})` : '';
      reject(new Error(`test server stop: ${name} did not finish within 20 s${detail}`));
    }, 20_000);
  });
  try {
    await Promise.race([run(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** JSON request helper: returns status, headers and parsed body. */
export async function call(
  url: string,
  init: { method?: string; body?: unknown; token?: string; scheme?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token) headers.authorization = `${init.scheme ?? 'Bearer'} ${init.token}`;
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {}
  return { status: res.status, headers: res.headers, body };
}

/** Logs in through `POST /v1.1/users/login` and returns the body. */
export async function login(t: TestAssent, username: string, password: string) {
  const res = await call(`${t.base}/v1.1/users/login`, { body: { username, password } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { User: any; Token: { access_token: string; refresh_token: string } };
}
