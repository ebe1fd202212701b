/**
 * The server under test and its database: creating and dropping the PostgreSQL bench database or
 * the PGlite directory, starting `node --require ./bench/eld.cjs bin/assent.cjs serve` as a child on
 * a free port of 127.0.0.1, reading the event-loop probe's records, and stopping the child.
 * Everything created here registers its undo step with onCleanup.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { threadPoolSize } from '../../bin/thread-pool.cjs';
import { onCleanup } from './cleanup.mjs';
import { HOST, opts, ROOT } from './config.mjs';
import { assertLocal, freePort, log } from './util.mjs';

/** Throttle thresholds given to every server: far above any number of failures a run can cause. */
export const THROTTLE_ENV = {
  ASSENT_IP_DELAY_AFTER: '1000000',
  ASSENT_IP_LOCK_AFTER: '1000000',
  ASSENT_ACCOUNT_DELAY_AFTER: '1000000',
  ASSENT_ACCOUNT_LOCK_AFTER: '1000000',
};

/**
 * The libuv thread pool size the server runs with, by the product's own rule
 * (`bin/thread-pool.cjs`: UV_THREADPOOL_SIZE when set, else one thread per core, at least 2).
 * Floor servers are given the same.
 */
export function serverThreadPool() {
  return threadPoolSize(process.env);
}

/** The server's environment: this process's, minus anything that would point it elsewhere. */
export function serverEnv(extra) {
  const env = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'ASSENT_SECRET',
    'ASSENT_DATA_DIR',
    'ASSENT_PUBLIC_URL',
    'ASSENT_DEFAULT_CLIENT_ID',
    'NODE_OPTIONS',
  ])
    delete env[name];
  return {
    ...env,
    LOG_LEVEL: 'warn',
    // The storms log in successfully only, which never counts against the throttle, but the login
    // timing measurement (4b) fails a few hundred logins on purpose, all from 127.0.0.1 and half of
    // them as alice; a failure counts toward both the IP and the account. The limits are raised so
    // that nothing is ever delayed or locked (a stray failure cannot turn a storm into 429s either).
    ...THROTTLE_ENV,
    ...extra,
  };
}

/**
 * Creates database assent_bench_<timestamp> on the (local) PostgreSQL of BENCH_PG_URL and
 * registers its removal.
 * @returns its name, the server version and the connection URL for the server.
 */
export async function createPostgresDatabase() {
  assertLocal(opts.pgAdminUrl, 'BENCH_PG_URL');
  const dbName = `assent_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: opts.pgAdminUrl });
  await admin.connect();
  let pgVersion;
  try {
    pgVersion = (await admin.query('SHOW server_version')).rows[0].server_version;
    await admin.query(`CREATE DATABASE ${dbName}`);
  } finally {
    await admin.end();
  }
  log(`postgres: created database ${dbName} (PostgreSQL ${pgVersion})`);
  onCleanup(async () => {
    const dropper = new pg.Client({ connectionString: opts.pgAdminUrl });
    await dropper.connect();
    try {
      await dropper.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    } finally {
      await dropper.end();
    }
    log(`postgres: dropped database ${dbName}`);
  });
  const url = new URL(opts.pgAdminUrl);
  url.pathname = `/${dbName}`;
  return { dbName, pgVersion, url };
}

/**
 * A fresh store for one server, removed at cleanup: a PGlite directory, or a PostgreSQL database
 * of BENCH_PG_URL with a random `ASSENT_SECRET`.
 * @param kind - `pglite` or `postgres`.
 * @param extra - environment added for the server (see `serverEnv`).
 * @returns `{env, dbName, database}`: dbName null on PGlite; database names the store and its version.
 */
export async function freshStore(kind, extra) {
  if (kind === 'pglite') {
    const dir = createPgliteDir();
    return { env: serverEnv({ ASSENT_DATA_DIR: dir, ...extra }), dbName: null, database: 'PGlite' };
  }
  const { dbName, pgVersion, url } = await createPostgresDatabase();
  const env = serverEnv({ DATABASE_URL: url.toString(), ASSENT_SECRET: randomBytes(32).toString('base64'), ...extra });
  return { env, dbName, database: `PostgreSQL ${pgVersion}` };
}

/** Creates a temporary PGlite data directory and registers its removal. */
export function createPgliteDir() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'assent-bench-pglite-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Starts a server child with the event-loop probe preloaded and waits until `GET /readyz` answers.
 * @param label - names it in the log.
 * @param env - its environment (see `serverEnv`); PORT, HOST and BENCH_ELD_FILE are added.
 * @param dbName - the PostgreSQL database whose backends count as the server's in CPU snapshots.
 * @param script - what node runs: Assent (`bin/assent.cjs serve`) or a floor server (floor.mjs).
 */
export async function startServer(label, env, dbName = null, script = ['bin/assent.cjs', 'serve']) {
  const port = await freePort();
  const eldFile = path.join(os.tmpdir(), `assent-bench-eld-${process.pid}-${label}-${Date.now()}.jsonl`);
  onCleanup(() => rmSync(eldFile, { force: true }));
  // BENCH_SERVER_NODE_FLAGS: extra Node.js flags for the servers only, e.g. `--cpu-prof --cpu-prof-dir=DIR`.
  const flags = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, '--require', './bench/eld.cjs', ...script], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST, BENCH_ELD_FILE: eldFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let stopped = false;
  const server = {
    label,
    env,
    dbName,
    port,
    base: `http://${HOST}:${port}`,
    child,
    eldFile,
    output: () => output,
    async stop() {
      if (stopped) return exited;
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        const result = await exited;
        clearTimeout(timer);
        return result;
      }
      return exited;
    },
  };
  onCleanup(() => server.stop());

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`${label} server exited during start-up (code ${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${server.base}/readyz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${label} server not ready after 30s:\n${output}`);
    await sleep(100);
  }
  log(`${label}: server pid ${child.pid} ready on ${server.base}`);
  return server;
}

function eldRecords(server) {
  if (!existsSync(server.eldFile)) return [];
  return readFileSync(server.eldFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** Closes the probe's current window (SIGUSR2) and returns its record; the next window starts now. */
export async function eldMark(server) {
  const before = eldRecords(server).length;
  server.child.kill('SIGUSR2');
  const deadline = Date.now() + 10_000;
  for (;;) {
    const records = eldRecords(server);
    if (records.length > before) return records[records.length - 1];
    if (Date.now() > deadline) throw new Error(`${server.label}: the event-loop probe did not answer SIGUSR2`);
    await sleep(20);
  }
}

/** Stops the server and checks that the preload wrote its exit record. */
export async function stopServer(server) {
  const before = eldRecords(server).length;
  const { code, signal } = await server.stop();
  const records = eldRecords(server);
  const exitRecord = records.length > before ? records[records.length - 1] : null;
  log(
    `${server.label}: server stopped (code ${code}, signal ${signal}); ` +
      `exit record ${exitRecord?.reason === 'exit' ? 'written' : 'MISSING'}`,
  );
  return { exitCode: code, signal, eldExitRecordWritten: exitRecord?.reason === 'exit' };
}
