/**
 * Steps 2 and 3: autocannon storms against a running server. The login storm hits
 * POST /v1.1/users/login as alice; the refresh storm hits POST /v1/users/token with one rotating
 * refresh-token chain per connection. Each storm is bracketed by event-loop-probe marks and CPU
 * snapshots after an unmeasured warm-up.
 */
import autocannon from 'autocannon';
import { CLIENT_ID, opts, USER } from './config.mjs';
import { cpuSnapshot, cpuWindow } from './cpu.mjs';
import { eldMark } from './server.mjs';
import { load, log, r1, r2 } from './util.mjs';

async function cannon(options) {
  return autocannon({ timeout: 10, ...options });
}

/** The figures of one autocannon run (also used by the consent benchmark). */
export function summarise(result) {
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
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: r1(result.latency.mean),
    },
  };
}

export async function loginStorm(server, connections) {
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
  log(
    `${server.label}:   ${result.okPerSecond} logins/s, p99 ${result.latencyMs.p99} ms, ` +
      `non-2xx ${result.non2xx}, event-loop p99 ${eld.p99} ms`,
  );
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

export async function refreshStorm(server, connections) {
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
  log(
    `${server.label}:   ${summary.okPerSecond} refreshes/s, p99 ${summary.latencyMs.p99} ms, ` +
      `non-2xx ${summary.non2xx}, event-loop p99 ${eld.p99} ms`,
  );
  return {
    ...summary,
    eventLoopDelayMs: eld,
    cpuCores: cpu,
    chains: {
      count: chains.length,
      rotationsMin: Math.min(...rotations),
      rotationsMax: Math.max(...rotations),
      withFailures: failed.length,
      sampleFailure: failed[0]?.lastFailure ?? null,
    },
    loadAvgBefore: loadBefore,
    loadAvgAfter: load(),
  };
}
