/**
 * SQL of the OpenID providers' state (`oidc_provider_records`): the rows behind the adapter
 * (src/provider/openid/adapter.ts). A row past `expires_at` is never returned and is deleted by the
 * purge (src/app/purge.ts).
 */
import { and, eq, gt, lte, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { oidcProviderRecords as r } from '../../platform/db/schema/oidc.js';

/** The address of a row: organisation, oidc-provider model name, id. */
export interface RecordKey {
  orgId: string;
  model: string;
  id: string;
}

/** A row's payload and whether (when) it was consumed. */
export interface RecordFound {
  payload: Record<string, unknown>;
  consumedAt: Date | null;
}

const live = () => gt(r.expiresAt, sql`now()`);
const at = (k: RecordKey) => and(eq(r.orgId, k.orgId), eq(r.model, k.model), eq(r.id, k.id));

/**
 * Inserts or replaces a row.
 * @param expiresInSeconds - lifetime from now (seconds).
 */
export async function upsertRecord(
  db: Executor,
  k: RecordKey,
  payload: Record<string, unknown>,
  expiresInSeconds: number,
  index: { grantId?: string; uid?: string; userCode?: string },
): Promise<void> {
  const expiresAt = sql`now() + make_interval(secs => ${expiresInSeconds})`;
  const values = {
    ...k,
    payload,
    grantId: index.grantId ?? null,
    uid: index.uid ?? null,
    userCode: index.userCode ?? null,
    expiresAt,
    consumedAt: null,
  };
  await db
    .insert(r)
    .values(values)
    .onConflictDoUpdate({
      target: [r.orgId, r.model, r.id],
      set: { ...values, orgId: undefined, model: undefined, id: undefined },
    });
}

/** The live row at `k`, or null. */
export async function findRecord(db: Executor, k: RecordKey): Promise<RecordFound | null> {
  const [row] = await db
    .select({ payload: r.payload, consumedAt: r.consumedAt })
    .from(r)
    .where(and(at(k), live()));
  return row ? { payload: row.payload as Record<string, unknown>, consumedAt: row.consumedAt } : null;
}

/** The live row of the model whose `column` (uid or user code) equals `value`, or null. */
export async function findRecordBy(
  db: Executor,
  orgId: string,
  model: string,
  column: 'uid' | 'userCode',
  value: string,
): Promise<RecordFound | null> {
  const [row] = await db
    .select({ payload: r.payload, consumedAt: r.consumedAt })
    .from(r)
    .where(and(eq(r.orgId, orgId), eq(r.model, model), eq(r[column], value), live()))
    .limit(1);
  return row ? { payload: row.payload as Record<string, unknown>, consumedAt: row.consumedAt } : null;
}

/** Marks the row consumed (the first time only: a second consume keeps the first time). */
export async function consumeRecord(db: Executor, k: RecordKey): Promise<void> {
  await db
    .update(r)
    .set({ consumedAt: sql`coalesce(${r.consumedAt}, now())` })
    .where(at(k));
}

/** Deletes the row. */
export async function destroyRecord(db: Executor, k: RecordKey): Promise<void> {
  await db.delete(r).where(at(k));
}

/** Deletes every row of the organisation that belongs to the grant (codes, tokens, the grant…). */
export async function revokeGrant(db: Executor, orgId: string, grantId: string): Promise<void> {
  await db.delete(r).where(and(eq(r.orgId, orgId), eq(r.grantId, grantId)));
}

/** Deletes the rows past their expiry; returns how many. One statement: safe from several processes at once. */
export async function purgeExpiredRecords(db: Executor): Promise<number> {
  const rows = await db.delete(r).where(lte(r.expiresAt, sql`now()`)).returning({ id: r.id });
  return rows.length;
}
