#!/usr/bin/env node
/**
 * Assent wallet benchmark (docs/benchmarks.md, "Wallet benchmark"): `node bench/wallet.mjs` (or
 * `npm run bench:wallet`).
 *
 * One bounded run (a watchdog ends it at BENCH_WALLET_DEADLINE_SECONDS, default 300) that measures:
 *   a. the raw rate of one presentation's cryptography in a loop in this process: JWE decryption
 *      (ECDH-ES P-256 + A256GCM, jose), two ES256 verifications (issuer, KB-JWT), the disclosures'
 *      SHA-256;
 *  a2. the verifier's own library work per response, in this process, no database, no HTTP: the
 *      transaction's sealed key opened and imported, the JWE decrypted, the parameters and the
 *      vp_token verified by dist/wallet (`openResponse`, `verifyVpToken`), status list cached
 *      (wallet-verifier.mjs), over BENCH_WALLET_VERIFIER_PRESENTATIONS (2000) responses;
 *   b. presentations verified per second through POST …/oid4vp/response (direct_post.jwt, a
 *      credential with a status list), each with its own transaction started beforehand through
 *      /auth → page → request object, at BENCH_WALLET_CONNECTIONS (8), with p50/p99 latency;
 *   c. complete sign-ins per second (auth → page → wallet → status → complete → code → token) with
 *      BENCH_WALLET_FLOWS (8) at once;
 *   f. the floor (PostgreSQL only): a node:http server doing only (a2)'s work plus the one
 *      single-use UPDATE … RETURNING of the transaction, stormed as (b) (wallet-floor.mjs);
 * and compares (b) with (a) (goal ≥ 0.7), (a2) and (f), and (b)'s p99 with 50 ms. The presentations of (b) and (c)
 * are of BENCH_WALLET_INDIVIDUALS (64) individuals taken in turn (concurrent sign-ins are of
 * different people, as in production), each signed in once by (b)'s warm-up.
 *
 * The server is `bin/assent.cjs serve` (dist/, built first) on a fresh PostgreSQL database
 * assent_bench_<timestamp> (BENCH_PG_URL), or on a PGlite directory (BENCH_WALLET_STORE=pglite),
 * with examples/demo.json imported; the PKI, the credentials and the status-list server are made
 * for the run. Everything targets 127.0.0.1; the database and the children are removed at the end.
 * Prints a summary and writes bench/results/wallet-latest.json.
 */
import { build } from './lib/build.mjs';
import { cleanup, installGuards, runBenchmark } from './lib/cleanup.mjs';
import { DEMO_FILE, envInt } from './lib/config.mjs';
import { OWNER } from './lib/consent-config.mjs';
import { login } from './lib/consent-http.mjs';
import { freshStore, startServer, stopServer } from './lib/server.mjs';
import { load, log, machineFacts, publish, r2, runCli } from './lib/util.mjs';
import { floorRate } from './lib/wallet-floor.mjs';
import { setUp, startTransaction } from './lib/wallet-flows.mjs';
import { holderSigner } from './lib/wallet-holder.mjs';
import { claimsOf, createPki, holderKey, issue, startStatusServer } from './lib/wallet-issuer.mjs';
import { pipelineRate, signInRate } from './lib/wallet-measures.mjs';
import { rawRate } from './lib/wallet-raw.mjs';
import { sharedOf, verifierRate } from './lib/wallet-verifier.mjs';

const opts = {
  rawSeconds: envInt('BENCH_WALLET_RAW_SECONDS', 5),
  presentations: envInt('BENCH_WALLET_PRESENTATIONS', 2000),
  verifierPresentations: envInt('BENCH_WALLET_VERIFIER_PRESENTATIONS', 2000),
  warmup: envInt('BENCH_WALLET_WARMUP', 300),
  individuals: envInt('BENCH_WALLET_INDIVIDUALS', 64),
  connections: envInt('BENCH_WALLET_CONNECTIONS', 8),
  flows: envInt('BENCH_WALLET_FLOWS', 8),
  signInSeconds: envInt('BENCH_WALLET_SIGNIN_SECONDS', 10),
  signInWarmupSeconds: envInt('BENCH_WALLET_SIGNIN_WARMUP_SECONDS', 2),
  deadlineSeconds: envInt('BENCH_WALLET_DEADLINE_SECONDS', 300),
  store: process.env.BENCH_WALLET_STORE === 'pglite' ? 'pglite' : 'postgres',
};
const GOALS = { pipelineToRaw: 0.7, p99Ms: 50 };
const watchdog = installGuards(opts.deadlineSeconds);

/**
 * The server's CPU per verified presentation (ms; main thread and its other threads, from /proc)
 * and the raw loop's CPU per presentation divided by it: the ratio of (b) to (a) that the other
 * processes of a shared machine do not move.
 */
function cpuPerPresentation(pipeline, raw) {
  const cores = pipeline.cpuCores;
  if (!cores) return { serverCpuMsPerPresentation: null, cpuRatio: null };
  const ms = ((cores.serverMainThread + cores.serverOtherThreads) * pipeline.seconds * 1000) / pipeline.ok2xx;
  return { serverCpuMsPerPresentation: r2(ms), cpuRatio: r2(raw.cpuMsPerPresentation / ms) };
}

function summary(r) {
  const ratio = r.derived.pipelineToRaw;
  const line = (label, value, goal) => `  ${label.padEnd(44)} ${String(value).padStart(10)}${goal ? `   ${goal}` : ''}`;
  return [
    `Wallet benchmark (${r.database}; ${r.machine.cores} cores, Node ${r.machine.node}, load ${r.machine.loadAvgStart.join(' ')})`,
    line('(a) raw crypto, presentations/s', r.raw.perSecond),
    line('(a2) verifier library work, presentations/s', r.verifier.perSecond),
    line('    CPU per presentation (ms)', r.verifier.cpuMsPerPresentation),
    ...(r.floor
      ? [
          line(`(f) floor server, verified/s at ${r.floor.connections} connections`, r.floor.okPerSecond),
          line('    p50 / p99 latency (ms)', `${r.floor.latencyMs.p50} / ${r.floor.latencyMs.p99}`),
          line('    non-2xx', r.floor.non2xx),
          line(
            '    floor main thread + threads / postgres (cores)',
            `${r2((r.floor.cpuCores?.serverMainThread ?? 0) + (r.floor.cpuCores?.serverOtherThreads ?? 0))} / ${r.floor.cpuCores?.postgres}`,
          ),
        ]
      : [line('(f) floor server', 'PostgreSQL only')]),
    line(`(b) pipeline, verified/s at ${r.pipeline.connections} connections`, r.pipeline.okPerSecond),
    line(
      '    p50 / p99 latency (ms)',
      `${r.pipeline.latencyMs.p50} / ${r.pipeline.latencyMs.p99}`,
      `p99 goal ≤ ${GOALS.p99Ms}: ${r.pipeline.latencyMs.p99 <= GOALS.p99Ms ? 'met' : 'MISSED'}`,
    ),
    line('    non-2xx', r.pipeline.non2xx),
    line('    (b) ÷ (a)', ratio, `goal ≥ ${GOALS.pipelineToRaw}: ${ratio >= GOALS.pipelineToRaw ? 'met' : 'MISSED'}`),
    line('    (b) ÷ (a2)', r.derived.pipelineToVerifier),
    line('    (b) ÷ (f)', r.derived.pipelineToFloor ?? 'n/a'),
    line('    server CPU per presentation (ms)', r.derived.serverCpuMsPerPresentation),
    line('    raw CPU per presentation (ms)', r.raw.cpuMsPerPresentation),
    line('    raw CPU ÷ server CPU per presentation', r.derived.cpuRatio),
    line(
      '    server main thread / other threads (cores)',
      `${r.pipeline.cpuCores?.serverMainThread} / ${r.pipeline.cpuCores?.serverOtherThreads}`,
    ),
    line(
      '    postgres / load generator (cores)',
      `${r.pipeline.cpuCores?.postgres} / ${r.pipeline.cpuCores?.loadGenerator}`,
    ),
    line(`(c) sign-ins/s, ${r.signIns.flows} flows`, r.signIns.perSecond),
    line('    p50 / p99 of a sign-in (ms)', `${r.signIns.latencyMs.p50} / ${r.signIns.latencyMs.p99}`),
    line('status-list fetches (ttl 300 s)', r.statusListFetches),
  ].join('\n');
}

async function main() {
  const machine = machineFacts();
  log(`wallet benchmark: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}`);
  build();
  const pki = await createPki();
  const holder = await holderKey();
  const statusServer = await startStatusServer(pki);
  const credentials = [];
  for (let i = 0; i < opts.individuals; i++)
    credentials.push(await issue(pki, holder, { idx: i % 16, uri: statusServer.uri }, claimsOf(i)));
  const raw = await rawRate(credentials[0], holder, opts.rawSeconds);

  // Wallet limits raised; status lists at 127.0.0.1 allowed.
  const store = await freshStore(opts.store, {
    ASSENT_WALLET_ALLOW_HTTP_HOSTS: '127.0.0.1',
    ASSENT_WALLET_PER_IP: '100000000',
  });
  const imported = JSON.parse(runCli(['import', DEMO_FILE], store.env, 120_000));
  const orgId = imported.organisations.acme.id;
  // BENCH_WALLET_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops (node --cpu-prof).
  const prof = process.env.BENCH_WALLET_CPU_PROF;
  const script = [...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []), 'bin/assent.cjs', 'serve'];
  const server = await startServer(opts.store, store.env, store.dbName, script);
  const owner = await login(server.base, OWNER.username, OWNER.password);
  const rp = await setUp(server.base, orgId, owner.access, pki.rootPem);
  const signer = await holderSigner(holder);
  // (a2) with the DCQL query, client_id and response mode of a real transaction of this server.
  const shared = sharedOf((await startTransaction(rp.issuer)).request, pki.rootPem);
  const verifier = await verifierRate(shared, credentials, signer, opts.verifierPresentations);
  const pipeline = await pipelineRate(server, rp, credentials, signer, {
    count: opts.presentations,
    warmup: opts.warmup,
    connections: opts.connections,
  });
  const signIns = await signInRate(server, rp, credentials, signer, {
    flows: opts.flows,
    seconds: opts.signInSeconds,
    warmupSeconds: opts.signInWarmupSeconds,
  });
  const shutdown = await stopServer(server);
  const floor =
    opts.store === 'postgres'
      ? await floorRate(store.env, store.dbName, shared, credentials, signer, {
          count: opts.presentations,
          warmup: opts.warmup,
          connections: opts.connections,
        })
      : null;
  const results = {
    startedAt: new Date().toISOString(),
    options: opts,
    machine,
    database: store.database,
    goals: GOALS,
    raw,
    verifier,
    pipeline,
    floor,
    signIns,
    statusListFetches: statusServer.fetches(),
    derived: {
      pipelineToRaw: r2(pipeline.okPerSecond / raw.perSecond),
      pipelineToVerifier: r2(pipeline.okPerSecond / verifier.perSecond),
      pipelineToFloor: floor ? r2(pipeline.okPerSecond / floor.okPerSecond) : null,
      ...cpuPerPresentation(pipeline, raw),
    },
    shutdown,
    loadAvgEnd: load(),
  };
  await cleanup();
  publish('wallet-latest.json', results, summary(results));
}

await runBenchmark('wallet benchmark', main, watchdog);
