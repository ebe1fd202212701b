/**
 * SQL of sealing: chaining an organisation's unsealed consent events after its chain head (issue #3
 * "Tamper evidence"; src/consent/sealer.ts runs it).
 */
import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../db/open.js';
import { consentChainHeads, consentEvents } from '../db/schema.js';
import { GENESIS_LINK, type SealedEvent } from './evidence.js';
import type { EventRow } from './evidence-store.js';

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
 * The organisation's unsealed events in the order they were written, at most `limit`; committed ones only,
 * as any read sees them.
 * @param limit - count.
 */
export async function unsealedEvents(tx: Executor, orgId: string, limit: number): Promise<EventRow[]> {
  return tx
    .select()
    .from(consentEvents)
    .where(sql`${consentEvents.orgId} = ${orgId} AND ${consentEvents.seq} IS NULL`)
    .orderBy(consentEvents.written)
    .limit(limit);
}

/**
 * Stores the seals of `events` (one statement) and moves the head to the last of them.
 * @param events - sealed in chain order, all of one organisation.
 */
export async function storeSeals(tx: Executor, orgId: string, events: SealedEvent[]): Promise<void> {
  const last = events.at(-1);
  if (!last) return;
  const values = sql.join(
    events.map((e) => sql`(${e.id}::uuid, ${e.seq}::bigint, ${e.contentHash}::bytea, ${e.prevLink}::bytea, ${e.link}::bytea)`),
    sql`, `,
  );
  await tx.execute(sql`
    UPDATE consent_events e SET seq = v.seq, content_hash = v.content_hash, prev_link = v.prev_link, link = v.link
    FROM (VALUES ${values}) AS v(id, seq, content_hash, prev_link, link)
    WHERE e.id = v.id AND e.seq IS NULL`);
  await tx.execute(sql`UPDATE consent_chain_heads SET seq = ${last.seq}, link = ${last.link} WHERE org_id = ${orgId}`);
}

/** Whether the organisation has committed unsealed events (the `consent_events_unsealed` index). */
export async function hasUnsealed(db: Executor, orgId: string): Promise<boolean> {
  const result = await db.execute(sql`SELECT EXISTS (SELECT 1 FROM consent_events WHERE org_id = ${orgId} AND seq IS NULL) AS any`);
  return Boolean(rowsOf<{ any: boolean }>(result)[0]?.any);
}

/** The organisations that have unsealed events (the `consent_events_unsealed` index). */
export async function organisationsWithUnsealed(db: Executor): Promise<string[]> {
  const result = await db.execute(sql`SELECT DISTINCT org_id FROM consent_events WHERE seq IS NULL`);
  return rowsOf<{ org_id: string }>(result).map((r) => r.org_id);
}
