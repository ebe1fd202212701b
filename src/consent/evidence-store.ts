/** SQL of the consent history: the per-organisation chain head and the events. */
import { and, asc, desc, eq, gt, gte, lt, lte, sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../db/open.js';
import { consentChainHeads, consentEvents } from '../db/schema.js';
import { v7 as uuidv7 } from 'uuid';
import { type EventDraft, GENESIS_LINK, type SealedEvent, seal } from './evidence.js';
import type { ConsentRow } from './store.js';
import type { ConsentValue } from './values.js';

/**
 * Locks the organisation's chain head until the transaction ends (creating it at the genesis link
 * on first use), so appends are numbered and linked one after the other.
 * @returns the seq and link of the last event.
 */
async function lockChainHead(tx: Executor, orgId: string): Promise<{ seq: number; link: Buffer }> {
  const [head] = await tx
    .insert(consentChainHeads)
    .values({ orgId, seq: 0, link: GENESIS_LINK })
    .onConflictDoUpdate({ target: consentChainHeads.orgId, set: { seq: sql`${consentChainHeads.seq}` } })
    .returning({ seq: consentChainHeads.seq, link: consentChainHeads.link });
  return head!;
}

/**
 * Appends events to the organisation's chain: locks its head, gives each event an ID, numbers and
 * seals them after the head (see `seal`), stores them and moves the head to the last one. Call it
 * last in the transaction, so the head stays locked only until the commit.
 * @param drafts - the events in order, without ID, organisation and seq.
 */
export async function appendEvents(tx: Executor, orgId: string, drafts: EventDraft[]): Promise<void> {
  if (drafts.length === 0) return;
  const events = seal(await lockChainHead(tx, orgId), drafts.map((d) => ({ ...d, id: uuidv7(), orgId })));
  const last = events.at(-1)!;
  await tx.insert(consentEvents).values(events.map((e) => ({ ...e, occurredAt: new Date(e.occurredAt) })));
  await tx.update(consentChainHeads).set({ seq: last.seq, link: last.link }).where(eq(consentChainHeads.orgId, orgId));
}

type EventRow = typeof consentEvents.$inferSelect;

/** A stored event in the shape it was hashed. */
export function toSealed(row: EventRow): SealedEvent {
  return {
    id: row.id,
    orgId: row.orgId,
    seq: row.seq,
    recordId: row.recordId,
    userId: row.userId,
    purposeId: row.purposeId,
    attributeId: row.attributeId,
    oldValue: row.oldValue as ConsentValue,
    newValue: row.newValue as ConsentValue,
    oldDays: row.oldDays,
    newDays: row.newDays,
    occurredAt: row.occurredAt.toISOString(),
    actor: row.actor as SealedEvent['actor'],
    channel: row.channel as SealedEvent['channel'],
    requestId: row.requestId,
    contentHash: row.contentHash,
    prevLink: row.prevLink,
    link: row.link,
  };
}

/** The organisation's events after `afterSeq`, oldest first, at most `limit` (a keyset batch). */
export async function eventsAfter(db: Executor, orgId: string, afterSeq: number, limit: number): Promise<SealedEvent[]> {
  const rows = await db
    .select()
    .from(consentEvents)
    .where(and(eq(consentEvents.orgId, orgId), gt(consentEvents.seq, afterSeq)))
    .orderBy(asc(consentEvents.seq))
    .limit(limit);
  return rows.map(toSealed);
}

/** The organisation's chain head, or null before its first event. */
export async function chainHead(db: Executor, orgId: string): Promise<{ seq: number; link: Buffer } | null> {
  const [row] = await db.select({ seq: consentChainHeads.seq, link: consentChainHeads.link }).from(consentChainHeads).where(eq(consentChainHeads.orgId, orgId));
  return row ?? null;
}

/** Filters of a history page. */
export interface HistoryFilter {
  orgId: string;
  userId: string;
  purposeId?: string;
  /** Inclusive lower bound of `occurredAt`. */
  from?: Date;
  /** Inclusive upper bound of `occurredAt`. */
  to?: Date;
  /** Exclusive cursor: events with a smaller seq. */
  beforeSeq?: number;
}

/** One page of an individual's events in an organisation, newest first (keyset on seq). */
export async function historyPage(db: Executor, f: HistoryFilter, limit: number): Promise<SealedEvent[]> {
  const rows = await db
    .select()
    .from(consentEvents)
    .where(
      and(
        eq(consentEvents.orgId, f.orgId),
        eq(consentEvents.userId, f.userId),
        f.purposeId ? eq(consentEvents.purposeId, f.purposeId) : undefined,
        f.from ? gte(consentEvents.occurredAt, f.from) : undefined,
        f.to ? lte(consentEvents.occurredAt, f.to) : undefined,
        f.beforeSeq !== undefined ? lt(consentEvents.seq, f.beforeSeq) : undefined,
      ),
    )
    .orderBy(desc(consentEvents.seq))
    .limit(limit);
  return rows.map(toSealed);
}

/**
 * For each (purpose, attribute) of a record, its last event at or before `at`: what the record
 * held at that instant.
 */
export async function stateAt(db: Executor, recordId: string, at: Date) {
  return db
    .selectDistinctOn([consentEvents.purposeId, consentEvents.attributeId], {
      purposeId: consentEvents.purposeId,
      attributeId: consentEvents.attributeId,
      value: consentEvents.newValue,
      days: consentEvents.newDays,
      decidedAt: consentEvents.occurredAt,
    })
    .from(consentEvents)
    .where(and(eq(consentEvents.recordId, recordId), lte(consentEvents.occurredAt, at)))
    .orderBy(consentEvents.purposeId, consentEvents.attributeId, desc(consentEvents.occurredAt), desc(consentEvents.seq));
}

/**
 * The organisation's purposes and their attributes as they were configured at `at`: created by
 * then, and not yet deleted or unlinked (soft deletes keep this answerable).
 */
export async function configurationAt(db: Executor, orgId: string, at: Date) {
  const result = await db.execute(sql`
    SELECT p.id AS "purposeId", p.name AS "purposeName", p.description AS "purposeDescription",
           p.lawful_usage AS "lawfulUsage", p.policy_url AS "policyUrl", a.id AS "attributeId", a.name AS "attributeName"
    FROM purposes p
    JOIN purpose_attributes pa ON pa.purpose_id = p.id AND pa.created_at <= ${at} AND (pa.unlinked_at IS NULL OR pa.unlinked_at > ${at})
    JOIN data_attributes a ON a.id = pa.attribute_id AND a.created_at <= ${at} AND (a.deleted_at IS NULL OR a.deleted_at > ${at})
    WHERE p.org_id = ${orgId} AND p.created_at <= ${at} AND (p.deleted_at IS NULL OR p.deleted_at > ${at})
    ORDER BY p.created_at, p.id, pa.created_at, a.id`);
  return rowsOf<Omit<ConsentRow, 'value' | 'days' | 'decidedAt'> & { attributeId: string; attributeName: string }>(result);
}
