/**
 * Step 4b: a wrong username and a wrong password must be indistinguishable in timing.
 *
 * Sequential requests (one in flight) to POST /v1.1/users/login, alternating (a) an unknown
 * username (ghost-<i>@acme.example, a new one each time) and (b) alice@acme.example, both with the
 * same wrong password; an unmeasured warm-up first. Every answer must be 401. The two latency
 * samples are compared by their medians and a two-sided Mann-Whitney U test.
 *
 * Each request is a failed login, which counts toward the throttle of the IP (all of them) and of
 * the account (alice: half of them), so the server must run with the thresholds raised
 * (THROTTLE_ENV); this is checked before the first request.
 */
import { opts, TIMING_CRITERION, USER } from './config.mjs';
import { cpuSnapshot, cpuWindow } from './cpu.mjs';
import { describe, mannWhitneyU } from './stats.mjs';
import { load, log, r2 } from './util.mjs';

const WRONG_PASSWORD = 'not-the-right-passphrase';
const round = (x) => Math.round(x * 1000) / 1000;

/** Throws unless the server's throttle thresholds are above the failures this measurement causes. */
function assertThrottleRaised(server, requests) {
  const limits = {
    ASSENT_IP_DELAY_AFTER: requests, // every request fails from 127.0.0.1
    ASSENT_IP_LOCK_AFTER: requests,
    ASSENT_ACCOUNT_DELAY_AFTER: requests, // at most all of them as alice (in fact about half)
    ASSENT_ACCOUNT_LOCK_AFTER: requests,
  };
  for (const [name, failures] of Object.entries(limits)) {
    const value = Number(server.env[name]);
    if (!(value > failures)) {
      throw new Error(
        `${server.label}: the login timing measurement fails ${failures} logins, ` +
          `but the server runs with ${name}=${server.env[name] ?? '(default)'}; it would be throttled`,
      );
    }
  }
}

/** One login attempt, timed from sending the request to the end of the response body. */
async function attempt(url, username) {
  const body = JSON.stringify({ username, password: WRONG_PASSWORD });
  const start = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await res.arrayBuffer();
  return { ms: performance.now() - start, status: res.status };
}

function countStatuses(list) {
  const counts = {};
  for (const { status } of list) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

export async function loginTiming(server) {
  const n = opts.timingRequests;
  const warmup = opts.timingWarmup;
  assertThrottleRaised(server, warmup + 2 * n);
  const url = `${server.base}/v1.1/users/login`;
  log(`${server.label}: login timing warm-up ${warmup} requests (unknown username / wrong password, alternating)`);
  for (let i = 0; i < warmup; i++) await attempt(url, i % 2 === 0 ? `ghost-warmup-${i}@acme.example` : USER.username);

  log(`${server.label}: login timing ${n} unknown-username + ${n} wrong-password requests, interleaved, one at a time`);
  const unknown = [];
  const wrong = [];
  const loadBefore = load();
  const cpu0 = cpuSnapshot(server.child.pid, server.dbName);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    unknown.push(await attempt(url, `ghost-${i}@acme.example`));
    wrong.push(await attempt(url, USER.username));
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = cpuWindow(cpu0, cpuSnapshot(server.child.pid, server.dbName));

  const a = unknown.map((x) => x.ms);
  const b = wrong.map((x) => x.ms);
  const da = describe(a);
  const db = describe(b);
  const test = mannWhitneyU(a, b);
  const diffMs = da.median - db.median;
  const diffPercent = (diffMs / db.median) * 100;
  const allUnauthorized = [...unknown, ...wrong].every((x) => x.status === 401);
  const indistinguishable =
    allUnauthorized && Math.abs(diffPercent) < TIMING_CRITERION.maxMedianDiffPercent && test.p > TIMING_CRITERION.alpha;
  const stats = (d) => ({
    median: round(d.median),
    p90: round(d.p90),
    mean: round(d.mean),
    min: round(d.min),
    max: round(d.max),
  });
  const result = {
    requestsEach: n,
    warmupRequests: warmup,
    seconds: r2(seconds),
    statusCodes: { unknownUsername: countStatuses(unknown), wrongPassword: countStatuses(wrong) },
    allUnauthorized,
    unknownUsernameMs: stats(da),
    wrongPasswordMs: stats(db),
    medianDiffMs: round(diffMs),
    medianDiffPercent: r2(diffPercent),
    mannWhitney: { u: test.u, uMin: test.uMin, z: round(test.z), p: test.p },
    criterion: TIMING_CRITERION,
    verdict: indistinguishable ? 'indistinguishable' : 'DISTINGUISHABLE',
    cpuCores: cpu,
    loadAvgBefore: loadBefore,
    loadAvgAfter: load(),
    samplesMs: { unknownUsername: a.map(round), wrongPassword: b.map(round) },
  };
  log(
    `${server.label}:   medians: unknown username ${da.median.toFixed(2)} ms, ` +
      `wrong password ${db.median.toFixed(2)} ms ` +
      `(${diffMs >= 0 ? '+' : ''}${diffPercent.toFixed(1)}%), ` +
      `Mann-Whitney p ${test.p.toPrecision(3)}: ${result.verdict}` +
      (allUnauthorized ? '' : '; NOT every answer was 401'),
  );
  return result;
}
