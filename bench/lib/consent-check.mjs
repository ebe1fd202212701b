/**
 * The bulk check of (g) (consent-events.mjs): `POST /v1/organizations/{org}/consents/check` (docs/api.md "Bulk consent
 * check") by the Owner, each with CHECK_USERS (1000, the most one check takes) individuals sampled at random from
 * the organisation's subscriptions (a different set per request, cycling) and CHECK_ATTRIBUTES of a consent purpose's
 * attributes. Sequential, one in flight: BENCH_CHECK_WARMUP (20) unmeasured, then BENCH_CHECK_REQUESTS (200)
 * measured, each timed from the request to the end of the answer's body. The first answer is checked: one entry per
 * individual, each subscribed, with the attributes asked.
 *
 * Its floor: the product's statement of the check (`readCheck`, dist/consent/listings/check-store.js, through Drizzle
 * on node-postgres) alone, in the bench process, on the same sets; and EXPLAIN (ANALYZE, BUFFERS) of that statement
 * as Drizzle sends it (captured by its logger; an unnamed statement, so a custom plan, as on the server).
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { consentOpts } from './consent-config.mjs';
import { call } from './consent-http.mjs';
import { latencySummary } from './event-delivery.mjs';
import { log, r2 } from './util.mjs';

/** Individuals per check: the most one check takes (docs/api.md). */
const CHECK_USERS = 1000;
/** Attributes asked per check. */
const CHECK_ATTRIBUTES = 3;
/** Distinct sets of individuals the requests cycle through. */
const SETS = 20;
/** Runs of the statement alone (the first FLOOR_WARMUP unmeasured). */
const FLOOR_RUNS = 50;
const FLOOR_WARMUP = 5;

/** SETS sets of CHECK_USERS subscribed individuals drawn at random (fewer sets on a small dataset). */
async function userSets(ctx) {
  const want = CHECK_USERS * SETS;
  const { rows: counted } = await ctx.sql.query('SELECT count(*)::int AS n FROM subscriptions WHERE org_id = $1', [
    ctx.orgId,
  ]);
  const percent = Math.min(100, ((want * 1.2) / Math.max(1, counted[0].n)) * 100);
  const { rows } = await ctx.sql.query(
    `SELECT user_id FROM subscriptions TABLESAMPLE BERNOULLI ($2) WHERE org_id = $1 ORDER BY random() LIMIT $3`,
    [ctx.orgId, percent, want],
  );
  const ids = rows.map((r) => r.user_id);
  const sets = [];
  for (let k = 0; k + CHECK_USERS <= ids.length; k += CHECK_USERS) sets.push(ids.slice(k, k + CHECK_USERS));
  if (sets.length === 0) throw new Error(`only ${ids.length} subscribed individuals for a check of ${CHECK_USERS}`);
  return sets;
}

/** The floor and the plan of the check's statement. */
async function statementFloor(ctx, sets, purposeId, attributeIds) {
  const schema = await import('../../dist/platform/db/schema/index.js');
  const { readCheck } = await import('../../dist/consent/listings/check-store.js');
  const {
    rows: [{ catalogue_version: catalogueVersion }],
  } = await ctx.sql.query('SELECT catalogue_version FROM organisations WHERE id = $1', [ctx.orgId]);
  const pool = new pg.Pool({ connectionString: ctx.url, max: 1 });
  pool.on('error', () => {}); // an idle client lost: the next query fails instead
  const captured = [];
  const db = drizzle(pool, { schema, logger: { logQuery: (query, params) => captured.push({ query, params }) } });
  const query = (i) => ({
    orgId: ctx.orgId,
    catalogueVersion: Number(catalogueVersion),
    purposeId,
    attributeIds,
    userIds: sets[i % sets.length],
  });
  try {
    const ms = [];
    for (let i = 0; i < FLOOR_RUNS; i++) {
      const t = performance.now();
      const found = await readCheck(db, query(i));
      if (i >= FLOOR_WARMUP) ms.push(performance.now() - t);
      if (!found || found === 'stale') throw new Error(`readCheck answered ${found}`);
    }
    const { query: text, params } = captured.at(-1);
    const client = await pool.connect();
    try {
      await client.query('SET jit = off'); // as on the server's connections (src/platform/db/open.ts)
      const plan = (await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, params)).rows[0][
        'QUERY PLAN'
      ][0];
      const textPlan = (await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)).rows.map(
        (r) => r['QUERY PLAN'],
      );
      return {
        statementMs: latencySummary(ms),
        explain: {
          executionMs: r2(plan['Execution Time']),
          planningMs: r2(plan['Planning Time']),
          sharedHitBlocks: plan.Plan['Shared Hit Blocks'] ?? null,
          sharedReadBlocks: plan.Plan['Shared Read Blocks'] ?? null,
          plan: textPlan,
        },
      };
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}

/**
 * Step 4 of (g): the bulk check, and its floor.
 * @param {{base: string}} server
 * @param {import('./consent-measures.mjs').Ctx & {url: string}} ctx
 */
export async function checkMeasure(server, ctx) {
  const path = `/v1/organizations/${ctx.orgId}/consents/check`;
  const token = ctx.owner.access;
  const purpose = ctx.dataset.purposes.find((p) => !p.lawful);
  const attributeIds = purpose.attributeIds.slice(0, CHECK_ATTRIBUTES);
  const sets = await userSets(ctx);
  const bodies = sets.map((userids) => ({ userids, purposeid: purpose.id, attributeids: attributeIds }));
  const first = await call(server.base, 'POST', path, { token, body: bodies[0] });
  if (first.status === 404)
    return {
      status: 'SKIPPED (endpoint not present)',
      reason: `POST ${path} answered 404 ${first.text.slice(0, 200)}`,
    };
  if (first.status !== 200)
    return { status: 'FAILED', reason: `POST consents/check answered ${first.status} ${first.text.slice(0, 300)}` };
  const individuals = first.json.Individuals;
  const shapeOk =
    individuals.length === sets[0].length &&
    individuals.every((i) => i.Subscribed && i.Attributes.length === attributeIds.length);
  log(
    `measure: bulk check of ${sets[0].length} individuals x ${attributeIds.length} attributes of "${purpose.name}", ` +
      `sequential (${consentOpts.checkWarmup} warm-up + ${consentOpts.checkRequests}), ${sets.length} sets`,
  );
  const ms = [];
  let failures = 0;
  let lastFailure = null;
  const total = consentOpts.checkWarmup + consentOpts.checkRequests;
  for (let i = 0; i < total; i++) {
    const t = performance.now();
    const res = await call(server.base, 'POST', path, { token, body: bodies[i % bodies.length] });
    const elapsed = performance.now() - t;
    if (res.status !== 200) {
      failures++;
      lastFailure = `${res.status} ${res.text.slice(0, 200)}`;
    } else if (i >= consentOpts.checkWarmup) ms.push(elapsed);
  }
  const latencyMs = latencySummary(ms);
  const floor = await statementFloor(ctx, sets, purpose.id, attributeIds);
  const ok = shapeOk && failures === 0;
  const result = {
    status: ok ? 'measured' : 'FAILED',
    reason: ok
      ? null
      : shapeOk
        ? `${failures} failed requests (${lastFailure})`
        : 'the answer does not match the request',
    individualsPerCheck: sets[0].length,
    attributes: attributeIds.length,
    purpose: purpose.name,
    sets: sets.length,
    requests: ms.length,
    warmup: consentOpts.checkWarmup,
    bodyBytes: Buffer.byteLength(JSON.stringify(bodies[0])),
    answerBytes: Buffer.byteLength(first.text),
    latencyMs,
    failures,
    floor,
  };
  log(
    `check: ${result.status}: p50 ${latencyMs.p50} ms, p99 ${latencyMs.p99} ms, max ${latencyMs.max} ms; ` +
      `statement alone p50 ${floor.statementMs.p50} ms p99 ${floor.statementMs.p99} ms; ` +
      `EXPLAIN ANALYZE ${floor.explain.executionMs} ms (planning ${floor.explain.planningMs} ms)`,
  );
  return result;
}
