/**
 * One bounded autocannon measurement (an unmeasured warm-up, then the measured run, bracketed by CPU snapshots and,
 * for the Assent server, event-loop-probe marks and pg_stat_activity samples), and the same measurement against Assent
 * and then against the bare-Fastify ceiling, with their ratio.
 */

import autocannon from 'autocannon';
import { consentOpts } from './consent-config.mjs';
import { startWaitSampler } from './consent-waits.mjs';
import { cpuSnapshot, cpuWindow } from './cpu.mjs';
import { eldMark } from './server.mjs';
import { summarise } from './storms.mjs';
import { assertLocal, load, log, r2 } from './util.mjs';

/**
 * @typedef {object} Target  where the load goes
 * @property {string} label  "assent" or "ceiling"
 * @property {string} base   http://127.0.0.1:<port>
 * @property {import('node:child_process').ChildProcess} child  the server process (CPU accounting)
 * @property {string|null} [dbName]  its PostgreSQL database, for the CPU split
 * @property {boolean} [eld]  whether it runs the bench/eld.cjs probe (Assent only)
 */

/**
 * @typedef {object} Spec  what to measure
 * @property {string} name
 * @property {number} connections
 * @property {(phase: 'warmup'|'measure', target: Target) => object} options  autocannon options
 *   without url/duration/connections: `path`/`method`/`headers`/`body`, or `setupClient`
 * @property {(phase: 'warmup'|'measure', target: Target) => (void|Promise<void>)} [before]  awaited before each run
 */

async function cannon(target, spec, phase, duration) {
  assertLocal(target.base, `${target.label} URL`);
  await spec.before?.(phase, target);
  const { path = '', ...rest } = spec.options(phase, target);
  return autocannon({ timeout: 10, url: `${target.base}${path}`, connections: spec.connections, duration, ...rest });
}

/**
 * Warm-up (unmeasured) and measured run of `spec` against `target`.
 * @param timing - `{seconds, warmupSeconds}` of the runs; the consent benchmark's by default (the web
 *   benchmark passes its own).
 * @returns the summary: 2xx/s, latency, non-2xx, CPU split, event-loop delay (Assent only), the measured window.
 */
export async function measureOne(target, spec, timing = consentOpts) {
  const { seconds, warmupSeconds } = timing;
  if (warmupSeconds > 0) await cannon(target, spec, 'warmup', warmupSeconds);
  if (target.eld) await eldMark(target); // discard start-up and warm-up
  const loadBefore = load();
  const sampler = target.dbName ? await startWaitSampler(target.dbName) : null;
  const cpu0 = cpuSnapshot(target.child.pid, target.dbName ?? null);
  const raw = await cannon(target, spec, 'measure', seconds);
  const summary = summarise(raw);
  const cpu = cpuWindow(cpu0, cpuSnapshot(target.child.pid, target.dbName ?? null));
  const postgresWaits = sampler ? await sampler.stop() : null;
  const eventLoopDelayMs = target.eld ? await eldMark(target) : null;
  log(
    `  ${target.label.padEnd(7)} ${spec.name}: ${summary.okPerSecond} req/s, ` +
      `p50 ${summary.latencyMs.p50} ms, p99 ${summary.latencyMs.p99} ms, ` +
      `non-2xx ${summary.non2xx}, errors ${summary.errors}` +
      (eventLoopDelayMs ? `, event-loop p99 ${eventLoopDelayMs.p99} ms` : ''),
  );
  return {
    ...summary,
    // When the measured run started and ended (milliseconds since the epoch), for measures that relate other
    // timestamps to it (consent-events.mjs).
    windowMs: { start: raw.start.getTime(), finish: raw.finish.getTime() },
    cpuCores: cpu,
    eventLoopDelayMs,
    postgresWaits,
    loadAvgBefore: loadBefore,
    loadAvgAfter: load(),
  };
}

/**
 * The same measurement against Assent, then against the ceiling.
 * @returns `{assent, ceiling, ratio}`; ratio = Assent's 2xx/s ÷ the ceiling's.
 */
export async function versusCeiling(assent, ceiling, spec) {
  log(
    `measure: ${spec.name} (${consentOpts.warmupSeconds} s warm-up + ${consentOpts.seconds} s, ` +
      `${spec.connections} connections)`,
  );
  const a = await measureOne(assent, spec);
  const c = await measureOne(ceiling, spec);
  const ratio = c.okPerSecond > 0 ? r2(a.okPerSecond / c.okPerSecond) : null;
  log(`  ratio to ceiling: ${ratio}`);
  return { name: spec.name, assent: a, ceiling: c, ratio };
}
