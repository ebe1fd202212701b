/** SQL of the event webhooks themselves (docs/events.md "Webhooks"); their deliveries are deliveries-store.ts. */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../platform/db/open.js';
import { webhooks } from '../../platform/db/schema/index.js';

/** A stored webhook. */
export type WebhookRow = typeof webhooks.$inferSelect;

/** The organisation's webhooks, oldest first. */
export function listWebhooks(db: Executor, orgId: string): Promise<WebhookRow[]> {
  return db.select().from(webhooks).where(eq(webhooks.orgId, orgId)).orderBy(asc(webhooks.createdAt), asc(webhooks.id));
}

/**
 * One webhook of the organisation, or undefined.
 * @param lock - lock its row until the transaction ends, so that a change and its audit entry see one state.
 */
export async function readWebhook(
  db: Executor,
  orgId: string,
  id: string,
  lock = false,
): Promise<WebhookRow | undefined> {
  const query = db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.orgId, orgId), eq(webhooks.id, id)));
  const [row] = await (lock ? query.for('update') : query);
  return row;
}

/** The organisation's feed head: the last `seq` numbered (0 before the first). */
export async function feedHead(tx: Executor, orgId: string): Promise<number> {
  const result = await tx.execute(sql`SELECT seq FROM organisation_event_heads WHERE org_id = ${orgId}`);
  return Number(rowsOf<{ seq: number | string }>(result)[0]?.seq ?? 0);
}

/** Inserts a webhook. */
export async function insertWebhook(tx: Executor, row: typeof webhooks.$inferInsert): Promise<void> {
  await tx.insert(webhooks).values(row);
}

/** Changes a webhook's fields. */
export async function updateWebhook(
  tx: Executor,
  id: string,
  fields: Partial<typeof webhooks.$inferInsert>,
): Promise<void> {
  await tx.update(webhooks).set(fields).where(eq(webhooks.id, id));
}

/** Deletes a webhook with its deliveries and their attempts (foreign keys cascade). */
export async function deleteWebhook(tx: Executor, id: string): Promise<void> {
  await tx.delete(webhooks).where(eq(webhooks.id, id));
}

/**
 * Disables every enabled webhook that has failed since before `cutoff` with no success since, and returns them.
 * @param cutoff - now minus the disable window.
 */
export async function disableFailing(db: Executor, cutoff: Date): Promise<WebhookRow[]> {
  return db
    .update(webhooks)
    .set({ disabled: true, disabledReason: 'failing', updatedAt: new Date() })
    .where(and(eq(webhooks.disabled, false), sql`${webhooks.failingSince} < ${cutoff.toISOString()}::timestamptz`))
    .returning();
}

/** What sending needs of a webhook. */
export type WebhookTarget = Pick<
  WebhookRow,
  'id' | 'orgId' | 'payloadUrl' | 'contentType' | 'secretSealed' | 'previousSecretSealed' | 'previousSecretUntil'
>;

/** The webhooks of these IDs, as sending needs them. */
export function webhookTargets(db: Executor, ids: string[]): Promise<WebhookTarget[]> {
  if (ids.length === 0) return Promise.resolve([]);
  const w = webhooks;
  return db
    .select({
      id: w.id,
      orgId: w.orgId,
      payloadUrl: w.payloadUrl,
      contentType: w.contentType,
      secretSealed: w.secretSealed,
      previousSecretSealed: w.previousSecretSealed,
      previousSecretUntil: w.previousSecretUntil,
    })
    .from(w)
    .where(inArray(w.id, ids));
}
