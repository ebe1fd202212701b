/**
 * (b) and (c) of the wallet benchmark against a running server:
 * (b) presentations verified per second through `POST …/oid4vp/response` (the whole pipeline of
 *     docs/wallet.md "Verification steps", `direct_post.jwt`, a credential with a status list):
 *     every presentation has its own transaction, started beforehand through `/auth` → page →
 *     request object, and its response built beforehand; autocannon then posts each body once, at
 *     `connections`;
 * (c) complete sign-ins per second (auth → page → wallet → status → complete → code → token) with
 *     `flows` running at once, for a bounded time.
 */
import autocannon from 'autocannon';
import { cpuSnapshot, cpuWindow } from './cpu.mjs';
import { eldMark } from './server.mjs';
import { quantile } from './stats.mjs';
import { summarise } from './storms.mjs';
import { log, r1 } from './util.mjs';
import { signIn, startTransaction } from './wallet-flows.mjs';
import { responseBody } from './wallet-holder.mjs';

/** Runs `task(i)` for i in [0, count), `parallel` at a time; returns the results in order. */
async function pool(count, parallel, task) {
  const out = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      out[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return out;
}

/**
 * Starts `count` transactions and builds the wallet's response to each, the credentials taken in
 * turn (individual `i % credentials.length`).
 */
async function prepareBodies(rp, credentials, holderPrivate, count) {
  const t0 = performance.now();
  const bodies = await pool(count, 8, async (i) => {
    const tx = await startTransaction(rp.issuer);
    return responseBody(tx.request, credentials[i % credentials.length], holderPrivate);
  });
  log(`pipeline: ${count} transactions started and answered in ${r1((performance.now() - t0) / 1000)} s`);
  return { bodies, responseUri: `${rp.issuer}/oid4vp/response` };
}

/** Posts each body once through autocannon at `connections` (also (f), wallet-floor.mjs). */
export function post(responseUri, bodies, connections) {
  let next = 0;
  return autocannon({
    url: responseUri,
    connections,
    amount: bodies.length,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        setupRequest(req) {
          req.body = bodies[next++] ?? 'response=exhausted';
          return req;
        },
      },
    ],
  });
}

/**
 * (b): a warm-up of `warmup` presentations (at least one per credential: each individual's first
 * sign-in creates its account), then `count` measured, the credentials taken in turn.
 * @returns the autocannon summary, the server's event-loop delay and the CPU split.
 */
export async function pipelineRate(server, rp, credentials, holderPrivate, { count, warmup, connections }) {
  if (warmup < credentials.length) throw new Error('the warm-up must sign each individual in once');
  const warm = await prepareBodies(rp, credentials, holderPrivate, warmup);
  const measured = await prepareBodies(rp, credentials, holderPrivate, count);
  log(`pipeline: warm-up, ${warmup} presentations`);
  await post(warm.responseUri, warm.bodies, connections);
  await eldMark(server);
  log(`pipeline: ${count} presentations at ${connections} connections`);
  const cpu0 = cpuSnapshot(server.child.pid, server.dbName);
  const result = summarise(await post(measured.responseUri, measured.bodies, connections));
  const cpu = cpuWindow(cpu0, cpuSnapshot(server.child.pid, server.dbName));
  const eld = await eldMark(server);
  log(
    `pipeline:   ${result.okPerSecond} verified/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, ` +
      `non-2xx ${result.non2xx}`,
  );
  return { ...result, eventLoopDelayMs: eld, cpuCores: cpu };
}

/**
 * (c): `flows` sign-ins at a time for `seconds`, after a warm-up of `warmupSeconds`; the
 * individuals (signed in once by (b)'s warm-up) taken in turn.
 * @returns sign-ins per second and the latency of a whole sign-in (ms).
 */
export async function signInRate(server, rp, credentials, holderPrivate, { flows, seconds, warmupSeconds }) {
  let turn = 0;
  const run = async (duration) => {
    const durations = [];
    const end = performance.now() + duration * 1000;
    const worker = async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await signIn(rp, credentials[turn++ % credentials.length], holderPrivate);
        durations.push(performance.now() - t);
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: flows }, worker));
    return { durations, elapsed: (performance.now() - t0) / 1000 };
  };
  log(`sign-ins: warm-up ${warmupSeconds}s, ${flows} flows`);
  await run(warmupSeconds);
  await eldMark(server);
  log(`sign-ins: ${seconds}s, ${flows} flows`);
  const cpu0 = cpuSnapshot(server.child.pid, server.dbName);
  const { durations, elapsed } = await run(seconds);
  const cpu = cpuWindow(cpu0, cpuSnapshot(server.child.pid, server.dbName));
  const eld = await eldMark(server);
  const sorted = durations.sort((a, b) => a - b);
  const result = {
    flows,
    seconds: r1(elapsed),
    signIns: durations.length,
    perSecond: r1(durations.length / elapsed),
    latencyMs: { p50: r1(quantile(sorted, 0.5)), p99: r1(quantile(sorted, 0.99)), max: r1(sorted.at(-1)) },
    eventLoopDelayMs: eld,
    cpuCores: cpu,
  };
  log(`sign-ins:   ${result.perSecond}/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms`);
  return result;
}
