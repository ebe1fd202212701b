/**
 * SQL of sealing: chaining an organisation's unsealed consent events after its chain head
 * (docs/decisions/0005-consent-evidence.md "Tamper evidence"; src/consent/evidence/sealer.ts runs it).
 */
import { eq, sql } from 'drizzle-orm';
import { distinctLeading } from '../../platform/db/loose-scan.js';
import { type Executor, rowsOf } from '../../platform/db/open.js';
import { consentChainHeads, consentEventQueue, consentEvents } from '../../platform/db/schema/index.js';
import { GENESIS_LINK, type SealedEvent } from './chain.js';
import type { EventRow } from './store.js';

/**
 * Locks the organisation's chain head until the transaction ends (creating it at the genesis link
 * on first use): sealers of every process take their turn on this row.
 * @returns the seq and link of the last sealed event.
 */
export async function lockChainHead(tx: Executor, orgId: string): Promise<{ seq: number; link: Buffer }> {
  const [head] = await tx
    .insert(consentChainHeads)
    .values({ orgId, seq: 0, link: GENESIS_LINK })
    .onConflictDoUpdate({ target: consentChainHeads.orgId, set: { seq: sql`${consentChainHeads.seq}` } })
    .returning({ seq: consentChainHeads.seq, link: consentChainHeads.link });
  return head!;
}

/**
 * The organisation's queued (unsealed) events in the order they were written, at most `limit`;
 * committed ones only, as any read sees them.
 * @param limit - count.
 */
export async function unsealedEvents(tx: Executor, orgId: string, limit: number): Promise<EventRow[]> {
  const rows = await tx
    .select({ e: consentEvents })
    .from(consentEventQueue)
    .innerJoin(consentEvents, eq(consentEvents.id, consentEventQueue.eventId))
    .where(eq(consentEventQueue.orgId, orgId))
    .orderBy(consentEventQueue.written)
    .limit(limit);
  return rows.map((r) => r.e);
}

/**
 * Stores the seals of `events` and takes them off the queue (one statement), then moves the head to
 * the last of them. The seals travel as one JSON parameter: a multi-row VALUES of 1000 events
 * would carry 5000 parameters.
 * @param events - sealed in chain order, all of one organisation.
 * @param written - each event's `written` (its key in the queue), in the same order.
 */
export async function storeSeals(tx: Executor, orgId: string, events: SealedEvent[], written: number[]): Promise<void> {
  const last = events.at(-1);
  if (!last) return;
  const seals = JSON.stringify(
    events.map((e, i) => ({
      seq: e.seq,
      w: written[i],
      id: e.id,
      h: e.contentHash.toString('hex'),
      p: e.prevLink.toString('hex'),
      l: e.link.toString('hex'),
    })),
  );
  await tx.execute(sql`
    WITH v AS (SELECT * FROM json_to_recordset(${seals}::json)
      AS v(seq bigint, w bigint, id uuid, h text, p text, l text)),
    sealed AS (
      INSERT INTO consent_event_seals (org_id, seq, event_id, content_hash, prev_link, link)
      SELECT ${orgId}::uuid, seq, id, decode(h, 'hex'), decode(p, 'hex'), decode(l, 'hex') FROM v
    )
    DELETE FROM consent_event_queue q USING v WHERE q.org_id = ${orgId}::uuid AND q.written = v.w`);
  await tx.execute(sql`UPDATE consent_chain_heads SET seq = ${last.seq}, link = ${last.link} WHERE org_id = ${orgId}`);
}

/**
 * Whether the organisation has committed unsealed events (its rows in the queue), as "the first by `written`", so
 * that PostgreSQL probes the queue's key whatever its statistics say (an `EXISTS` may be planned as a scan of every
 * row version the queue's churn left; src/platform/events/numbering.ts `hasUnsequenced`).
 */
export async function hasUnsealed(db: Executor, orgId: string): Promise<boolean> {
  const result = await db.execute(
    sql`SELECT 1 AS any FROM consent_event_queue WHERE org_id = ${orgId} ORDER BY written LIMIT 1`,
  );
  return rowsOf(result).length > 0;
}

/** The organisations that have unsealed events (in the queue): one probe of the queue's key per organisation found. */
export function organisationsWithUnsealed(db: Executor): Promise<string[]> {
  return distinctLeading(db, { table: 'consent_event_queue', key: 'org_id', next: 'written' });
}
