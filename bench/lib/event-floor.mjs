/**
 * The floor of (g)'s B/A (consent-events.mjs): the PATCH storm of A again while each consent change also writes, in
 * its own transaction, one row the size of a delivery log entry (an attempt with its request and response headers,
 * docs/events.md "The deliveries log"), by a trigger on the outbox. Nothing is sent, leased or settled, and no other
 * transaction commits: it is the least any design that durably logs each delivery in the same PostgreSQL adds to a
 * change, so L/A (over the mean of A and A2) bounds B/A from above on this machine. The trigger and its table are removed afterwards.
 */
import { measureOne } from './consent-cannon.mjs';
import { consentOpts } from './consent-config.mjs';
import { log, r2 } from './util.mjs';

const CREATE = [
  `CREATE TABLE bench_floor_log (id uuid PRIMARY KEY, ord bigserial, webhook_id uuid NOT NULL, event_id uuid NOT NULL,
     state text NOT NULL, attempt_log jsonb NOT NULL)`,
  'CREATE INDEX bench_floor_log_ord ON bench_floor_log (webhook_id, ord)',
  `CREATE FUNCTION bench_floor_log_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
     INSERT INTO bench_floor_log (id, webhook_id, event_id, state, attempt_log) VALUES (gen_random_uuid(),
       '00000000-0000-0000-0000-000000000000', NEW.id, 'succeeded', jsonb_build_array(jsonb_build_object(
         'attempt', 1, 'at', now(), 'durationMs', 7, 'status', 204, 'error', null,
         'requestHeaders', jsonb_build_object('content-type', 'application/json', 'user-agent', 'Assent-Webhooks/1',
           'webhook-id', NEW.id, 'webhook-timestamp', extract(epoch FROM now())::bigint::text,
           'webhook-signature', 'v1,' || left(md5(random()::text) || md5(random()::text), 44)),
         'responseHeaders', jsonb_build_object('date', to_char(now(), 'Dy, DD Mon YYYY HH24:MI:SS "GMT"'),
           'connection', 'keep-alive', 'keep-alive', 'timeout=5'))));
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER bench_floor_log AFTER INSERT ON organisation_events FOR EACH ROW
     WHEN (NEW.type LIKE 'consent.%') EXECUTE FUNCTION bench_floor_log_row()`,
];
const DROP = [
  'DROP TRIGGER IF EXISTS bench_floor_log ON organisation_events',
  'DROP FUNCTION IF EXISTS bench_floor_log_row()',
  'DROP TABLE IF EXISTS bench_floor_log',
];

/**
 * Puts the log-row trigger in place (storm L, and storm f of the alternation, consent-events.mjs).
 * @param sql - a pg client on the bench database.
 */
export async function installLogRow(sql) {
  for (const q of CREATE) await sql.query(q);
}

/**
 * Removes the log-row trigger, its function and its table (none is left behind, also when it was never installed).
 * @param sql - a pg client on the bench database.
 */
export async function removeLogRow(sql) {
  for (const q of DROP) await sql.query(q);
}

/**
 * Starts a PostgreSQL checkpoint and waits for it, before each storm of (g): after a checkpoint, the first change of
 * each page writes the whole page to the WAL, which slowed the storms after the ones PostgreSQL started by itself
 * (every ~500 MiB of WAL, about every 90 s here) by up to a third; from a checkpoint each, every storm starts alike,
 * and none is long enough to reach the next one.
 */
export async function fromCheckpoint(ctx) {
  await ctx.sql.query('CHECKPOINT');
}

/**
 * Storm L: A's storm with the log-row trigger in place.
 * @param ctx - `{sql}`: a pg client on the bench database.
 * @param patchPlan - consent-patch.mjs's plan of A.
 * @param baselinePerSecond - the PATCH/s without a webhook that L is divided by (the mean of A and A2).
 * @returns `{storm, events, ratio, rowBytes}`: L's storm, its event check, L/A, and the average size of a logged row
 *   (bytes, `pg_column_size`).
 */
export async function logRowFloor(server, ctx, patchPlan, baselinePerSecond) {
  const run = patchPlan.again('PATCH one attribute, no webhook, one delivery-log-sized row per change (L)');
  await installLogRow(ctx.sql);
  try {
    log(`measure: ${run.spec.name} (${consentOpts.warmupSeconds} s warm-up + ${consentOpts.seconds} s)`);
    await fromCheckpoint(ctx);
    const storm = await measureOne(server, run.spec);
    const events = await run.verify();
    const { rows } = await ctx.sql.query('SELECT avg(pg_column_size(t.*))::int AS bytes FROM bench_floor_log t');
    const ratio = baselinePerSecond > 0 ? r2(storm.okPerSecond / baselinePerSecond) : null;
    log(`events: L/A = ${ratio} (the floor of B/A), rows of ${rows[0].bytes} bytes`);
    return { storm, events, ratio, rowBytes: rows[0].bytes };
  } finally {
    await removeLogRow(ctx.sql);
  }
}
