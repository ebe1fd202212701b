#!/usr/bin/env node
/**
 * Assent benchmark suite: `node bench/run.mjs` (or `npm run bench`).
 *
 * One bounded run (about 90 s; a watchdog ends it at BENCH_DEADLINE_SECONDS) that measures:
 *   1. the raw @node-rs/argon2 `verify` rate with the production parameters, concurrency 2 and 4;
 *   2. a login storm (POST /v1.1/users/login) against the real server on PostgreSQL, then on PGlite,
 *      with the server's event-loop delay recorded by the bench/eld.mjs preload;
 *   3. a refresh storm (POST /v1/users/token) on PostgreSQL, one rotating refresh-token chain per
 *      connection;
 * and compares them with the raw verify rate and with Keycloak's documented sizing figures.
 *
 * Everything targets 127.0.0.1 only. The PostgreSQL database (assent_bench_<timestamp>) and the
 * PGlite directory are created for the run and removed at the end; the server children are stopped.
 * Prints a summary and writes bench/results/latest.json. See bench/README.md.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Algorithm, hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import autocannon from 'autocannon';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS_DIR = path.join(ROOT, 'bench', 'results');
const DEMO_FILE = path.join(ROOT, 'examples', 'demo.json');
const HOST = '127.0.0.1';
const USER = { username: 'alice@acme.example', password: 'demo-alice-passphrase' };
const CLIENT_ID = 'igrant-ios-app';
/** Keycloak's documented sizing: logins/s and refreshes/s per vCPU. */
const KEYCLOAK_PER_VCPU = { logins: 15, refreshes: 120 };
const GOALS = { loginToVerify: 0.85, eldP99Ms: 50, refreshPerSecond: 1500 };

function envInt(name, fallback, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

const opts = {
  verifySeconds: envInt('BENCH_VERIFY_SECONDS', 10),
  stormSeconds: envInt('BENCH_STORM_SECONDS', 15),
  warmupSeconds: envInt('BENCH_WARMUP_SECONDS', 3),
  loginConnections: envInt('BENCH_LOGIN_CONNECTIONS', 8),
  refreshConnections: envInt('BENCH_REFRESH_CONNECTIONS', 32),
  deadlineSeconds: envInt('BENCH_DEADLINE_SECONDS', 300),
  pgAdminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  skipBuild: process.env.BENCH_SKIP_BUILD === '1',
  skipPglite: process.env.BENCH_SKIP_PGLITE === '1',
};

// ---------------------------------------------------------------------------------------------
// Cleanup: every resource registers an undo step; they run once, newest first, on any exit path.

const cleanups = [];
let cleaning = null;
function onCleanup(fn) {
  cleanups.push(fn);
}
function cleanup() {
  cleaning ??= (async () => {
    while (cleanups.length) {
      const fn = cleanups.pop();
      try {
        await fn();
      } catch (err) {
        console.error(`cleanup: ${err.message}`);
      }
    }
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    console.error(`\n${signal}: stopping the benchmark and cleaning up`);
    await cleanup();
    process.exit(130);
  });
}
const watchdog = setTimeout(async () => {
  console.error(`\nbenchmark exceeded ${opts.deadlineSeconds}s: aborting and cleaning up`);
  await cleanup();
  process.exit(1);
}, opts.deadlineSeconds * 1000);
watchdog.unref();

// ---------------------------------------------------------------------------------------------
// Helpers

const t0 = Date.now();
function log(message) {
  const s = ((Date.now() - t0) / 1000).toFixed(1).padStart(6);
  console.log(`[${s}s] ${message}`);
}
const r1 = (x) => (x == null ? null : Math.round(x * 10) / 10);
const r2 = (x) => (x == null ? null : Math.round(x * 100) / 100);
const load = () => os.loadavg().map((x) => r2(x));

function redact(url) {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

function assertLocal(url, what) {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host)) throw new Error(`${what} must point at this machine (127.0.0.1), got ${host}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Runs the CLI to completion (import, migrate); throws with its output when it fails. */
function runCli(args, env, timeoutMs = 60_000) {
  const res = spawnSync(process.execPath, ['bin/assent.js', ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: timeoutMs });
  if (res.status !== 0) throw new Error(`assent ${args.join(' ')} failed (status ${res.status}, signal ${res.signal}):\n${res.stderr}${res.stdout}`);
  return res.stdout;
}

// ---------------------------------------------------------------------------------------------
// CPU accounting (Linux /proc): where the cores went during a storm, so that a shortfall can be
// attributed (server main thread vs its thread pool, PostgreSQL, the load generator, strangers).

const LINUX = process.platform === 'linux' && existsSync('/proc/stat');
const CLK_TCK = (() => {
  if (!LINUX) return 100;
  const res = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(res.stdout?.trim()) || 100;
})();

/** utime + stime of a /proc stat file (clock ticks), or 0 when the process is gone. */
function statTicks(file) {
  try {
    const text = readFileSync(file, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
    return Number(fields[11]) + Number(fields[12]); // fields 14 (utime) and 15 (stime)
  } catch {
    return 0;
  }
}

/**
 * CPU ticks of PostgreSQL processes, by pid: the server-wide ones (postmaster, WAL writer,
 * checkpointer…) and the backends of database `dbName` only, so that other users of the same
 * PostgreSQL are not counted as ours.
 */
function postgresTicks(dbName) {
  const ticks = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')) !== 'postgres') continue;
      // A backend's title is "postgres: [<cluster_name>: ]<user> <database> <host>(<port>) <state>".
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      const backend = /^postgres: (?:\S+: )?\S+ (\S+) \S+\(\d+\)/.exec(title);
      if (backend && backend[1] !== dbName) continue;
      ticks.set(pid, statTicks(`/proc/${pid}/stat`));
    } catch {
      // exited meanwhile
    }
  }
  return ticks;
}

function cpuSnapshot(serverPid, dbName = null) {
  if (!LINUX) return null;
  const [, ...cpu] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = cpu.map(Number);
  const self = process.cpuUsage();
  return {
    at: performance.now(),
    busy: user + nice + system + irq + softirq,
    steal,
    serverAll: statTicks(`/proc/${serverPid}/stat`),
    serverMain: statTicks(`/proc/${serverPid}/task/${serverPid}/stat`),
    postgres: postgresTicks(dbName),
    selfMicros: self.user + self.system,
  };
}

/** Average cores used between two snapshots, by consumer. */
function cpuWindow(a, b) {
  if (!a || !b) return null;
  const seconds = (b.at - a.at) / 1000;
  const cores = (ticks) => r2(ticks / CLK_TCK / seconds);
  const serverAll = cores(b.serverAll - a.serverAll);
  const serverMain = cores(b.serverMain - a.serverMain);
  let pgTicks = 0; // per process, so that one exiting within the window does not count negative
  for (const [pid, t] of b.postgres) pgTicks += t - (a.postgres.get(pid) ?? 0);
  const postgres = cores(pgTicks);
  const loadGenerator = r2((b.selfMicros - a.selfMicros) / 1e6 / seconds);
  const machineBusy = cores(b.busy - a.busy);
  return {
    machineBusy,
    steal: cores(b.steal - a.steal),
    serverMainThread: serverMain,
    serverOtherThreads: r2(serverAll - serverMain),
    postgres,
    loadGenerator,
    otherProcesses: r2(Math.max(0, machineBusy - serverAll - postgres - loadGenerator)),
  };
}

// ---------------------------------------------------------------------------------------------
// 0. Build

function build() {
  if (opts.skipBuild) {
    if (!existsSync(path.join(ROOT, 'dist', 'cli.js'))) throw new Error('BENCH_SKIP_BUILD=1 but dist/cli.js is missing');
    log('build skipped (BENCH_SKIP_BUILD=1)');
    return;
  }
  log('building: npx tsc -p .');
  const res = spawnSync('npx', ['tsc', '-p', '.'], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  if (res.status !== 0) throw new Error(`npx tsc -p . failed (fix the build, or set BENCH_SKIP_BUILD=1 to bench the existing dist/):\n${res.stdout}${res.stderr}`);
}

// ---------------------------------------------------------------------------------------------
// 1. Raw argon2 verify rate

async function verifyRate(phc, concurrency, seconds) {
  let done = 0;
  const cpu0 = cpuSnapshot(process.pid);
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        if (!(await argonVerify(phc, USER.password))) throw new Error('argon2 verify returned false');
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  const cpu = cpuWindow(cpu0, cpuSnapshot(process.pid));
  return {
    concurrency,
    seconds: r2(elapsed),
    verifies: done,
    perSecond: r1(done / elapsed),
    msPerVerifyPerWorker: r1((elapsed * 1000 * concurrency) / done),
    cpuCores: cpu && { bench: cpu.loadGenerator, otherProcesses: r2(Math.max(0, cpu.machineBusy - cpu.loadGenerator)), steal: cpu.steal },
  };
}

async function benchVerify(argon2) {
  log(`argon2id verify: m=${argon2.memoryCost} KiB, t=${argon2.timeCost}, p=${argon2.parallelism}; UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}`);
  const phc = await argonHash(USER.password, { algorithm: Algorithm.Argon2id, ...argon2 });
  await verifyRate(phc, 4, 1); // warm-up: thread pool and allocator
  const runs = [];
  for (const concurrency of [2, 4]) {
    const run = await verifyRate(phc, concurrency, opts.verifySeconds);
    log(`  concurrency ${concurrency}: ${run.perSecond} verifies/s (${run.verifies} in ${run.seconds}s)`);
    runs.push(run);
  }
  const perCore = runs.map((r) => (r.cpuCores?.bench ? r.perSecond / r.cpuCores.bench : null)).filter((x) => x != null);
  return {
    params: argon2,
    runs,
    best: Math.max(...runs.map((r) => r.perSecond)),
    // Verifies per CPU-second of this process: insensitive to other processes taking cores.
    bestPerCoreSecond: perCore.length ? r1(Math.max(...perCore)) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Server child with the event-loop-delay preload

async function startServer(label, env, dbName = null) {
  const port = await freePort();
  const eldFile = path.join(os.tmpdir(), `assent-bench-eld-${process.pid}-${label}-${Date.now()}.jsonl`);
  onCleanup(() => rmSync(eldFile, { force: true }));
  const child = spawn(process.execPath, ['--import', './bench/eld.mjs', 'bin/assent.js', 'serve'], {
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
    if (child.exitCode !== null) throw new Error(`${label} server exited during start-up (code ${child.exitCode}):\n${output}`);
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
async function eldMark(server) {
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

// ---------------------------------------------------------------------------------------------
// Load generation

async function cannon(options) {
  return autocannon({ timeout: 10, ...options });
}

function summarise(result) {
  const ok = result['2xx'];
  return {
    connections: result.connections,
    seconds: r2(result.duration),
    requests: result.requests.total,
    ok2xx: ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: result.statusCodeStats,
    okPerSecond: r1(ok / result.duration),
    reqPerSecondAvg: r1(result.requests.average),
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max, mean: r1(result.latency.mean) },
  };
}

async function loginStorm(server, connections) {
  const request = {
    url: `${server.base}/v1.1/users/login`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: USER.username, password: USER.password }),
    connections,
  };
  log(`${server.label}: login warm-up ${opts.warmupSeconds}s, ${connections} connections`);
  await cannon({ ...request, duration: opts.warmupSeconds });
  await eldMark(server); // discard start-up + warm-up
  const loadBefore = load();
  log(`${server.label}: login storm ${opts.stormSeconds}s, ${connections} connections`);
  const cpu0 = cpuSnapshot(server.child.pid, server.dbName);
  const result = summarise(await cannon({ ...request, duration: opts.stormSeconds }));
  const cpu = cpuWindow(cpu0, cpuSnapshot(server.child.pid, server.dbName));
  const eld = await eldMark(server);
  log(`${server.label}:   ${result.okPerSecond} logins/s, p99 ${result.latencyMs.p99} ms, non-2xx ${result.non2xx}, event-loop p99 ${eld.p99} ms`);
  return { ...result, eventLoopDelayMs: eld, cpuCores: cpu, loadAvgBefore: loadBefore, loadAvgAfter: load() };
}

/** Logs in `count` times (a few at a time) and returns the refresh tokens, one session each. */
async function openSessions(server, count) {
  const tokens = [];
  let next = 0;
  const one = async () => {
    while (next < count) {
      next++;
      const res = await fetch(`${server.base}/v1.1/users/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // The refresh storm presents clientid igrant-ios-app, so the sessions must be bound to it.
        body: JSON.stringify({ ...USER, clientid: CLIENT_ID }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`login for a refresh session failed: ${res.status} ${text}`);
      tokens.push(JSON.parse(text).Token.refresh_token);
    }
  };
  await Promise.all(Array.from({ length: 4 }, one));
  return tokens;
}

/**
 * One refresh-token chain per autocannon connection. autocannon resets `context` after every pass
 * over `requests` (so a single-request list loses it each time), hence the chain state lives in a
 * closure installed per connection with `client.setRequests` from `setupClient`. `onResponse` runs
 * before the next request is built, so each connection always presents the token it last received.
 */
async function refreshRun(server, tokens, duration) {
  const chains = tokens.map((token) => ({ token, rotations: 0, failures: 0, lastFailure: null }));
  let assigned = 0;
  const setupClient = (client) => {
    const chain = chains[assigned++];
    if (!chain) throw new Error('more connections than refresh sessions');
    client.setRequests([
      {
        method: 'POST',
        path: '/v1/users/token',
        headers: { 'content-type': 'application/json' },
        setupRequest(req) {
          req.body = JSON.stringify({ refreshtoken: chain.token, clientid: CLIENT_ID });
          return req;
        },
        onResponse(status, body) {
          if (status === 200) {
            chain.token = JSON.parse(body).refresh_token;
            chain.rotations++;
          } else {
            chain.failures++;
            chain.lastFailure = `${status} ${body.slice(0, 200)}`;
          }
        },
      },
    ]);
  };
  const result = await cannon({ url: server.base, connections: tokens.length, duration, setupClient });
  return { result, chains };
}

async function refreshStorm(server, connections) {
  log(`${server.label}: opening ${2 * connections} sessions (warm-up + storm), client ${CLIENT_ID}`);
  // Separate sessions for warm-up and storm: a token in flight when a run stops may have been
  // rotated by the server without the client seeing the successor.
  const warmTokens = await openSessions(server, connections);
  const stormTokens = await openSessions(server, connections);
  log(`${server.label}: refresh warm-up ${opts.warmupSeconds}s, ${connections} connections`);
  await refreshRun(server, warmTokens, opts.warmupSeconds);
  await eldMark(server);
  const loadBefore = load();
  log(`${server.label}: refresh storm ${opts.stormSeconds}s, ${connections} connections`);
  const cpu0 = cpuSnapshot(server.child.pid, server.dbName);
  const { result, chains } = await refreshRun(server, stormTokens, opts.stormSeconds);
  const cpu = cpuWindow(cpu0, cpuSnapshot(server.child.pid, server.dbName));
  const eld = await eldMark(server);
  const summary = summarise(result);
  const failed = chains.filter((c) => c.failures > 0);
  const rotations = chains.map((c) => c.rotations);
  log(`${server.label}:   ${summary.okPerSecond} refreshes/s, p99 ${summary.latencyMs.p99} ms, non-2xx ${summary.non2xx}, event-loop p99 ${eld.p99} ms`);
  return {
    ...summary,
    eventLoopDelayMs: eld,
    cpuCores: cpu,
    chains: { count: chains.length, rotationsMin: Math.min(...rotations), rotationsMax: Math.max(...rotations), withFailures: failed.length, sampleFailure: failed[0]?.lastFailure ?? null },
    loadAvgBefore: loadBefore,
    loadAvgAfter: load(),
  };
}

/** Stops the server and checks that the preload wrote its exit record. */
async function stopServer(server) {
  const before = eldRecords(server).length;
  const { code, signal } = await server.stop();
  const records = eldRecords(server);
  const exitRecord = records.length > before ? records[records.length - 1] : null;
  log(`${server.label}: server stopped (code ${code}, signal ${signal}); exit record ${exitRecord?.reason === 'exit' ? 'written' : 'MISSING'}`);
  return { exitCode: code, signal, eldExitRecordWritten: exitRecord?.reason === 'exit' };
}

// ---------------------------------------------------------------------------------------------
// Phases

function serverEnv(extra) {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'ASSENT_SECRET', 'ASSENT_DATA_DIR', 'ASSENT_PUBLIC_URL', 'ASSENT_DEFAULT_CLIENT_ID', 'NODE_OPTIONS']) delete env[name];
  return {
    ...env,
    LOG_LEVEL: 'warn',
    // The storms log in successfully only, which never counts against the throttle; the limits
    // are raised anyway so that a stray failure cannot turn the rest of a storm into 429s.
    ASSENT_IP_DELAY_AFTER: '1000000',
    ASSENT_IP_LOCK_AFTER: '1000000',
    ASSENT_ACCOUNT_DELAY_AFTER: '1000000',
    ASSENT_ACCOUNT_LOCK_AFTER: '1000000',
    ...extra,
  };
}

async function postgresPhase() {
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
  const env = serverEnv({ DATABASE_URL: url.toString(), ASSENT_SECRET: randomBytes(32).toString('base64') });
  runCli(['import', DEMO_FILE], env);
  log('postgres: imported examples/demo.json');
  const server = await startServer('postgres', env, dbName);
  const login = await loginStorm(server, opts.loginConnections);
  const refresh = await refreshStorm(server, opts.refreshConnections);
  const shutdown = await stopServer(server);
  return { database: `PostgreSQL ${pgVersion} at ${url.host}`, databaseName: dbName, login, refresh, shutdown };
}

async function pglitePhase() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'assent-bench-pglite-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const env = serverEnv({ ASSENT_DATA_DIR: dir });
  runCli(['import', DEMO_FILE], env, 120_000);
  log(`pglite: imported examples/demo.json into ${dir}`);
  const server = await startServer('pglite', env);
  const login = await loginStorm(server, opts.loginConnections);
  const shutdown = await stopServer(server);
  return { database: 'PGlite (embedded, in-process WASM)', login, shutdown };
}

// ---------------------------------------------------------------------------------------------
// Report

const fmt = (x, digits = 1) => (x == null ? 'n/a' : Number(x).toFixed(digits));
const verdict = (ok) => (ok ? 'MET' : 'NOT MET');

function report(results) {
  const { machine, verify, postgres, pglite } = results;
  const cores = machine.cores;
  const kc = { logins: KEYCLOAK_PER_VCPU.logins * cores, refreshes: KEYCLOAK_PER_VCPU.refreshes * cores };
  const lines = [];
  const out = (s = '') => lines.push(s);
  const storm = (s) =>
    `${fmt(s.okPerSecond)} req/s (2xx), p50 ${s.latencyMs.p50} ms, p99 ${s.latencyMs.p99} ms, non-2xx ${s.non2xx}, errors ${s.errors}, timeouts ${s.timeouts}; ` +
    `${s.connections} connections, ${fmt(s.seconds)} s`;
  const eld = (e) => `event-loop delay p50 ${fmt(e.p50, 2)} ms, p99 ${fmt(e.p99, 2)} ms, max ${fmt(e.max, 2)} ms`;
  /** Requests per CPU-second of our whole stack (server, its PostgreSQL backends, load generator). */
  const perCore = (s) => {
    const c = s.cpuCores;
    const ours = c ? c.serverMainThread + c.serverOtherThreads + c.postgres + c.loadGenerator : 0;
    return ours > 0 ? s.okPerSecond / ours : null;
  };
  const normalised = (s) => {
    const pc = perCore(s);
    if (pc == null || !verify.bestPerCoreSecond) return null;
    return `CPU-normalised: ${fmt(pc)} logins per core-second of server+postgres+load generator vs ${fmt(verify.bestPerCoreSecond)} verifies per core-second ` +
      `= ${fmt(pc / verify.bestPerCoreSecond, 2)} (same ratio with interference factored out; ${fmt(pc * cores)} logins/s if all ${cores} cores were ours)`;
  };
  const cpu = (c) =>
    c
      ? `CPU (cores of ${cores}): server main thread ${fmt(c.serverMainThread, 2)}, server other threads ${fmt(c.serverOtherThreads, 2)}, ` +
        `postgres ${fmt(c.postgres, 2)}, load generator ${fmt(c.loadGenerator, 2)}, other processes ${fmt(c.otherProcesses, 2)} (machine busy ${fmt(c.machineBusy, 2)}, steal ${fmt(c.steal, 2)})`
      : 'CPU accounting unavailable (not Linux)';

  out('=== Assent benchmark summary ===');
  out(`Machine: ${machine.cpuModel}, ${cores} cores, Node ${machine.node}, ${machine.platform}; load average at start ${machine.loadAvgStart.join(' / ')}`);
  out(`Databases: ${postgres.database}; ${pglite ? pglite.database : 'PGlite skipped'}`);
  out(`Started ${results.startedAt}, took ${results.totalSeconds} s`);
  out();
  out(`1. Raw argon2id verify (@node-rs/argon2, m=${verify.params.memoryCost} KiB, t=${verify.params.timeCost}, p=${verify.params.parallelism}), ${opts.verifySeconds} s each`);
  for (const r of verify.runs) {
    const c = r.cpuCores ? `; CPU: bench ${fmt(r.cpuCores.bench, 2)} cores, other processes ${fmt(r.cpuCores.otherProcesses, 2)}, steal ${fmt(r.cpuCores.steal, 2)}` : '';
    out(`   concurrency ${r.concurrency}: ${fmt(r.perSecond)} verifies/s (${r.verifies} verifies, ${fmt(r.msPerVerifyPerWorker)} ms each per worker${c})`);
  }
  out(`   reference (best of the two): ${fmt(verify.best)} verifies/s; ${fmt(verify.bestPerCoreSecond)} verifies per CPU-second`);
  out();
  out('2. Login storm, POST /v1.1/users/login (alice)');
  const pgLogin = postgres.login;
  out(`   PostgreSQL: ${storm(pgLogin)}`);
  out(`               ${eld(pgLogin.eventLoopDelayMs)}`);
  out(`               ${cpu(pgLogin.cpuCores)}`);
  if (normalised(pgLogin)) out(`               ${normalised(pgLogin)}`);
  out(`               login/verify ratio ${fmt(pgLogin.okPerSecond / verify.best, 2)} (goal >= ${GOALS.loginToVerify}: ${verdict(pgLogin.okPerSecond / verify.best >= GOALS.loginToVerify)}); ` +
    `event-loop p99 goal <= ${GOALS.eldP99Ms} ms: ${verdict(pgLogin.eventLoopDelayMs.p99 <= GOALS.eldP99Ms)}`);
  if (pglite) {
    const l = pglite.login;
    out(`   PGlite:     ${storm(l)}`);
    out(`               ${eld(l.eventLoopDelayMs)}`);
    out(`               ${cpu(l.cpuCores)}`);
    if (normalised(l)) out(`               ${normalised(l)}`);
    out(`               login/verify ratio ${fmt(l.okPerSecond / verify.best, 2)} (goal >= ${GOALS.loginToVerify}: ${verdict(l.okPerSecond / verify.best >= GOALS.loginToVerify)}); ` +
      `event-loop p99 goal <= ${GOALS.eldP99Ms} ms: ${verdict(l.eventLoopDelayMs.p99 <= GOALS.eldP99Ms)}`);
  }
  out();
  const rf = postgres.refresh;
  out(`3. Refresh storm on PostgreSQL, POST /v1/users/token (one rotating chain per connection, client ${CLIENT_ID})`);
  out(`   ${storm(rf)}`);
  out(`   ${eld(rf.eventLoopDelayMs)}`);
  out(`   ${cpu(rf.cpuCores)}`);
  if (perCore(rf) != null) out(`   CPU-normalised: ${fmt(perCore(rf))} refreshes per core-second of server+postgres+load generator (${fmt(perCore(rf) * cores)}/s if all ${cores} cores were ours)`);
  out(`   chains: ${rf.chains.count}, rotations per chain ${rf.chains.rotationsMin}-${rf.chains.rotationsMax}, chains with failures ${rf.chains.withFailures}` +
    (rf.chains.sampleFailure ? ` (e.g. ${rf.chains.sampleFailure})` : ''));
  out(`   non-2xx == 0: ${rf.non2xx === 0 && rf.errors === 0 ? 'OK' : 'FAILED'}; goal >= ${GOALS.refreshPerSecond}/s: ${verdict(rf.okPerSecond >= GOALS.refreshPerSecond)}`);
  out();
  out(`4. Against Keycloak's documented sizing (${KEYCLOAK_PER_VCPU.logins} logins/s and ${KEYCLOAK_PER_VCPU.refreshes} refreshes/s per vCPU; x${cores} = ${kc.logins} and ${kc.refreshes})`);
  out(`   logins, PostgreSQL: ${fmt(pgLogin.okPerSecond)} / ${kc.logins} = ${fmt(pgLogin.okPerSecond / kc.logins, 2)}x`);
  if (pglite) out(`   logins, PGlite:     ${fmt(pglite.login.okPerSecond)} / ${kc.logins} = ${fmt(pglite.login.okPerSecond / kc.logins, 2)}x`);
  out(`   refreshes, PostgreSQL: ${fmt(rf.okPerSecond)} / ${kc.refreshes} = ${fmt(rf.okPerSecond / kc.refreshes, 2)}x`);
  out();
  out('5. Machine');
  out(`   CPU: ${machine.cpuModel}; cores: ${cores}; Node ${machine.node}; libuv thread pool: ${machine.uvThreadpool}; database: ${postgres.database}${pglite ? ' and PGlite' : ''}`);
  out(`   load average before/after: PG login ${pgLogin.loadAvgBefore[0]} -> ${pgLogin.loadAvgAfter[0]}, refresh ${rf.loadAvgBefore[0]} -> ${rf.loadAvgAfter[0]}` +
    (pglite ? `, PGlite login ${pglite.login.loadAvgBefore[0]} -> ${pglite.login.loadAvgAfter[0]}` : '') + ' (1-min; the load generator shares the cores)');
  const strangers = [pgLogin.cpuCores, rf.cpuCores, pglite?.login.cpuCores].filter(Boolean);
  const worst = Math.max(0, ...strangers.map((c) => c.otherProcesses + c.steal), ...verify.runs.map((r) => (r.cpuCores ? r.cpuCores.otherProcesses + r.cpuCores.steal : 0)));
  if (worst >= 0.2) {
    out();
    out(`WARNING: other processes (or the hypervisor, as steal) took up to ${fmt(worst, 2)} of ${cores} cores during a measurement; ` +
      'the figures above are depressed by that much and are not a clean measurement. Re-run on a quiet machine.');
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const startedAt = new Date().toISOString();
  const cpus = os.cpus();
  const machine = {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    availableParallelism: os.availableParallelism?.() ?? cpus.length,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    totalMemGiB: r1(os.totalmem() / 2 ** 30),
    uvThreadpool: process.env.UV_THREADPOOL_SIZE ?? '4 (default)',
    loadAvgStart: load(),
  };
  log(`Assent benchmark: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, load ${machine.loadAvgStart.join(' ')}`);
  build();
  const { loadConfig } = await import('../dist/config.js');
  const argon2 = loadConfig({}).argon2; // the production defaults, from the product's own config
  const verify = await benchVerify(argon2);
  const postgres = await postgresPhase();
  const pglite = opts.skipPglite ? null : await pglitePhase();
  await cleanup();

  const results = {
    startedAt,
    totalSeconds: r1((Date.now() - t0) / 1000),
    options: { ...opts, pgAdminUrl: redact(opts.pgAdminUrl) },
    machine,
    goals: GOALS,
    keycloakPerVcpu: KEYCLOAK_PER_VCPU,
    verify,
    postgres,
    pglite,
  };
  const perCoreSecond = (st) => {
    const c = st.cpuCores;
    const ours = c ? c.serverMainThread + c.serverOtherThreads + c.postgres + c.loadGenerator : 0;
    return ours > 0 ? r1(st.okPerSecond / ours) : null;
  };
  results.derived = {
    pgLoginPerCoreSecond: perCoreSecond(postgres.login),
    pgliteLoginPerCoreSecond: pglite ? perCoreSecond(pglite.login) : null,
    pgRefreshPerCoreSecond: perCoreSecond(postgres.refresh),
    pgLoginToVerifyCpuNormalised: verify.bestPerCoreSecond && perCoreSecond(postgres.login) ? r2(perCoreSecond(postgres.login) / verify.bestPerCoreSecond) : null,
    pgliteLoginToVerifyCpuNormalised: pglite && verify.bestPerCoreSecond && perCoreSecond(pglite.login) ? r2(perCoreSecond(pglite.login) / verify.bestPerCoreSecond) : null,
    pgLoginToVerify: r2(postgres.login.okPerSecond / verify.best),
    pgliteLoginToVerify: pglite ? r2(pglite.login.okPerSecond / verify.best) : null,
    pgLoginVsKeycloak: r2(postgres.login.okPerSecond / (KEYCLOAK_PER_VCPU.logins * machine.cores)),
    pgliteLoginVsKeycloak: pglite ? r2(pglite.login.okPerSecond / (KEYCLOAK_PER_VCPU.logins * machine.cores)) : null,
    pgRefreshVsKeycloak: r2(postgres.refresh.okPerSecond / (KEYCLOAK_PER_VCPU.refreshes * machine.cores)),
  };
  const summary = report(results);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(path.join(RESULTS_DIR, 'latest.json'), `${JSON.stringify({ ...results, summary }, null, 2)}\n`);
  console.log(`\n${summary}\n`);
  log(`wrote ${path.relative(ROOT, path.join(RESULTS_DIR, 'latest.json'))}`);
}

try {
  await main();
  clearTimeout(watchdog);
} catch (err) {
  console.error(`\nbenchmark failed: ${err.stack ?? err}`);
  await cleanup();
  process.exitCode = 1;
}
