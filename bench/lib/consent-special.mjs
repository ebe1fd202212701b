/**
 * ====================================================================================================
 * MEASURE (f): the special consent request (docs/api.md "Permissions and consents", the 202 operation) to about 10 % of the
 * individuals (100,000 of 1,000,000) through the webhook transport to a local receiver.
 * Goal: >= 2000 notifications/s. Where the feature's endpoints do not exist (a 404), this measure
 * prints "SKIPPED (endpoint not present)" and the run goes on.
 * ====================================================================================================
 *
 * Contract (of the feature in progress):
 * 1. PUT /v1/organizations/{org}/notification-transports (Owner) {"webhook": {"url": "http://127.0.0.1:<port>/hook"}};
 *    the server runs with ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS=127.0.0.1 (consents.mjs sets it);
 * 2. POST /v1/organizations/{org}/purposes/{purpose}/attributes/consent {} → 202, Location:
 * /v1/organizations/{org}/jobs/{job};
 * 3. GET on the Location → {"ID", "State": "queued"|"running"|"completed"|"failed", "Notified", "Skipped", "Failed",
 * ...},
 *    polled every 200 ms until completed or failed, bounded by BENCH_SPECIAL_TIMEOUT_SECONDS.
 * notifications/s = Notified / (time the job was first seen finished − time of the 202).
 *
 * The purpose is the dataset's lawful purpose "Customer service", on which exactly the individuals
 * with a mix draw in [0.40, 0.50) hold one Disallow (and nobody else any); undecided attributes of a
 * lawful purpose default to Allow, so the expected count does not depend on how the job treats them.
 * The receiver is a node:http server on 127.0.0.1 answering 200 and counting POSTs and distinct
 * Idempotency-Key headers (each individual must be notified exactly once). Its own ceiling is also
 * measured: autocannon POSTing a similar body straight to it.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { onCleanup } from './cleanup.mjs';
import { HOST } from './config.mjs';
import { CONSENT_GOALS, consentOpts } from './consent-config.mjs';
import { SPECIAL_PURPOSE } from './consent-dataset.mjs';
import { call } from './consent-http.mjs';
import { assertLocal, log, r1 } from './util.mjs';

/** A loopback webhook receiver that answers 200 and counts. */
async function startReceiver() {
  const stats = { posts: 0, keys: new Set(), withoutKey: 0, firstAt: null, lastAt: null, sample: null };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      if (body.length < 2000) body += chunk;
    });
    req.on('end', () => {
      if (req.method === 'POST' && req.url.startsWith('/hook')) {
        const now = performance.now();
        stats.posts++;
        stats.firstAt ??= now;
        stats.lastAt = now;
        const key = req.headers['idempotency-key'];
        if (typeof key === 'string' && key) stats.keys.add(key);
        else stats.withoutKey++;
        stats.sample ??= { headers: Object.keys(req.headers).sort(), body: body.slice(0, 500) };
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, HOST, resolve));
  const close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  onCleanup(close);
  server.unref();
  return { url: `http://${HOST}:${server.address().port}/hook`, stats, close };
}

/** What the receiver alone accepts: autocannon POSTs to it for a few seconds (no Assent involved). */
async function receiverCeiling(url) {
  const result = await autocannon({
    url,
    method: 'POST',
    connections: 16,
    duration: Math.min(5, consentOpts.seconds),
    headers: { 'content-type': 'application/json' },
    body: '{"event":"consent.request","bench":true}',
  });
  return r1(result['2xx'] / result.duration);
}

const skipped = (reason) => {
  log('=============================================================');
  log(`special consent request: SKIPPED (endpoint not present): ${reason}`);
  log('=============================================================');
  return { status: 'SKIPPED (endpoint not present)', reason };
};

/**
 * Sends the special consent request on `purposeId` and polls its job every 200 ms until it finishes
 * or BENCH_SPECIAL_TIMEOUT_SECONDS pass.
 * @returns `{job, polls, acceptedAt, finishedAt}` (performance.now() times; job null or unfinished on timeout), or `{status: 'SKIPPED'|'FAILED', reason}`.
 */
export async function requestAndWait(server, token, org, purposeId) {
  const post = await call(server.base, 'POST', `${org}/purposes/${purposeId}/attributes/consent`, { token, body: {} });
  const acceptedAt = performance.now();
  if (post.status === 404)
    return { status: 'SKIPPED', reason: 'POST .../purposes/{purposeID}/attributes/consent answered 404' };
  const location = post.headers.get('location');
  if (post.status !== 202 || !location)
    return {
      status: 'FAILED',
      reason: `POST attributes/consent answered ${post.status} (Location ${location}) ${post.text.slice(0, 300)}`,
    };
  const jobUrl = new URL(location, server.base).toString();
  assertLocal(jobUrl, 'job Location');
  const deadline = acceptedAt + consentOpts.specialTimeoutSeconds * 1000;
  let job = null;
  let polls = 0;
  while (performance.now() < deadline) {
    await sleep(200);
    const res = await call(server.base, 'GET', jobUrl, { token });
    polls++;
    if (res.status !== 200)
      return { status: 'FAILED', reason: `GET ${location} answered ${res.status} ${res.text.slice(0, 300)}` };
    job = res.json;
    if (job.State === 'completed' || job.State === 'failed') break;
  }
  return { job, polls, acceptedAt, finishedAt: performance.now() };
}

/**
 * Runs measure (f). Skips (loudly) only when the transport or request endpoint answers 404; any
 * other unexpected answer, a failed job or the timeout is reported as FAILED.
 * @param {{label: string, base: string}} server  the Assent server (started with
 * ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS=127.0.0.1)
 * @param {import('./consent-measures.mjs').Ctx} ctx
 * @returns `{status: 'measured'|'SKIPPED (endpoint not present)'|'FAILED', ...}`
 */
export async function specialRequestMeasure(server, ctx) {
  const purpose = ctx.dataset.purposes[SPECIAL_PURPOSE];
  const {
    rows: [{ n: expected }],
  } = await ctx.sql.query(
    `SELECT count(DISTINCT c.user_id)::int AS n FROM attribute_consents c
     JOIN subscriptions s ON s.org_id = $1 AND s.user_id = c.user_id
     WHERE c.purpose_id = $2 AND (c.value = 'Disallow' OR (c.value = 'AskMe' AND c.expires_at <= now()))`,
    [ctx.orgId, purpose.id],
  );
  const receiver = await startReceiver();
  const token = ctx.owner.access;
  try {
    const org = `/v1/organizations/${ctx.orgId}`;
    const put = await call(server.base, 'PUT', `${org}/notification-transports`, {
      token,
      body: { webhook: { url: receiver.url } },
    });
    if (put.status === 404) return skipped(`PUT ${org}/notification-transports answered 404`);
    if (put.status < 200 || put.status >= 300)
      return {
        status: 'FAILED',
        reason: `PUT notification-transports answered ${put.status} ${put.text.slice(0, 300)}`,
      };
    log(
      `special: webhook transport set to ${receiver.url}; purpose "${purpose.name}": ${expected} individuals with a ` +
        'Disallow expected to be notified',
    );

    const run = await requestAndWait(server, token, org, purpose.id);
    if (run.status) return run.status === 'SKIPPED' ? skipped(run.reason) : run;
    const { job, polls, acceptedAt, finishedAt } = run;
    const finished = job && (job.State === 'completed' || job.State === 'failed');
    const seconds = (finishedAt - acceptedAt) / 1000;
    const perSecond = finished && seconds > 0 ? r1(job.Notified / seconds) : null;
    const r = receiver.stats;
    const result = {
      status: finished && job.State === 'completed' ? 'measured' : 'FAILED',
      reason: finished
        ? job.State === 'failed'
          ? 'the job failed'
          : null
        : `not finished after ${consentOpts.specialTimeoutSeconds} s (last state ${job?.State})`,
      purpose: purpose.name,
      expectedIndividuals: expected,
      job,
      polls,
      secondsFrom202ToFinished: r1(seconds),
      notificationsPerSecond: perSecond,
      receiver: {
        posts: r.posts,
        distinctIdempotencyKeys: r.keys.size,
        postsWithoutKey: r.withoutKey,
        secondsFrom202ToLastPost: r.lastAt ? r1((r.lastAt - acceptedAt) / 1000) : null,
        perSecondAtReceiver: r.lastAt ? r1(r.posts / ((r.lastAt - acceptedAt) / 1000)) : null,
        sample: r.sample,
      },
      // The job's own times, when it reports them: no 200 ms polling granularity.
      serverSideSeconds:
        job?.CreatedAt && job?.FinishedAt ? r1((Date.parse(job.FinishedAt) - Date.parse(job.CreatedAt)) / 1000) : null,
      checks: {
        notifiedEqualsExpected: job?.Notified === expected,
        postsEqualNotified: r.posts === job?.Notified,
        exactlyOncePerKey: r.keys.size === r.posts && r.withoutKey === 0,
      },
      goal: CONSENT_GOALS.notificationsPerSecond,
    };
    result.receiverCeilingPerSecond = await receiverCeiling(receiver.url);
    result.ratioToReceiverCeiling =
      perSecond && result.receiverCeilingPerSecond
        ? Math.round((perSecond / result.receiverCeilingPerSecond) * 100) / 100
        : null;
    log(
      `special: ${result.status}: Notified ${job?.Notified}, Skipped ${job?.Skipped}, Failed ${job?.Failed} in ` +
        `${result.secondsFrom202ToFinished} s = ${perSecond} notifications/s; ` +
        `receiver got ${result.receiver.posts} POSTs, ${result.receiver.distinctIdempotencyKeys} distinct ` +
        `Idempotency-Keys; receiver ceiling ${result.receiverCeilingPerSecond} POST/s`,
    );
    return result;
  } finally {
    await receiver.close();
  }
}
