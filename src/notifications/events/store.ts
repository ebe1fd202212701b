/**
 * SQL of the change feed: an organisation's numbered outbox events in `seq` order (docs/events.md), and the same rows
 * by ID for webhook deliveries.
 */
import { and, asc, eq, gt, inArray, isNotNull, lte } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { organisationEvents } from '../../platform/db/schema/index.js';

/** A numbered outbox row. */
export interface FeedRow {
  id: string;
  seq: number;
  type: string;
  subject: string | null;
  occurredAt: Date;
  data: unknown;
}

/**
 * The organisation's numbered events after `afterSeq`, in seq order, at most `limit`; only of `types` when given, and
 * only up to `uptoSeq` when given.
 * @param afterSeq - exclusive (0: from the first).
 * @param limit - count.
 * @param uptoSeq - inclusive.
 */
export async function eventsAfter(
  db: Executor,
  orgId: string,
  afterSeq: number,
  limit: number,
  types: string[] | undefined,
  uptoSeq?: number,
): Promise<FeedRow[]> {
  const e = organisationEvents;
  const rows = await db
    .select({ id: e.id, seq: e.seq, type: e.type, subject: e.subject, occurredAt: e.occurredAt, data: e.data })
    .from(e)
    .where(
      and(
        eq(e.orgId, orgId),
        isNotNull(e.seq),
        gt(e.seq, afterSeq),
        uptoSeq === undefined ? undefined : lte(e.seq, uptoSeq),
        types ? inArray(e.type, types) : undefined,
      ),
    )
    .orderBy(asc(e.seq))
    .limit(limit);
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

/**
 * The events of these IDs (of any organisation), in no particular order: the outbox rows of claimed webhook
 * deliveries, whose bodies are built as the feed shows them (a fanned-out event is numbered).
 */
export async function eventsByIds(db: Executor, ids: string[]): Promise<FeedRow[]> {
  if (ids.length === 0) return [];
  const e = organisationEvents;
  const rows = await db
    .select({ id: e.id, seq: e.seq, type: e.type, subject: e.subject, occurredAt: e.occurredAt, data: e.data })
    .from(e)
    .where(inArray(e.id, ids));
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}
