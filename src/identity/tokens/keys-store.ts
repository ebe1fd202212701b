/** SQL of the signing-key ring. */
import { count, desc, gt, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { signingKeys } from '../../platform/db/schema/index.js';

/** A stored signing key. */
export type SigningKeyRow = typeof signingKeys.$inferSelect;

/** Number of keys not yet retired (0 or 1 in a consistent store). */
export async function countUnretired(db: Executor): Promise<number> {
  const [row] = await db.select({ n: count() }).from(signingKeys).where(isNull(signingKeys.retiredAt));
  return row?.n ?? 0;
}

/** Keys still published in the JWKS, the active one first, newest first after it. */
export async function listPublished(db: Executor): Promise<SigningKeyRow[]> {
  return db
    .select()
    .from(signingKeys)
    .where(or(isNull(signingKeys.expiresAt), gt(signingKeys.expiresAt, sql`now()`)))
    .orderBy(sql`${signingKeys.retiredAt} IS NOT NULL`, desc(signingKeys.createdAt));
}

/**
 * Retires the active keys: they stop signing now and leave the JWKS after `keepSeconds`.
 * @param keepSeconds - the longest token lifetime (seconds).
 */
export async function retireActiveKeys(db: Executor, keepSeconds: number): Promise<void> {
  await db
    .update(signingKeys)
    .set({ retiredAt: sql`now()`, expiresAt: sql`now() + make_interval(secs => ${keepSeconds})` })
    .where(isNull(signingKeys.retiredAt));
}

/** Stores a new active key. */
export async function insertKey(
  db: Executor,
  row: { kid: string; publicJwk: unknown; privateJwkSealed: string },
): Promise<void> {
  await db.insert(signingKeys).values(row);
}

/** Announces a rotation to every process listening on the rotation channel. */
export async function notifyRotation(db: Executor, kid: string): Promise<void> {
  await db.execute(sql`SELECT pg_notify('assent_signing_keys', ${kid})`);
}
