/**
 * SQL of the sequencer (src/platform/events/sequencer.ts): numbering an organisation's committed outbox events
 * after its feed head, under the head's row lock.
 */
import { sql } from 'drizzle-orm';
import { distinctLeading } from '../db/loose-scan.js';
import { type Executor, rowsOf } from '../db/open.js';

/**
 * Locks the organisation's feed head until the transaction ends (creating it at 0 on first use): sequencers of every
 * process take their turn on this row.
 * @returns the last seq given (0 before the first).
 */
export async function lockHead(tx: Executor, orgId: string): Promise<number> {
  const result = await tx.execute(sql`INSERT INTO organisation_event_heads (org_id, seq) VALUES (${orgId}, 0)
    ON CONFLICT (org_id) DO UPDATE SET seq = organisation_event_heads.seq RETURNING seq`);
  return Number(rowsOf<{ seq: number | string }>(result)[0]!.seq);
}

/**
 * Numbers up to `limit` of the organisation's committed unnumbered events that are not held, after `head`, in `pos`
 * order, and moves the
 * head to the last of them (one statement each). Run it holding `lockHead`'s lock, so that no other sequencer numbers
 * the same rows; the statement's snapshot, taken after the lock, holds every event committed before it.
 * @param head - the seq `lockHead` returned.
 * @param limit - count.
 * @returns how many were numbered (count).
 */
export async function numberEvents(tx: Executor, orgId: string, head: number, limit: number): Promise<number> {
  const result = await tx.execute(sql`WITH next AS (
      SELECT id, ${head}::bigint + row_number() OVER (ORDER BY pos) AS seq FROM (
        SELECT id, pos FROM organisation_events WHERE org_id = ${orgId} AND seq IS NULL AND NOT held
          ORDER BY pos LIMIT ${limit}
      ) AS u
    )
    UPDATE organisation_events e SET seq = next.seq FROM next WHERE e.id = next.id RETURNING e.seq`);
  const seqs = rowsOf<{ seq: number | string }>(result).map((r) => Number(r.seq));
  if (seqs.length === 0) return 0;
  await tx.execute(sql`UPDATE organisation_event_heads SET seq = ${Math.max(...seqs)} WHERE org_id = ${orgId}`);
  return seqs.length;
}

/**
 * Whether the organisation has committed unnumbered events that are not held. Written as "the first by `pos`" so that
 * PostgreSQL walks the partial index `organisation_events_unsequenced` whatever its statistics say: as an `EXISTS`, a
 * planner that believed many rows match (statistics older than a burst of events, every one of which passes through
 * that state) chose a sequential scan of all the organisation's events, 85-115 ms at 116,000 events, on every feed
 * page and sequencer wake.
 */
export async function hasUnsequenced(db: Executor, orgId: string): Promise<boolean> {
  const result = await db.execute(sql`SELECT 1 AS any FROM organisation_events
    WHERE org_id = ${orgId} AND seq IS NULL AND NOT held ORDER BY pos LIMIT 1`);
  return rowsOf(result).length > 0;
}

/**
 * The organisations that have committed unnumbered events that are not held: one probe of the partial index per
 * organisation found (`distinctLeading`), never a scan of the table, for the same reason as `hasUnsequenced`.
 */
export function organisationsWithUnsequenced(db: Executor): Promise<string[]> {
  return distinctLeading(db, {
    table: 'organisation_events',
    key: 'org_id',
    next: 'pos',
    where: sql`seq IS NULL AND NOT held`,
  });
}
