/**
 * SQL of the event webhook deliveries log (docs/events.md "The deliveries log"): a webhook's deliveries, each with its
 * attempts (its `attempt_log`), newest first; a ping's or a redelivery's own delivery row; the purge of finished
 * deliveries.
 */
import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../platform/db/open.js';
import { webhookDeliveries } from '../../platform/db/schema/index.js';

/** A stored delivery, with its attempts. */
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Inserts a delivery (a ping's, already attempted, or a redelivery's, due now). */
export async function insertDelivery(tx: Executor, row: typeof webhookDeliveries.$inferInsert): Promise<void> {
  await tx.insert(webhookDeliveries).values(row);
}

/** One delivery of the webhook, or undefined. */
export async function readDelivery(db: Executor, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.id, id)));
  return row;
}

/**
 * The webhook's deliveries newest first, after the delivery `startId` (exclusive), at most `limit + 1` (the extra one
 * tells that a next page exists), with their attempts.
 * @param state - only deliveries in this state, when given.
 */
export async function deliveriesPage(
  db: Executor,
  webhookId: string,
  startId: string | undefined,
  limit: number,
  state: string | undefined,
): Promise<DeliveryRow[]> {
  const d = webhookDeliveries;
  const start = startId ? await readDelivery(db, webhookId, startId) : undefined;
  const rows = await db
    .select()
    .from(d)
    .where(
      and(eq(d.webhookId, webhookId), start ? lt(d.ord, start.ord) : undefined, state ? eq(d.state, state) : undefined),
    )
    .orderBy(desc(d.ord))
    .limit(limit + 1);
  return rows;
}

/**
 * Deletes the deliveries that finished before `days` days ago (their attempts with them); pending ones are never
 * deleted.
 * @param days - days after finishing.
 * @returns how many deliveries were deleted (count).
 */
export async function deleteFinishedBefore(db: Executor, days: number): Promise<number> {
  const result = await db.execute(sql`DELETE FROM webhook_deliveries
    WHERE state <> 'pending' AND finished_at < now() - ${days} * interval '1 day' RETURNING 1`);
  return rowsOf(result).length;
}
