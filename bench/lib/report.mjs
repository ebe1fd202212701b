/**
 * The summary printed at the end of a run (also stored as `summary` in bench/results/latest.json)
 * and the derived ratios stored beside the raw results.
 */
import { CLIENT_ID, GOALS, KEYCLOAK_PER_VCPU, opts, USER } from './config.mjs';
import { r1, r2 } from './util.mjs';

const fmt = (x, digits = 1) => (x == null ? 'n/a' : Number(x).toFixed(digits));
const verdict = (ok) => (ok ? 'MET' : 'NOT MET');

export function report(results) {
  const { machine, verify, postgres, pglite, derived } = results;
  const cores = machine.cores;
  const kc = { logins: KEYCLOAK_PER_VCPU.logins * cores, refreshes: KEYCLOAK_PER_VCPU.refreshes * cores };
  const lines = [];
  const out = (s = '') => lines.push(s);
  const storm = (s) =>
    `${fmt(s.okPerSecond)} req/s (2xx), p50 ${s.latencyMs.p50} ms, p99 ${s.latencyMs.p99} ms, ` +
    `non-2xx ${s.non2xx}, errors ${s.errors}, timeouts ${s.timeouts}; ` +
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
    return (
      `CPU-normalised: ${fmt(pc)} logins per core-second of server+postgres+load ` +
      `generator vs ${fmt(verify.bestPerCoreSecond)} verifies per core-second ` +
      `= ${fmt(pc / verify.bestPerCoreSecond, 2)} (same ratio with interference factored out; ` +
      `${fmt(pc * cores)} logins/s if all ${cores} cores were ours)`
    );
  };
  const cpu = (c) =>
    c
      ? `CPU (cores of ${cores}): server main thread ${fmt(c.serverMainThread, 2)}, ` +
        `server other threads ${fmt(c.serverOtherThreads, 2)}, ` +
        `postgres ${fmt(c.postgres, 2)}, load generator ${fmt(c.loadGenerator, 2)}, other processes ` +
        `${fmt(c.otherProcesses, 2)} (machine busy ${fmt(c.machineBusy, 2)}, steal ${fmt(c.steal, 2)})`
      : 'CPU accounting unavailable (not Linux)';

  out('=== Assent benchmark summary ===');
  out(
    `Machine: ${machine.cpuModel}, ${cores} cores, Node ${machine.node}, ` +
      `${machine.platform}; load average at start ${machine.loadAvgStart.join(' / ')}`,
  );
  out(`Databases: ${postgres.database}; ${pglite ? pglite.database : 'PGlite skipped'}`);
  out(`Started ${results.startedAt}, took ${results.totalSeconds} s`);
  out();
  out(
    `1. Raw argon2id verify (@node-rs/argon2, m=${verify.params.memoryCost} KiB, ` +
      `t=${verify.params.timeCost}, p=${verify.params.parallelism}), ${opts.verifySeconds} s each`,
  );
  for (const r of verify.runs) {
    const c = r.cpuCores
      ? `; CPU: bench ${fmt(r.cpuCores.bench, 2)} cores, ` +
        `other processes ${fmt(r.cpuCores.otherProcesses, 2)}, steal ${fmt(r.cpuCores.steal, 2)}`
      : '';
    out(
      `   concurrency ${r.concurrency}${r.pool ? `, thread pool ${r.pool} (child process)` : ''}: ` +
        `${fmt(r.perSecond)} verifies/s (${r.verifies} verifies, ${fmt(r.msPerVerifyPerWorker)} ms each per worker${c})`,
    );
  }
  out(`   best of the three: ${fmt(verify.best)} verifies/s; ${fmt(verify.bestPerCoreSecond)} verifies per CPU-second`);
  if (verify.after)
    out(`   gapless again right after the PostgreSQL login storm: ${fmt(verify.after.perSecond)} verifies/s`);
  out(
    '   reference for the login/verify ratios: ' +
      `${fmt(derived.verifyReference)} verifies/s${verify.after ? ' (mean of the two)' : ''}`,
  );
  out();
  out('2. Login storm, POST /v1.1/users/login (alice)');
  const pgLogin = postgres.login;
  out(`   PostgreSQL: ${storm(pgLogin)}`);
  out(`               ${eld(pgLogin.eventLoopDelayMs)}`);
  out(`               ${cpu(pgLogin.cpuCores)}`);
  if (normalised(pgLogin)) out(`               ${normalised(pgLogin)}`);
  out(
    `               login/verify ratio ${fmt(derived.pgLoginToVerify, 2)} (goal >= ${GOALS.loginToVerify}: ` +
      `${verdict(derived.pgLoginToVerify >= GOALS.loginToVerify)}); ` +
      `event-loop p99 goal <= ${GOALS.eldP99Ms} ms: ${verdict(pgLogin.eventLoopDelayMs.p99 <= GOALS.eldP99Ms)}`,
  );
  if (postgres.floors) floorSection(postgres.floors, derived, out, storm, cpu);
  if (pglite) {
    const l = pglite.login;
    out(`   PGlite:     ${storm(l)}`);
    out(`               ${eld(l.eventLoopDelayMs)}`);
    out(`               ${cpu(l.cpuCores)}`);
    if (normalised(l)) out(`               ${normalised(l)}`);
    out(
      `               login/verify ratio ${fmt(derived.pgliteLoginToVerify, 2)} (goal >= ${GOALS.loginToVerify}: ` +
        `${verdict(derived.pgliteLoginToVerify >= GOALS.loginToVerify)}); ` +
        `event-loop p99 goal <= ${GOALS.eldP99Ms} ms: ${verdict(l.eventLoopDelayMs.p99 <= GOALS.eldP99Ms)}`,
    );
  }
  out();
  const rf = postgres.refresh;
  out(`3. Refresh storm on PostgreSQL, POST /v1/users/token (one rotating chain per connection, client ${CLIENT_ID})`);
  out(`   ${storm(rf)}`);
  out(`   ${eld(rf.eventLoopDelayMs)}`);
  out(`   ${cpu(rf.cpuCores)}`);
  if (perCore(rf) != null)
    out(
      `   CPU-normalised: ${fmt(perCore(rf))} refreshes per core-second of server+postgres+load ` +
        `generator (${fmt(perCore(rf) * cores)}/s if all ${cores} cores were ours)`,
    );
  out(
    `   chains: ${rf.chains.count}, rotations per chain ${rf.chains.rotationsMin}-${rf.chains.rotationsMax}, ` +
      `chains with failures ${rf.chains.withFailures}` +
      (rf.chains.sampleFailure ? ` (e.g. ${rf.chains.sampleFailure})` : ''),
  );
  out(
    `   non-2xx == 0: ${rf.non2xx === 0 && rf.errors === 0 ? 'OK' : 'FAILED'}; ` +
      `goal >= ${GOALS.refreshPerSecond}/s: ${verdict(rf.okPerSecond >= GOALS.refreshPerSecond)}`,
  );
  out();
  out(
    `4. Against Keycloak's documented sizing (${KEYCLOAK_PER_VCPU.logins} logins/s and ` +
      `${KEYCLOAK_PER_VCPU.refreshes} refreshes/s per vCPU; x${cores} = ${kc.logins} and ${kc.refreshes})`,
  );
  out(
    `   logins, PostgreSQL: ${fmt(pgLogin.okPerSecond)} / ${kc.logins} = ${fmt(pgLogin.okPerSecond / kc.logins, 2)}x`,
  );
  if (pglite)
    out(
      `   logins, PGlite:     ${fmt(pglite.login.okPerSecond)} / ` +
        `${kc.logins} = ${fmt(pglite.login.okPerSecond / kc.logins, 2)}x`,
    );
  out(`   refreshes, PostgreSQL: ${fmt(rf.okPerSecond)} / ${kc.refreshes} = ${fmt(rf.okPerSecond / kc.refreshes, 2)}x`);
  out();
  if (postgres.loginTiming) {
    loginTimingSection(postgres.loginTiming, out, cpu);
    out();
  }
  out('5. Machine');
  out(
    `   CPU: ${machine.cpuModel}; cores: ${cores}; Node ${machine.node}; libuv thread pool: ` +
      `bench ${machine.uvThreadpool}, servers ${machine.serverThreadPool ?? '4 (default)'}; ` +
      `database: ${postgres.database}${pglite ? ' and PGlite' : ''}`,
  );
  out(
    `   load average before/after: PG login ${pgLogin.loadAvgBefore[0]} -> ${pgLogin.loadAvgAfter[0]}, ` +
      `refresh ${rf.loadAvgBefore[0]} -> ${rf.loadAvgAfter[0]}` +
      (pglite ? `, PGlite login ${pglite.login.loadAvgBefore[0]} -> ${pglite.login.loadAvgAfter[0]}` : '') +
      ' (1-min; the load generator shares the cores)',
  );
  const strangers = [
    pgLogin.cpuCores,
    rf.cpuCores,
    pglite?.login.cpuCores,
    postgres.floors?.verify.cpuCores,
    postgres.floors?.database.cpuCores,
  ].filter(Boolean);
  const worst = Math.max(
    0,
    ...strangers.map((c) => c.otherProcesses + c.steal),
    ...verify.runs.map((r) => (r.cpuCores ? r.cpuCores.otherProcesses + r.cpuCores.steal : 0)),
  );
  if (worst >= 0.2) {
    out();
    out(
      'WARNING: other processes (or the hypervisor, as steal) ' +
        `took up to ${fmt(worst, 2)} of ${cores} cores during a measurement; ` +
        'the figures above are depressed by that much and are not a clean measurement. Re-run on a quiet machine.',
    );
  }
  return lines.join('\n');
}

/** Section 2a: the floor servers (floor.mjs) and the PostgreSQL login set against them. */
function floorSection(floors, derived, out, storm, cpu) {
  out(
    '   2a. Floors: the same storm against plain node:http servers (bench/lib/floor-server.mjs), ' +
      'before and after the PostgreSQL storm',
  );
  const rows = [
    ['verify only (HTTP + argon2id):', floors.verify, derived.floorVerifyToVerify, derived.pgLoginToFloorVerify],
    ['lookup + verify + one write:', floors.database, derived.floorDatabaseToVerify, derived.pgLoginToFloorDatabase],
  ];
  for (const [name, f, toVerify, loginTo] of rows) {
    out(`   ${name.padEnd(31)}${storm(f)}`);
    out(`   ${''.padEnd(31)}${cpu(f.cpuCores)}`);
    out(
      `   ${''.padEnd(31)}floor/verify ratio ${fmt(toVerify, 2)}; ` +
        `the PostgreSQL login reaches ${fmt(loginTo, 2)} of this floor`,
    );
  }
}

const signed = (x, digits) => `${x >= 0 ? '+' : ''}${fmt(x, digits)}`;

/** Section 4b: unknown username vs wrong password, from loginTiming() (bench/lib/timing.mjs). */
function loginTimingSection(t, out, cpu) {
  const stats = (s) => `median ${fmt(s.median, 2)} ms, p90 ${fmt(s.p90, 2)} ms, mean ${fmt(s.mean, 2)} ms`;
  const codes = (c) =>
    Object.entries(c)
      .map(([status, count]) => `${count}x ${status}`)
      .join(', ');
  const { maxMedianDiffPercent, alpha } = t.criterion;
  out(
    '4b. Login timing: unknown username vs wrong password (PostgreSQL, ' +
      `POST /v1.1/users/login; ${t.requestsEach} of each, ` +
      `interleaved one request at a time after ${t.warmupRequests} warm-up, ${fmt(t.seconds)} s)`,
  );
  const a = 'unknown username (ghost-<i>@acme.example):';
  const b = `wrong password (${USER.username}):`;
  const width = Math.max(a.length, b.length) + 1;
  out(`   ${a.padEnd(width)}${stats(t.unknownUsernameMs)}`);
  out(`   ${b.padEnd(width)}${stats(t.wrongPasswordMs)}`);
  out(`   ${cpu(t.cpuCores)}`);
  const all401 = t.allUnauthorized
    ? 'OK'
    : `FAILED (unknown username: ${codes(t.statusCodes.unknownUsername)}; ` +
      `wrong password: ${codes(t.statusCodes.wrongPassword)})`;
  out(`   answers all 401: ${all401}`);
  out(
    '   difference of medians (unknown - wrong password): ' +
      `${signed(t.medianDiffMs, 2)} ms = ${signed(t.medianDiffPercent, 1)}%; ` +
      `Mann-Whitney U = ${t.mannWhitney.u}, z = ${fmt(t.mannWhitney.z, 2)}, ` +
      `p = ${Number(t.mannWhitney.p).toPrecision(3)}`,
  );
  out(
    `   verdict: ${t.verdict} (indistinguishable = every answer 401, ` +
      `|difference of medians| < ${maxMedianDiffPercent}% and p > ${alpha})`,
  );
}

/** Ratios stored as `derived` in latest.json. */
export function derive({ verify, postgres, pglite, machine }) {
  const perCoreSecond = (st) => {
    const c = st.cpuCores;
    const ours = c ? c.serverMainThread + c.serverOtherThreads + c.postgres + c.loadGenerator : 0;
    return ours > 0 ? r1(st.okPerSecond / ours) : null;
  };
  // The best raw rate before the storms, averaged with the gapless rate right after the PostgreSQL
  // login storm when that was measured (argon2.mjs, `verifyAfterStorm`).
  const verifyReference = verify.after ? r1((verify.best + verify.after.perSecond) / 2) : verify.best;
  return {
    verifyReference,
    pgLoginPerCoreSecond: perCoreSecond(postgres.login),
    pgliteLoginPerCoreSecond: pglite ? perCoreSecond(pglite.login) : null,
    pgRefreshPerCoreSecond: perCoreSecond(postgres.refresh),
    pgLoginToVerifyCpuNormalised:
      verify.bestPerCoreSecond && perCoreSecond(postgres.login)
        ? r2(perCoreSecond(postgres.login) / verify.bestPerCoreSecond)
        : null,
    pgliteLoginToVerifyCpuNormalised:
      pglite && verify.bestPerCoreSecond && perCoreSecond(pglite.login)
        ? r2(perCoreSecond(pglite.login) / verify.bestPerCoreSecond)
        : null,
    pgLoginToVerify: r2(postgres.login.okPerSecond / verifyReference),
    floorVerifyToVerify: postgres.floors ? r2(postgres.floors.verify.okPerSecond / verifyReference) : null,
    floorDatabaseToVerify: postgres.floors ? r2(postgres.floors.database.okPerSecond / verifyReference) : null,
    pgLoginToFloorVerify: postgres.floors ? r2(postgres.login.okPerSecond / postgres.floors.verify.okPerSecond) : null,
    pgLoginToFloorDatabase: postgres.floors
      ? r2(postgres.login.okPerSecond / postgres.floors.database.okPerSecond)
      : null,
    pgliteLoginToVerify: pglite ? r2(pglite.login.okPerSecond / verifyReference) : null,
    pgLoginVsKeycloak: r2(postgres.login.okPerSecond / (KEYCLOAK_PER_VCPU.logins * machine.cores)),
    pgliteLoginVsKeycloak: pglite ? r2(pglite.login.okPerSecond / (KEYCLOAK_PER_VCPU.logins * machine.cores)) : null,
    pgRefreshVsKeycloak: r2(postgres.refresh.okPerSecond / (KEYCLOAK_PER_VCPU.refreshes * machine.cores)),
    pgLoginTimingVerdict: postgres.loginTiming?.verdict ?? null,
  };
}
