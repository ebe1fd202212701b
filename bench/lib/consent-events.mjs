/**
 * Measure (g) of the consent benchmark: organisation events (docs/events.md), in one run after (b):
 *
 * 1. the PATCH storm of (b) (same individuals, connections and durations; consent-patch.mjs) without any webhook,
 *    once unmeasured (W), then measured: rate A;
 * 2. one webhook registered by the Owner for every consent event type, pointing at a loopback receiver in its own
 *    process (event-receiver.mjs: answers 204 at once, verifies a sample of signatures with `standardwebhooks`), then
 *    the same storm: rate B, and from the outbox and the receipts (event-delivery.mjs): receipt − `time` per event,
 *    delivered/s, the backlog at the storm's end and each second, the drain time after it; then, the webhook
 *    disabled, the storm again (A2: B over the mean of A and A2 is printed); then the alternation that gives the goal's
 *    B/A and floor R/A (`alternation`: short storms without the webhook, with it, and without it while autocannon
 *    POSTs to the receiver at B's delivery rate); with BENCH_EVENTS_SPREAD > 0,
 *    A' (the storm spread over more individuals, consent-patch.mjs `planSpread`, since the webhook delivers one
 *    individual's events one at a time: one lane per individual, docs/events.md "Delivery guarantees"), B' (A' with
 *    the webhook enabled again) and, once it is deleted, A'2; the receiver's floor (autocannon alone); last, floor L
 *    (event-floor.mjs);
 * 3. the feed read and 4. the bulk check (consent-feed.mjs, consent-check.mjs).
 *
 * Where the webhooks endpoint answers 404 the webhook part prints SKIPPED and the rest goes on.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { measureOne } from './consent-cannon.mjs';
import { checkMeasure } from './consent-check.mjs';
import { CONSENT_GOALS, consentOpts } from './consent-config.mjs';
import { feedMeasure } from './consent-feed.mjs';
import { call } from './consent-http.mjs';
import { planSpread } from './consent-patch.mjs';
import { analyseDelivery, serverSplit } from './event-delivery.mjs';
import { fromCheckpoint, installLogRow, logRowFloor, removeLogRow } from './event-floor.mjs';
import { startEventReceiver } from './event-receiver.mjs';
import { log, r2 } from './util.mjs';

/** Every consent event type (docs/events.md "What is emitted"). */
export const CONSENT_EVENT_TYPES = ['consent.allowed', 'consent.disallowed', 'consent.askme', 'consent.expired'];

/** Rounds of the alternation, each one storm of each kind (count). */
const ALTERNATION_ROUNDS = 4;
/** Measured seconds of each storm of the alternation. */
const ALTERNATION_SECONDS = 5;
/** The unmeasured storm before A (seconds). */
const WARM_UP_SECONDS = 5;
/** Connections of the receiver's floor: the dispatcher's deliveries in flight per process (dispatcher.ts). */
const FLOOR_CONNECTIONS = 64;

/** The consent events committed since the webhook's creation (`seq` after its `last_seq` then, or not yet numbered). */
async function committedSince(sql, orgId, lastSeq) {
  const { rows } = await sql.query(
    `SELECT id, date_part('epoch', occurred_at) * 1000 AS t FROM organisation_events
     WHERE org_id = $1 AND type = ANY($2) AND (seq IS NULL OR seq > $3)`,
    [orgId, CONSENT_EVENT_TYPES, lastSeq],
  );
  return rows.map((r) => ({ id: r.id, t: Number(r.t) }));
}

/**
 * Waits until the receiver has every consent event numbered after `fromSeq` (or not yet numbered), at most
 * BENCH_EVENTS_DRAIN_TIMEOUT_SECONDS after the storm's end.
 * @param distinctBefore - the distinct events the receiver had when the storm began.
 * @returns whether it did.
 */
async function waitDrained(ctx, receiver, fromSeq, distinctBefore, finishMs) {
  const deadline = finishMs + consentOpts.eventsDrainTimeoutSeconds * 1000;
  for (;;) {
    const committed = (await committedSince(ctx.sql, ctx.orgId, fromSeq)).length;
    const received = (await receiver.counts()).distinct - distinctBefore;
    if (received >= committed) return true;
    if (Date.now() > deadline) {
      log(`events: receiver has ${received} of ${committed} events after the drain timeout`);
      return false;
    }
    await sleep(100);
  }
}

/**
 * One PATCH storm while the webhook is registered, and its delivery figures (event-delivery.mjs) once the receiver
 * has every event of it (or the drain timeout passed).
 * @param run - `{spec, verify}` of consent-patch.mjs.
 * @param fromSeq - the feed's head before the storm: its events are numbered after it.
 */
async function stormWithWebhook(server, ctx, receiver, webhookId, run, fromSeq) {
  log(`measure: ${run.spec.name} (${consentOpts.warmupSeconds} s warm-up + ${consentOpts.seconds} s)`);
  const before = await receiver.counts();
  await fromCheckpoint(ctx);
  const storm = await measureOne(server, run.spec);
  const events = await run.verify();
  const drained = await waitDrained(ctx, receiver, fromSeq, before.distinct, storm.windowMs.finish);
  const records = (await receiver.records()).slice(before.deliveries);
  const delivery = analyseDelivery(await committedSince(ctx.sql, ctx.orgId, fromSeq), records, storm.windowMs);
  const split = await serverSplit(ctx.sql, webhookId, storm.windowMs);
  const d = delivery;
  log(
    `events: delivered ${d.deliveredPerSecond}/s during the storm (committed ${d.committedPerSecond}/s); ` +
      `receipt - time p50 ${d.latencyMs.committedInWindow.p50} ms, p99 ${d.latencyMs.committedInWindow.p99} ms, ` +
      `max ${d.latencyMs.committedInWindow.max} ms; backlog at the end ${d.backlogAtEnd}, drained in ` +
      `${d.drainSeconds} s; missing ${d.missing}, duplicates ${d.duplicates}, out of order ${d.orderViolations}`,
  );
  const ok = drained && d.missing === 0 && d.unexpected === 0 && d.orderViolations === 0 && events.verdict === 'OK';
  return { ok, storm, events, drained, delivery, split };
}

/** The feed's head (every committed event numbered: the feed read flushes the sequencer first). */
async function feedHead(server, ctx) {
  await call(server.base, 'GET', `/v1/organizations/${ctx.orgId}/events?limit=1`, {
    token: ctx.owner.access,
    expect: 200,
  });
  const { rows } = await ctx.sql.query('SELECT seq FROM organisation_event_heads WHERE org_id = $1', [ctx.orgId]);
  return Number(rows[0]?.seq ?? 0);
}

/** A storm without deliveries: `{storm, events}`. */
async function plainStorm(server, ctx, plan, name) {
  const run = plan.again(name);
  log(`measure: ${run.spec.name} (${consentOpts.warmupSeconds} s warm-up + ${consentOpts.seconds} s)`);
  await fromCheckpoint(ctx);
  return { storm: await measureOne(server, run.spec), events: await run.verify() };
}

/**
 * B/A and floors R/A and F/A by alternation: short storms of four kinds, in the order a b r f f r b a a b r f f r b a
 * (`ALTERNATION_ROUNDS` rounds of four), so that what drifts over the run, and the machine's noise of the moment,
 * weigh on every kind alike:
 * - a: the webhook disabled (a disabled webhook is no work to the dispatcher: fan-out-store.ts leases enabled ones);
 * - b: the webhook enabled (it starts from the feed's head);
 * - r: the webhook disabled, while autocannon in the bench process POSTs a delivery's body to the receiver at
 *   `rate` per second: what a receiver on the same cores, fed by the lightest sender at hand, costs the storm;
 * - f: r, and each change also writes one delivery-log-sized row in its own transaction (event-floor.mjs): the least
 *   that sending each event and logging each delivery durably in the same PostgreSQL (docs/events.md "The deliveries
 *   log") cost the storm on these cores, whatever the dispatcher's design.
 * Each ratio is the sum of its kind's rates over the sum of a's. A second after each switch lets the deliveries of
 * the storm before it finish.
 * @param setDisabled - switches the webhook.
 * @returns `{ratio, loadedRatio, floorRatio, rounds: [{b, r, f} per round], storms: [{kind, okPerSecond}], rate,
 *   seconds}`.
 */
async function alternation(server, ctx, patchPlan, setDisabled, receiver, body, rate) {
  const timing = { seconds: ALTERNATION_SECONDS, warmupSeconds: 1 };
  const storms = [];
  let enabled = false; // disabled for A2 before
  const order = Array.from({ length: ALTERNATION_ROUNDS }, (_, i) => (i % 2 === 0 ? 'abrf' : 'frba')).join('');
  const loaded = `webhook disabled, receiver loaded at ${rate} POST/s`;
  const what = { a: 'webhook disabled', b: 'webhook on', r: loaded, f: `${loaded}, a log-sized row per change` };
  for (const [i, kind] of [...order].entries()) {
    if ((kind === 'b') !== enabled) {
      enabled = kind === 'b';
      await setDisabled(!enabled);
      await sleep(1000);
    }
    const run = patchPlan.again(`PATCH one attribute, alternation ${i + 1}, ${what[kind]} (${kind})`);
    log(`measure: ${run.spec.name} (1 s warm-up + ${ALTERNATION_SECONDS} s)`);
    if (kind === 'f') await installLogRow(ctx.sql);
    let storm;
    let posted;
    try {
      await fromCheckpoint(ctx);
      const sends = kind === 'r' || kind === 'f';
      const load = sends ? receiver.load(body, rate, ALTERNATION_SECONDS + 2, FLOOR_CONNECTIONS / 2) : null;
      [storm, posted] = await Promise.all([measureOne(server, run.spec, timing), load]);
    } finally {
      if (kind === 'f') await removeLogRow(ctx.sql);
    }
    const events = await run.verify();
    storms.push({ kind, okPerSecond: storm.okPerSecond, postedPerSecond: posted, events: events.verdict });
  }
  if (enabled) await setDisabled(true);
  const sum = (kind, from) => from.filter((x) => x.kind === kind).reduce((t, x) => t + x.okPerSecond, 0);
  const over = (kind, from = storms) => (sum('a', from) > 0 ? r2(sum(kind, from) / sum('a', from)) : null);
  const rounds = [];
  for (let i = 0; i < storms.length; i += 4) {
    const round = storms.slice(i, i + 4);
    rounds.push({ b: over('b', round), r: over('r', round), f: over('f', round) });
  }
  const [ratio, loadedRatio, floorRatio] = [over('b'), over('r'), over('f')];
  const perRound = rounds.map((x) => `${x.b}/${x.r}/${x.f}`).join(', ');
  log(`events: by alternation B/A ${ratio}, R/A ${loadedRatio}, F/A ${floorRatio} (per round ${perRound})`);
  return { ratio, loadedRatio, floorRatio, rounds, storms, rate, seconds: ALTERNATION_SECONDS };
}

/**
 * Step 2: the webhook and the storms around it, each storm with it beside the same storm without it:
 * B (webhook on); A2 (webhook disabled); the alternation (a, b, and r: floor R); then, with
 * `spreadPlan`, A' (disabled) and B' (enabled again, from the feed's head); the receiver's floor; the webhook's
 * deletion. Disabled, a webhook is no work at all to the dispatcher (fan-out-store.ts leases enabled ones only).
 */
async function webhookStorms(server, ctx, patchPlan, spreadPlan) {
  const org = `/v1/organizations/${ctx.orgId}`;
  const token = ctx.owner.access;
  const receiver = await startEventReceiver();
  try {
    const created = await call(server.base, 'POST', `${org}/webhooks`, {
      token,
      body: { payloadUrl: receiver.url, subscribedEvents: CONSENT_EVENT_TYPES },
    });
    if (created.status === 404)
      return { status: 'SKIPPED (endpoint not present)', reason: `POST ${org}/webhooks answered 404` };
    if (created.status !== 201 && created.status !== 200)
      return { status: 'FAILED', reason: `POST webhooks answered ${created.status} ${created.text.slice(0, 300)}` };
    const webhook = created.json;
    await receiver.setSecret(webhook.secret);
    const {
      rows: [{ last_seq: lastSeq }],
    } = await ctx.sql.query('SELECT last_seq FROM webhooks WHERE id = $1', [webhook.id]);
    log(
      `events: webhook ${webhook.id} for ${CONSENT_EVENT_TYPES.join(', ')} -> ${receiver.url} (feed head ${lastSeq})`,
    );
    const setDisabled = async (disabled) => {
      const put = await call(server.base, 'PUT', `${org}/webhooks/${webhook.id}`, {
        token,
        body: { payloadUrl: receiver.url, subscribedEvents: CONSENT_EVENT_TYPES, disabled },
      });
      if (put.status !== 200) throw new Error(`PUT webhook (disabled ${disabled}) answered ${put.status}`);
    };

    const b = patchPlan.again('PATCH one attribute, one webhook for every consent event (B)');
    const main = await stormWithWebhook(server, ctx, receiver, webhook.id, b, Number(lastSeq));
    // The floors get a real delivery's body: the first event of storm B, as the feed shows it.
    const sample = await call(server.base, 'GET', `${org}/events?after=${lastSeq}&limit=1`, { token, expect: 200 });
    const floorBody = JSON.stringify(sample.json.Events[0] ?? {});
    await setDisabled(true);
    const stormA2 = await plainStorm(server, ctx, patchPlan, 'PATCH one attribute, webhook disabled, after (A2)');
    const rate = Math.round(main.delivery.deliveredPerSecond);
    const alternated = await alternation(server, ctx, patchPlan, setDisabled, receiver, floorBody, rate);
    let spread = null;
    let spreadA = null;
    if (spreadPlan) {
      spreadA = {
        individuals: spreadPlan.individuals,
        ...(await plainStorm(server, ctx, spreadPlan, `${spreadPlan.name}, webhook disabled (A')`)),
      };
      await setDisabled(false);
      const run = spreadPlan.again(`${spreadPlan.name}, webhook on (B')`);
      spread = {
        individuals: spreadPlan.individuals,
        ...(await stormWithWebhook(server, ctx, receiver, webhook.id, run, await feedHead(server, ctx))),
      };
    }
    const counts = await receiver.counts();
    const { rows: deliveries } = await ctx.sql.query(
      `SELECT state, count(*)::int AS n, count(*) FILTER (WHERE attempts > 1)::int AS retried
       FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY state ORDER BY state`,
      [webhook.id],
    );
    const receiverFloorPerSecond = await receiver.floor(floorBody, Math.min(5, consentOpts.seconds), FLOOR_CONNECTIONS);
    const gone = await call(server.base, 'DELETE', `${org}/webhooks/${webhook.id}`, { token });
    log(
      `events: signatures verified ${counts.verified}, bad ${counts.badSignatures}; receiver floor ` +
        `${receiverFloorPerSecond} POST/s; webhook deleted (${gone.status})`,
    );
    // A webhook left behind would be sent the feed's generated events (consent-feed.mjs) during the feed read.
    const deleted = gone.status >= 200 && gone.status < 300;
    const ok = main.ok && (spread?.ok ?? true) && counts.badSignatures === 0 && counts.verified > 0 && deleted;
    return {
      status: ok ? 'measured' : 'FAILED',
      reason: ok ? null : deleted ? 'a check failed: see checks' : `DELETE webhook answered ${gone.status}`,
      webhook: { id: webhook.id, subscribedEvents: webhook.subscribedEvents, feedHeadAtCreation: Number(lastSeq) },
      ...main,
      stormA2,
      alternated,
      spreadA,
      spread,
      receiver: {
        deliveries: counts.deliveries,
        distinct: counts.distinct,
        signaturesVerified: counts.verified,
        badSignatures: counts.badSignatures,
        sampleBadSignature: counts.sampleBadSignature,
        unparsable: counts.unparsable,
      },
      deliveriesByState: deliveries,
      receiverFloorPerSecond,
      receiverFloorConnections: FLOOR_CONNECTIONS,
      deletedStatus: gone.status,
    };
  } finally {
    await receiver.stop();
  }
}

/**
 * Runs (g).
 * @param {{base: string}} server  the Assent server (started with ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS=127.0.0.1)
 * @param {import('./consent-measures.mjs').Ctx} ctx
 * @param patchPlan  from planPatch (consent-patch.mjs): its individuals, logged in
 * @returns `{stormA, eventsA, floor, webhook: {...}, ratio, goals, feed, check}` (floor: event-floor.mjs)
 */
export async function eventsMeasures(server, ctx, patchPlan) {
  // The first storm after the server's start runs up to a third slower than the next ones here (BENCH_EVENTS_ONLY=1):
  // one unmeasured storm first, so that A is not that one.
  const w = patchPlan.again('PATCH one attribute, no webhook, warm-up, not counted (W)');
  log(`measure: ${w.spec.name} (${WARM_UP_SECONDS} s)`);
  await fromCheckpoint(ctx);
  await measureOne(server, w.spec, { seconds: WARM_UP_SECONDS, warmupSeconds: 0 });
  await w.verify();
  const a = patchPlan.again('PATCH one attribute, no webhook (A)');
  log(`measure: ${a.spec.name} (${consentOpts.warmupSeconds} s warm-up + ${consentOpts.seconds} s)`);
  await fromCheckpoint(ctx);
  const stormA = await measureOne(server, a.spec);
  const eventsA = await a.verify();
  // A' and B': the same storms spread over more individuals (webhook lanes), when BENCH_EVENTS_SPREAD > 0.
  let spreadPlan = null;
  if (consentOpts.eventsSpread > 0) {
    spreadPlan = await planSpread(ctx, consentOpts.eventsSpread);
    spreadPlan.name = `PATCH one attribute, ${consentOpts.eventsSpread} individuals per connection, Owner's API key`;
  }
  // Each storm with the webhook runs between two without it (A, B, A2; A', B', A'2), and its ratio is over their
  // mean: the rates without a webhook drift by up to a fifth over a run on this kind of machine, and a storm's
  // neighbours share its conditions best.
  const webhook = await webhookStorms(server, ctx, patchPlan, spreadPlan);
  const stormA2 = webhook.stormA2 ?? null;
  const spreadA = webhook.spreadA ?? null;
  const spreadA2 =
    webhook.spread && spreadPlan
      ? await plainStorm(server, ctx, spreadPlan, `${spreadPlan.name}, no webhook (A'2)`)
      : null;
  const baseline = (stormA.okPerSecond + (stormA2?.storm.okPerSecond ?? stormA.okPerSecond)) / 2;
  const floor = await logRowFloor(server, ctx, patchPlan, baseline);
  const over = (b, ...as) => {
    const mean = as.reduce((sum, a) => sum + a.okPerSecond, 0) / as.length;
    return b && mean > 0 ? r2(b.okPerSecond / mean) : null;
  };
  const ratio = stormA2 ? over(webhook.storm, stormA, stormA2.storm) : null;
  const spreadRatio = spreadA2 ? over(webhook.spread.storm, spreadA.storm, spreadA2.storm) : null;
  const ratios = {
    beforeOnly: over(webhook.storm, stormA),
    afterOnly: stormA2 ? over(webhook.storm, stormA2.storm) : null,
    spreadBeforeOnly: spreadA ? over(webhook.spread?.storm, spreadA.storm) : null,
    spreadAfterOnly: spreadA2 ? over(webhook.spread.storm, spreadA2.storm) : null,
  };
  if (ratio !== null)
    log(
      `events: PATCH/s with the webhook ÷ without (mean of the storms before and after): ${ratio} (B/A), ` +
        `${spreadRatio} (B'/A'); against before only ${ratios.beforeOnly}, ` +
        `${ratios.spreadBeforeOnly}; after only ${ratios.afterOnly}, ${ratios.spreadAfterOnly}`,
    );
  await fromCheckpoint(ctx);
  const feed = await feedMeasure(server, ctx);
  await fromCheckpoint(ctx);
  const check = await checkMeasure(server, ctx);
  return {
    stormA,
    eventsA,
    stormA2,
    floor,
    spreadA,
    spreadA2,
    webhook,
    ratio,
    spreadRatio,
    ratios,
    goals: {
      ratio: CONSENT_GOALS.webhookPatchRatio,
      latencyP99Ms: CONSENT_GOALS.eventLatencyP99Ms,
      backlogMaxSeconds: CONSENT_GOALS.backlogMaxSeconds,
      backlogSlopeFraction: CONSENT_GOALS.backlogSlopeFraction,
      feedEventsPerSecond: CONSENT_GOALS.feedEventsPerSecond,
      checkP99Ms: CONSENT_GOALS.checkP99Ms,
    },
    feed,
    check,
  };
}
