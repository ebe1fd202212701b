/** SQL of the consent history: the per-organisation chain head and the events. */
import { and, asc, desc, eq, gt, gte, lt, lte, sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../platform/db/open.js';
import { consentChainHeads, consentEventSeals, consentEvents } from '../../platform/db/schema/index.js';
import type { ConsentRow } from '../model/row.js';
import type { ConsentValue } from '../model/values.js';
import type { SealedEvent } from './chain.js';

/** A stored event row (written once; its seal is a row of `consent_event_seals`). */
export type EventRow = typeof consentEvents.$inferSelect;
/** A stored seal row. */
type SealRow = typeof consentEventSeals.$inferSelect;

/** An event joined to its seal, in the shape it was hashed. */
export function toSealed({ e, s }: { e: EventRow; s: SealRow }): SealedEvent {
  return { ...toContent(e), seq: s.seq, contentHash: s.contentHash, prevLink: s.prevLink, link: s.link };
}

/** Sealed events: each seal with its event (a seal whose event was deleted is not found: a missing link). */
function sealedEvents(db: Executor) {
  return db
    .select({ e: consentEvents, s: consentEventSeals })
    .from(consentEventSeals)
    .innerJoin(consentEvents, eq(consentEvents.id, consentEventSeals.eventId));
}

/** What an event row records, as hashed, but for the `seq` that sealing gives it. */
export function toContent(row: EventRow): Omit<SealedEvent, 'seq' | 'contentHash' | 'prevLink' | 'link'> {
  return {
    id: row.id,
    orgId: row.orgId,
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
  };
}

/** The organisation's sealed events after `afterSeq`, oldest first, at most `limit` (a keyset batch). */
export async function eventsAfter(
  db: Executor,
  orgId: string,
  afterSeq: number,
  limit: number,
): Promise<SealedEvent[]> {
  const rows = await sealedEvents(db)
    .where(and(eq(consentEventSeals.orgId, orgId), gt(consentEventSeals.seq, afterSeq)))
    .orderBy(asc(consentEventSeals.seq))
    .limit(limit);
  return rows.map(toSealed);
}

/** One sealed event of a consent record in the organisation's chain, or null (none, another record's, or unsealed). */
export async function sealedEvent(db: Executor, orgId: string, recordId: string, eventId: string) {
  const [row] = await sealedEvents(db).where(
    and(eq(consentEvents.id, eventId), eq(consentEvents.recordId, recordId), eq(consentEventSeals.orgId, orgId)),
  );
  return row ? toSealed(row) : null;
}

/** The organisation's chain head, or null before its first event. */
export async function chainHead(db: Executor, orgId: string): Promise<{ seq: number; link: Buffer } | null> {
  const [row] = await db
    .select({ seq: consentChainHeads.seq, link: consentChainHeads.link })
    .from(consentChainHeads)
    .where(eq(consentChainHeads.orgId, orgId));
  return row ?? null;
}

/** Filters of a history page. */
export interface HistoryFilter {
  orgId: string;
  /** The individual's consent record in the organisation. */
  recordId: string;
  purposeId?: string;
  /** Inclusive lower bound of `occurredAt`. */
  from?: Date;
  /** Inclusive upper bound of `occurredAt`. */
  to?: Date;
  /** Exclusive cursor: events with a smaller seq. */
  beforeSeq?: number;
}

/**
 * One page of a record's sealed events, newest first (keyset on seq). Unsealed events are not
 * shown: `ChainSealer.flush` seals what was committed before the read.
 */
export async function historyPage(db: Executor, f: HistoryFilter, limit: number): Promise<SealedEvent[]> {
  const rows = await sealedEvents(db)
    .where(
      and(
        eq(consentEvents.recordId, f.recordId),
        eq(consentEventSeals.orgId, f.orgId),
        f.purposeId ? eq(consentEvents.purposeId, f.purposeId) : undefined,
        f.from ? gte(consentEvents.occurredAt, f.from) : undefined,
        f.to ? lte(consentEvents.occurredAt, f.to) : undefined,
        f.beforeSeq !== undefined ? lt(consentEventSeals.seq, f.beforeSeq) : undefined,
      ),
    )
    .orderBy(desc(consentEventSeals.seq))
    .limit(limit);
  return rows.map(toSealed);
}

/**
 * For each (purpose, attribute) of a record, its last event at or before `at`: what the record
 * held at that instant. Of events at the same instant, the last written wins (`written` follows
 * the order of one record's changes).
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
    .orderBy(
      consentEvents.purposeId,
      consentEvents.attributeId,
      desc(consentEvents.occurredAt),
      desc(consentEvents.written),
    );
}

/**
 * The organisation's purposes and their attributes as they were configured at `at`: created by
 * then, and not yet deleted or unlinked (soft deletes keep this answerable).
 */
export async function configurationAt(db: Executor, orgId: string, at: Date) {
  const result = await db.execute(sql`
    SELECT p.id AS "purposeId", p.name AS "purposeName", p.description AS "purposeDescription",
           p.lawful_usage AS "lawfulUsage", p.policy_url AS "policyUrl",
           a.id AS "attributeId", a.name AS "attributeName"
    FROM purposes p
    JOIN purpose_attributes pa ON pa.purpose_id = p.id AND pa.created_at <= ${at}
      AND (pa.unlinked_at IS NULL OR pa.unlinked_at > ${at})
    JOIN data_attributes a ON a.id = pa.attribute_id AND a.created_at <= ${at}
      AND (a.deleted_at IS NULL OR a.deleted_at > ${at})
    WHERE p.org_id = ${orgId} AND p.created_at <= ${at} AND (p.deleted_at IS NULL OR p.deleted_at > ${at})
    ORDER BY p.created_at, p.id, pa.created_at, a.id`);
  return rowsOf<Omit<ConsentRow, 'value' | 'days' | 'decidedAt'> & { attributeId: string; attributeName: string }>(
    result,
  );
}
