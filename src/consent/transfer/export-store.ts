/**
 * SQL of the consent part of the data export (GDPR Art. 15 and 20; docs/identity.md "Data export (GDPR Art. 15 and
 * 20)"): an individual's consent records, and one record's sealed events in keyset chunks.
 */
import { and, asc, eq, gte, lte, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { consentEventSeals, consentEvents, consentRecords } from '../../platform/db/schema/index.js';
import type { SealedEvent } from '../evidence/chain.js';
import { toSealed } from '../evidence/store.js';

/**
 * The individual's consent records in every organisation, subscribed or not (a record outlives an
 * unsubscription), oldest first (index `consent_records_user`).
 */
export async function recordsOfUser(db: Executor, userId: string): Promise<Array<{ id: string; orgId: string }>> {
  return db
    .select({ id: consentRecords.id, orgId: consentRecords.orgId })
    .from(consentRecords)
    .where(eq(consentRecords.userId, userId))
    .orderBy(asc(consentRecords.createdAt), asc(consentRecords.id));
}

/** Where a chunk of one record's events starts, and up to where the chain is read. */
export interface RecordEventsChunk {
  orgId: string;
  recordId: string;
  /** The last seq of the organisation's chain to include (its head when the export began). */
  upToSeq: number;
  /** Exclusive keyset cursor: the `occurredAt` (RFC 3339, milliseconds, as hashed) and seq of the last event read. */
  after?: { occurredAt: string; seq: number };
}

/**
 * At most `limit` sealed events of one consent record, oldest first by (`occurredAt`, seq), after
 * the cursor: a range of the index `consent_events_record` (record, time), so that reading a long
 * history chunk by chunk costs each event once.
 * @param limit - events per chunk (count).
 */
export async function recordEvents(db: Executor, f: RecordEventsChunk, limit: number): Promise<SealedEvent[]> {
  const rows = await db
    .select({ e: consentEvents, s: consentEventSeals })
    .from(consentEventSeals)
    .innerJoin(consentEvents, eq(consentEvents.id, consentEventSeals.eventId))
    .where(
      and(
        eq(consentEvents.recordId, f.recordId),
        eq(consentEventSeals.orgId, f.orgId),
        lte(consentEventSeals.seq, f.upToSeq),
        f.after ? gte(consentEvents.occurredAt, new Date(f.after.occurredAt)) : undefined,
        f.after
          ? sql`(${consentEvents.occurredAt}, ${consentEventSeals.seq}) > (${f.after.occurredAt}::timestamptz, ${f.after.seq}::bigint)`
          : undefined,
      ),
    )
    .orderBy(asc(consentEvents.occurredAt), asc(consentEventSeals.seq))
    .limit(limit);
  return rows.map(toSealed);
}
