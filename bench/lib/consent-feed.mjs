/**
 * The feed read of (g) (consent-events.mjs): the organisation's change feed (docs/events.md "The feed",
 * `GET /v1/organizations/{org}/events?limit=1000`) read from the start by the Owner, one page at a time, following
 * `Links.Next` until it is absent: events/s over the whole read (and without the reader's own JSON.parse of the pages,
 * timed apart). The pages are checked: `sequence` strictly increasing across pages, and as many events as the outbox
 * holds numbered.
 *
 * When the feed holds fewer than BENCH_FEED_EVENTS (100,000) events, more are generated first, in SQL: copies of the
 * consent events the PATCH storms wrote (type, subject, time, data; a new ID, also as `HistoryEventID`), numbered
 * after the feed's head under the head's row lock as the sequencer numbers (src/platform/events/numbering.ts). They
 * are read like any other row; no webhook exists then (consent-events.mjs deletes it first), so none is delivered.
 *
 * Floors, in the bench process on the same pages: the product's own feed statement (`eventsAfter`,
 * dist/notifications/events/store.js, through Drizzle on node-postgres) alone, and with each row built into its
 * CloudEvent (`cloudEventOf`, as the server does) and the page serialised with JSON.stringify.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { consentOpts } from './consent-config.mjs';
import { call } from './consent-http.mjs';
import { latencySummary } from './event-delivery.mjs';
import { assertLocal, log, r1 } from './util.mjs';

/** The feed's largest page (docs/events.md). */
const FEED_LIMIT = 1000;

/**
 * Adds `count` copies of the organisation's numbered consent events, numbered after the head, in one transaction.
 * @returns how many were added (0 when there is no consent event to copy).
 */
async function fillFeed(url, orgId, count) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const {
      rows: [{ n: sources }],
    } = await client.query(
      `SELECT count(*)::int AS n FROM organisation_events
       WHERE org_id = $1 AND seq IS NOT NULL AND type LIKE 'consent.%'`,
      [orgId],
    );
    if (sources === 0) return 0;
    await client.query('BEGIN');
    const head = Number(
      (
        await client.query(
          `INSERT INTO organisation_event_heads (org_id, seq) VALUES ($1, 0)
           ON CONFLICT (org_id) DO UPDATE SET seq = organisation_event_heads.seq RETURNING seq`,
          [orgId],
        )
      ).rows[0].seq,
    );
    // The copies cycle over the consent events already numbered (`rn`); an equality join, so a hash join.
    const { rowCount } = await client.query(
      `WITH src AS (
         SELECT type, subject, occurred_at, data, row_number() OVER (ORDER BY seq) AS rn
         FROM organisation_events WHERE org_id = $1 AND seq IS NOT NULL AND type LIKE 'consent.%'),
       total AS (SELECT count(*) AS n FROM src),
       gen AS (
         SELECT g, gen_random_uuid() AS id, (g - 1) % (SELECT n FROM total) + 1 AS rn
         FROM generate_series(1, $2::int) AS g)
       INSERT INTO organisation_events (id, org_id, seq, type, subject, occurred_at, data)
       SELECT gen.id, $1, $3::bigint + gen.g, src.type, src.subject, src.occurred_at,
         jsonb_set(src.data, '{HistoryEventID}', to_jsonb(gen.id::text))
       FROM gen JOIN src ON src.rn = gen.rn`,
      [orgId, count, head],
    );
    await client.query('UPDATE organisation_event_heads SET seq = $2 WHERE org_id = $1', [orgId, head + rowCount]);
    await client.query('COMMIT');
    await client.query('VACUUM (ANALYZE) organisation_events');
    return rowCount;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}

/** Reads the whole feed through the product's statement (and, with `build`, makes each page's JSON). */
async function floorRead(db, store, orgId, build) {
  let after = 0;
  let events = 0;
  const started = performance.now();
  for (;;) {
    const rows = await store.eventsAfter(db, orgId, after, FEED_LIMIT, undefined);
    if (build) JSON.stringify({ Events: rows.map(build) });
    events += rows.length;
    if (rows.length < FEED_LIMIT) break;
    after = rows.at(-1).seq;
  }
  const seconds = (performance.now() - started) / 1000;
  return { events, seconds: r1(seconds), eventsPerSecond: r1(events / seconds) };
}

/** The floors: the feed's SQL alone, then with the CloudEvents built and serialised. */
async function floors(url, orgId) {
  const schema = await import('../../dist/platform/db/schema/index.js');
  const store = await import('../../dist/notifications/events/store.js');
  const { cloudEventOf, eventSource } = await import('../../dist/notifications/events/service.js');
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => {}); // an idle client lost: the next query fails instead
  const db = drizzle(pool, { schema });
  try {
    const sqlAlone = await floorRead(db, store, orgId, null);
    const source = eventSource('http://127.0.0.1', orgId);
    const withCloudEvents = await floorRead(db, store, orgId, (row) => cloudEventOf(row, source));
    return { sqlAlone, withCloudEvents };
  } finally {
    await pool.end();
  }
}

/**
 * Reads the whole feed through the server, following `Links.Next`.
 * @returns the counts, the pages' times (request to the end of the body) and the reader's JSON.parse time.
 */
async function readFeed(server, org, token) {
  const out = { events: 0, bytes: 0, pages: 0, outOfOrder: 0, failure: null, pageMs: [], parseMs: 0 };
  let path = `${org}/events?limit=${FEED_LIMIT}`;
  let lastSequence = '';
  const started = performance.now();
  while (path) {
    const url = new URL(path, server.base);
    assertLocal(url.toString(), 'feed URL');
    const t = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    const received = performance.now();
    out.pageMs.push(received - t);
    if (res.status !== 200) {
      out.failure = `GET ${path} answered ${res.status} ${text.slice(0, 300)}`;
      break;
    }
    const page = JSON.parse(text);
    out.parseMs += performance.now() - received;
    out.pages++;
    out.bytes += Buffer.byteLength(text);
    for (const e of page.Events) {
      if (e.sequence <= lastSequence) out.outOfOrder++;
      lastSequence = e.sequence;
    }
    out.events += page.Events.length;
    const next = page.Links?.Next;
    // Next is absolute on ASSENT_PUBLIC_URL; its path and query go to the server under test.
    path = next ? `${new URL(next).pathname}${new URL(next).search}` : null;
  }
  out.seconds = (performance.now() - started) / 1000;
  return out;
}

/**
 * Step 3 of (g): the feed read, and its floors.
 * @param {{base: string}} server
 * @param {import('./consent-measures.mjs').Ctx & {url: string}} ctx
 */
export async function feedMeasure(server, ctx) {
  const org = `/v1/organizations/${ctx.orgId}`;
  const token = ctx.owner.access;
  // A first page flushes the sequencer: everything committed is numbered before the count.
  const probe = await call(server.base, 'GET', `${org}/events?limit=1`, { token });
  if (probe.status === 404)
    return { status: 'SKIPPED (endpoint not present)', reason: `GET ${org}/events answered 404` };
  const count = async () =>
    Number(
      (
        await ctx.sql.query('SELECT count(*) AS n FROM organisation_events WHERE org_id = $1 AND seq IS NOT NULL', [
          ctx.orgId,
        ])
      ).rows[0].n,
    );
  const before = await count();
  let generated = 0;
  if (before < consentOpts.feedEvents) {
    const t = performance.now();
    generated = await fillFeed(ctx.url, ctx.orgId, consentOpts.feedEvents - before);
    log(
      `feed: ${before} events in the feed; ${generated} copies added in SQL in ${r1((performance.now() - t) / 1000)} s`,
    );
  }
  const expected = await count();

  log(`measure: the feed read from the start, pages of ${FEED_LIMIT}, Owner token (${expected} events)`);
  const read = await readFeed(server, org, token);
  const { events, pages, outOfOrder, failure, seconds } = read;
  const floor = await floors(ctx.url, ctx.orgId);
  const ok = failure === null && outOfOrder === 0 && events === expected;
  const result = {
    status: ok ? 'measured' : 'FAILED',
    reason: failure ?? (ok ? null : `read ${events} of ${expected} events, ${outOfOrder} out of order`),
    eventsInFeedBefore: before,
    generatedInSql: generated,
    expected,
    events,
    pages,
    megabytes: r1(read.bytes / 2 ** 20),
    seconds: r1(seconds),
    eventsPerSecond: r1(events / seconds),
    // The reader's own JSON.parse of the pages, inside `seconds`; the rest is the server and the transfer.
    clientParseSeconds: r1(read.parseMs / 1000),
    eventsPerSecondWithoutParse: r1(events / (seconds - read.parseMs / 1000)),
    pageMs: latencySummary(read.pageMs),
    outOfOrder,
    floor,
  };
  log(
    `feed: ${result.status}: ${events} events in ${pages} pages (${result.megabytes} MiB) in ${result.seconds} s = ` +
      `${result.eventsPerSecond} events/s (${result.eventsPerSecondWithoutParse} without the reader's JSON.parse), ` +
      `page p50 ${result.pageMs.p50} ms p99 ${result.pageMs.p99} ms; floors: SQL alone ` +
      `${floor.sqlAlone.eventsPerSecond}/s, SQL + CloudEvents + JSON ${floor.withCloudEvents.eventsPerSecond}/s`,
  );
  return result;
}
