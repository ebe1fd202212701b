#!/usr/bin/env node
/**
 * Assent web benchmark (docs/benchmarks.md, "Web benchmark"): `node bench/web.mjs` (or
 * `npm run bench:web`). The privacy dashboard's "My consents" page against the JSON API that
 * answers the same data.
 *
 * One bounded run (a watchdog ends it at BENCH_WEB_DEADLINE_SECONDS, default 180):
 *   0. `bin/assent.cjs serve` (dist/, built first) on a fresh PostgreSQL database
 *      assent_bench_<timestamp> of BENCH_PG_URL, or a PGlite directory (BENCH_WEB_STORE=pglite),
 *      after `assent import` of a file written to a temporary directory: one organisation with 7
 *      purposes (2 on another lawful basis than consent) and 23 data attributes, one individual
 *      subscribed, who then decides some attributes through the attribute PATCH (web-setup.mjs);
 *   j. `GET /v1/organizations/{org}/users/{user}/consents` with the individual's access token;
 *   w. `GET /dashboard/consents` with the individual's dashboard session cookie;
 *      each at BENCH_WEB_CONNECTIONS (16) for BENCH_WEB_SECONDS (10) after a warm-up of
 *      BENCH_WEB_WARMUP_SECONDS (2), BENCH_WEB_ROUNDS (2) rounds in alternating order (j w, w j, …);
 *   r. the render floor: the same page rendered in a loop in this process (web-render.mjs);
 *   f. the page floor: a bare node:http server answering the served page, prebuilt, after finding
 *      the session cookie's hash in memory, measured as (w) for one round (web-floor.mjs;
 *      BENCH_WEB_FLOOR=0 skips it).
 * Reports req/s, p50/p99, non-2xx (must be 0), the bodies' bytes, the server's and PostgreSQL's CPU
 * per request, the SQL statements per request (bench/pg-count.cjs; PostgreSQL only) under load and
 * with each request alone, and (w) ÷ (j); goals (w) ÷ (j) ≥ 0.5 and (w) p99 ≤ 50 ms. Everything
 * targets 127.0.0.1; the database, the temporary files and the children are removed at the end.
 * Prints a summary and writes bench/results/web-latest.json.
 */
import { build } from './lib/build.mjs';
import { cleanup, installGuards, runBenchmark } from './lib/cleanup.mjs';
import { envInt } from './lib/config.mjs';
import { measureOne } from './lib/consent-cannon.mjs';
import { freshStore, startServer, stopServer } from './lib/server.mjs';
import { load, log, machineFacts, publish, r1, r2, runCli } from './lib/util.mjs';
import { floorPage } from './lib/web-floor.mjs';
import { renderFloor } from './lib/web-render.mjs';
import { checkSameData, decide, ORG_NAME, webSignIn, writeImportFile } from './lib/web-setup.mjs';
import { statementCounter, statementsAlone } from './lib/web-statements.mjs';

const opts = {
  seconds: envInt('BENCH_WEB_SECONDS', 10),
  warmupSeconds: envInt('BENCH_WEB_WARMUP_SECONDS', 2, 0),
  connections: envInt('BENCH_WEB_CONNECTIONS', 16),
  rounds: envInt('BENCH_WEB_ROUNDS', 2),
  renderSeconds: envInt('BENCH_WEB_RENDER_SECONDS', 3, 0),
  floor: envInt('BENCH_WEB_FLOOR', 1, 0) > 0,
  deadlineSeconds: envInt('BENCH_WEB_DEADLINE_SECONDS', 180),
  store: process.env.BENCH_WEB_STORE === 'pglite' ? 'pglite' : 'postgres',
};
const GOALS = { pageToJson: 0.5, pageP99Ms: 50 };
/** Other processes' CPU (cores) from which a run is flagged, as the identity benchmark does. */
const STRANGERS_CORES = 0.2;
const watchdog = installGuards(opts.deadlineSeconds);

/** CPU (ms) per answered request of one run: the server's (main thread + other threads) and PostgreSQL's. */
function cpuPerRequest(run) {
  const c = run.cpuCores;
  if (!c || !run.ok2xx) return { serverMs: null, postgresMs: null };
  const per = (cores) => r2((cores * run.seconds * 1000) / run.ok2xx);
  return { serverMs: per(c.serverMainThread + c.serverOtherThreads), postgresMs: per(c.postgres) };
}

/** The rounds of one measure, combined: mean rate, each round's p50 and p99, the worst p99, non-2xx summed. */
function combine(runs) {
  const mean = (xs) => (xs.some((x) => x == null) ? null : r2(xs.reduce((s, x) => s + x, 0) / xs.length));
  const cpu = runs.map(cpuPerRequest);
  return {
    okPerSecond: r1(mean(runs.map((r) => r.okPerSecond))),
    p50Ms: runs.map((r) => r.latencyMs.p50),
    p99Ms: runs.map((r) => r.latencyMs.p99),
    worstP99Ms: Math.max(...runs.map((r) => r.latencyMs.p99)),
    non2xx: runs.reduce((s, r) => s + r.non2xx + r.errors + r.timeouts, 0),
    serverCpuMsPerRequest: mean(cpu.map((c) => c.serverMs)),
    postgresCpuMsPerRequest: mean(cpu.map((c) => c.postgresMs)),
    statementsPerRequest: mean(runs.map((r) => r.statementsPerRequest ?? null)),
    eventLoopDelayP99Ms: runs.map((r) => r.eventLoopDelayMs?.p99 ?? null),
    otherProcessesCores: runs.map((r) => r.cpuCores?.otherProcesses ?? null),
    runs,
  };
}

function summary(r) {
  const line = (label, value, goal) => `  ${label.padEnd(46)} ${String(value).padStart(14)}${goal ? `   ${goal}` : ''}`;
  const met = (ok) => (ok ? 'met' : 'MISSED');
  const measure = (label, m, bytes) => [
    line(`${label}, req/s at ${opts.connections} connections`, m.okPerSecond),
    line('    p50 per round (ms)', m.p50Ms.join(' / ')),
    line('    p99 per round (ms)', m.p99Ms.join(' / ')),
    line('    non-2xx + errors + timeouts', m.non2xx, m.non2xx === 0 ? '' : 'MUST BE 0'),
    line('    response body (bytes)', bytes),
    line(
      '    server CPU / PostgreSQL CPU per request (ms)',
      `${m.serverCpuMsPerRequest} / ${r.database === 'PGlite' ? 'in the server' : m.postgresCpuMsPerRequest}`,
    ),
    line('    event-loop delay p99 per round (ms)', m.eventLoopDelayP99Ms.join(' / ')),
    line('    SQL statements per request (under load)', m.statementsPerRequest ?? 'n/a'),
    line(
      '    other processes per round (cores)',
      m.otherProcessesCores.join(' / '),
      m.otherProcessesCores.some((c) => c >= STRANGERS_CORES) ? 'WARNING: not a clean measurement' : '',
    ),
  ];
  const { json, page, derived, render, floor } = r;
  return [
    `Web benchmark (${r.database}; ${r.machine.cores} cores, Node ${r.machine.node}, load ${r.machine.loadAvgStart.join(' ')})`,
    `  one individual: 7 purposes, ${r.setup.attributes} data attributes (${r.setup.consentBased} under consent, ${r.setup.decided} decided); ${opts.rounds} rounds of ${opts.seconds} s`,
    ...measure('(j) JSON GET …/consents', json, r.bytes.json),
    ...measure('(w) GET /dashboard/consents', page, r.bytes.page),
    line('(w) ÷ (j)', derived.pageToJson, `goal ≥ ${GOALS.pageToJson}: ${met(derived.pageToJson >= GOALS.pageToJson)}`),
    line(
      '(w) worst p99 (ms)',
      page.worstP99Ms,
      `goal ≤ ${GOALS.pageP99Ms}: ${met(page.worstP99Ms <= GOALS.pageP99Ms)}`,
    ),
    line('(w) − (j) server CPU per request (ms)', derived.pageExtraServerCpuMs),
    line(
      'SQL statements per request alone (j / w)',
      r.statementsPerRequestAlone ? `${r.statementsPerRequestAlone.json} / ${r.statementsPerRequestAlone.page}` : 'n/a',
    ),
    ...(render
      ? [
          line('(r) renderToString, pages/s (one thread)', render.perSecond),
          line('    CPU per page (ms)', render.cpuMsPerPage),
          line('    identical to the served page', render.identicalToServed ? 'yes' : 'NO'),
          line('    share of (w) server CPU per request', derived.renderShareOfPageCpu),
        ]
      : [line('(r) render floor', 'skipped')]),
    ...(floor
      ? [
          line(`(f) floor page server, req/s at ${opts.connections} connections`, floor.okPerSecond),
          line('    p50 / p99 (ms)', `${floor.p50Ms[0]} / ${floor.p99Ms[0]}`),
          line('    non-2xx + errors + timeouts', floor.non2xx, floor.non2xx === 0 ? '' : 'MUST BE 0'),
          line('    server CPU per request (ms)', floor.serverCpuMsPerRequest),
          line('    other processes (cores)', floor.otherProcessesCores[0]),
          line('(w) ÷ (f)', derived.pageToFloor),
        ]
      : [line('(f) floor page server', 'skipped')]),
  ].join('\n');
}

async function main() {
  const startedAt = new Date().toISOString();
  const machine = machineFacts();
  log(
    `web benchmark: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, load ${machine.loadAvgStart.join(' ')}`,
  );
  build();
  // The access token outlives the run: no 401 in the middle of (j).
  const store = await freshStore(opts.store, { ASSENT_ACCESS_TOKEN_TTL: '7200' });
  const imported = JSON.parse(runCli(['import', writeImportFile()], store.env, 120_000));
  // BENCH_WEB_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops (node --cpu-prof).
  const prof = process.env.BENCH_WEB_CPU_PROF;
  const profile = prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [];
  // The SQL statements the server sends (bench/pg-count.cjs), counted between the probe's marks; PostgreSQL only.
  const counter = opts.store === 'postgres' ? statementCounter() : null;
  const script = [...(counter?.preload ?? []), ...profile, 'bin/assent.cjs', 'serve'];
  const serverEnvironment = counter ? { ...store.env, BENCH_PG_COUNT_FILE: counter.file } : store.env;
  const server = await startServer(opts.store, serverEnvironment, store.dbName, script);
  server.eld = true;
  const setup = await decide(server.base, imported);
  const cookie = await webSignIn(server.base);
  const same = await checkSameData(server.base, setup, cookie);
  log(`set-up: ${setup.decided} attributes decided; JSON ${same.jsonBytes} bytes, page ${same.pageBytes} bytes`);

  const specs = {
    json: {
      name: '(j) JSON consents',
      connections: opts.connections,
      options: () => ({ path: setup.consentsPath, headers: { authorization: `Bearer ${setup.access}` } }),
    },
    page: {
      name: '(w) dashboard consents',
      connections: opts.connections,
      options: () => ({ path: '/dashboard/consents', headers: { cookie } }),
    },
  };
  const runs = { json: [], page: [] };
  let marks = 0; // the probe's marks so far (SIGUSR2): measureOne sends two
  for (let round = 0; round < opts.rounds; round++) {
    const order = round % 2 === 0 ? ['json', 'page'] : ['page', 'json'];
    for (const kind of order) {
      log(`round ${round + 1}: ${specs[kind].name}, ${opts.warmupSeconds} s warm-up + ${opts.seconds} s`);
      const run = await measureOne(server, specs[kind], opts);
      marks += 2;
      if (counter) run.statementsPerRequest = r2((await counter.lastWindow(marks)) / run.requests);
      runs[kind].push(run);
    }
  }
  // Each request alone (no batching), PostgreSQL only.
  const alone = counter
    ? (await statementsAlone(server, counter, marks, { json: specs.json.options(), page: specs.page.options() }))
        .perRequest
    : null;
  const shutdown = await stopServer(server);
  const floorRun = opts.floor ? await floorPage(same.page, cookie, opts) : null;
  const render =
    opts.renderSeconds > 0 ? await renderFloor(same.record, ORG_NAME, same.page, opts.renderSeconds) : null;
  const json = combine(runs.json);
  const page = combine(runs.page);
  const results = {
    startedAt,
    options: opts,
    machine,
    database: store.database,
    goals: GOALS,
    setup: { attributes: setup.attributes, consentBased: setup.consentBased, decided: setup.decided },
    bytes: { json: same.jsonBytes, page: same.pageBytes },
    json,
    page,
    render,
    floor: floorRun ? combine([floorRun]) : null,
    statementsPerRequestAlone: alone,
    derived: {
      pageToJson: r2(page.okPerSecond / json.okPerSecond),
      pageExtraServerCpuMs:
        page.serverCpuMsPerRequest == null ? null : r2(page.serverCpuMsPerRequest - json.serverCpuMsPerRequest),
      pageToFloor: floorRun ? r2(page.okPerSecond / floorRun.okPerSecond) : null,
      renderShareOfPageCpu:
        render && page.serverCpuMsPerRequest ? r2(render.cpuMsPerPage / page.serverCpuMsPerRequest) : null,
    },
    shutdown,
    loadAvgEnd: load(),
  };
  await cleanup();
  publish('web-latest.json', results, summary(results));
  if (json.non2xx > 0 || page.non2xx > 0 || (results.floor?.non2xx ?? 0) > 0) process.exitCode = 1;
}

await runBenchmark('web benchmark', main, watchdog);
