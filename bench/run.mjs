#!/usr/bin/env node
/**
 * Assent benchmark suite: `node bench/run.mjs` (or `npm run bench`).
 *
 * One bounded run (about 3 minutes; a watchdog ends it at BENCH_DEADLINE_SECONDS) that measures:
 *   1. the raw @node-rs/argon2 `verify` rate with the production parameters, concurrency 2 and 4, and
 *      gapless (a child with one pool thread per core);
 *   2. a login storm (POST /v1.1/users/login) against the real server on PostgreSQL, then on PGlite,
 *      with the server's event-loop delay recorded by the bench/eld.cjs preload;
 *   2a. the same storm against two floor servers (verify only; lookup + verify + one write), one
 *      before and one after the PostgreSQL login storm;
 *   3. a refresh storm (POST /v1/users/token) on PostgreSQL, one rotating refresh-token chain per
 *      connection;
 *   4b. on PostgreSQL, between its login and refresh storms: failed logins with an unknown username
 *      vs alice with a wrong password, sequential and interleaved (their timing must not differ);
 *   5. on PostgreSQL, after the refresh storm (bench/lib/accountable.mjs): password logins of distinct users without
 *      and with a second factor (TOTP), and the audit log's export of 100,000 entries (rate, server memory);
 * and compares the storms with the raw verify rate and with Keycloak's documented sizing figures.
 *
 * This file only orchestrates; the parts live in bench/lib/ (see bench/README.md, "Layout").
 * Everything targets 127.0.0.1 only. The PostgreSQL database (assent_bench_<timestamp>) and the
 * PGlite directory are created for the run and removed at the end; the server children are stopped.
 * Prints a summary and writes bench/results/latest.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { auditExport, secondFactorLogins } from './lib/accountable.mjs';
import { benchVerify, verifyAfterStorm } from './lib/argon2.mjs';
import { build } from './lib/build.mjs';
import { cleanup, installGuards } from './lib/cleanup.mjs';
import { DEMO_FILE, GOALS, KEYCLOAK_PER_VCPU, opts, RESULTS_DIR, ROOT } from './lib/config.mjs';
import { floorStorm } from './lib/floor.mjs';
import { derive, report } from './lib/report.mjs';
import {
  createPgliteDir,
  createPostgresDatabase,
  serverEnv,
  serverThreadPool,
  startServer,
  stopServer,
} from './lib/server.mjs';
import { loginStorm, refreshStorm } from './lib/storms.mjs';
import { loginTiming } from './lib/timing.mjs';
import { elapsedSeconds, load, log, r1, redact, runCli } from './lib/util.mjs';

const watchdog = installGuards(opts.deadlineSeconds);

async function postgresPhase(verify) {
  const { dbName, pgVersion, url } = await createPostgresDatabase();
  const env = serverEnv({ DATABASE_URL: url.toString(), ASSENT_SECRET: randomBytes(32).toString('base64') });
  runCli(['import', DEMO_FILE], env);
  log('postgres: imported examples/demo.json');
  // The floors bracket the login storm, like the two gapless verify runs (drift, argon2.mjs).
  const floorVerify = await floorStorm('verify', env, dbName, verify.phc);
  const server = await startServer('postgres', env, dbName);
  const login = await loginStorm(server, opts.loginConnections);
  verifyAfterStorm(verify); // the server is idle meanwhile
  const floorDatabase = await floorStorm('database', env, dbName, verify.phc);
  const timing = await loginTiming(server);
  const refresh = await refreshStorm(server, opts.refreshConnections);
  // 5. Accountable administration: logins with and without a second factor, and the audit log's export.
  const accountable = {
    logins: await secondFactorLogins(server, opts.loginConnections),
    auditExport: await auditExport(server, url.toString()),
  };
  const shutdown = await stopServer(server);
  return {
    database: `PostgreSQL ${pgVersion} at ${url.host}`,
    databaseName: dbName,
    floors: { verify: floorVerify, database: floorDatabase },
    login,
    loginTiming: timing,
    refresh,
    accountable,
    shutdown,
  };
}

async function pglitePhase() {
  const dir = createPgliteDir();
  const env = serverEnv({ ASSENT_DATA_DIR: dir });
  runCli(['import', DEMO_FILE], env, 120_000);
  log(`pglite: imported examples/demo.json into ${dir}`);
  const server = await startServer('pglite', env);
  const login = await loginStorm(server, opts.loginConnections);
  const shutdown = await stopServer(server);
  return { database: 'PGlite (embedded, in-process WASM)', login, shutdown };
}

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
    serverThreadPool: serverThreadPool(),
    loadAvgStart: load(),
  };
  log(
    `Assent benchmark: ${machine.cpuModel}, ${machine.cores} cores, ` +
      `Node ${machine.node}, load ${machine.loadAvgStart.join(' ')}`,
  );
  build();
  const { loadConfig } = await import('../dist/platform/config/load.js');
  const argon2 = loadConfig({}).argon2; // the production defaults, from the product's own config
  const verify = await benchVerify(argon2);
  const postgres = await postgresPhase(verify);
  const pglite = opts.skipPglite ? null : await pglitePhase();
  await cleanup();

  const results = {
    startedAt,
    totalSeconds: r1(elapsedSeconds()),
    options: { ...opts, pgAdminUrl: redact(opts.pgAdminUrl) },
    machine,
    goals: GOALS,
    keycloakPerVcpu: KEYCLOAK_PER_VCPU,
    verify,
    postgres,
    pglite,
  };
  results.derived = derive(results);
  const summary = report(results);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(path.join(RESULTS_DIR, 'latest.json'), `${JSON.stringify({ ...results, summary }, null, 2)}\n`);
  console.log(`\n${summary}\n`);
  const acc = postgres.accountable;
  console.log(
    `Accountable administration (PostgreSQL): logins/s plain ${acc.logins.plainBefore.perSecond} and ` +
      `${acc.logins.plainAfter.perSecond}, with TOTP ${acc.logins.withTotp.perSecond} ` +
      `(ratio ${acc.logins.ratio.toFixed(2)}); audit export of ${acc.auditExport.entries} entries: ` +
      `jsonl ${acc.auditExport.jsonl.entriesPerSecond}/s, csv ${acc.auditExport.csv.entriesPerSecond}/s, ` +
      `server RSS ${acc.auditExport.jsonl.rssBeforeMiB} → ${acc.auditExport.jsonl.rssPeakMiB} MiB\n`,
  );
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
