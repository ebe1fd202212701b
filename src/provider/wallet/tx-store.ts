/**
 * SQL of OpenID4VP transactions (`wallet_transactions`, docs/wallet.md "The verifier"). Each state
 * change is one conditional UPDATE, so that two concurrent requests cannot both use a request
 * object, a response or a result (single use, OpenID4VP 1.0 §14.1).
 */
import { and, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { walletTransactions } from '../../platform/db/schema/wallet.js';

/** A stored transaction row. */
export type TxRow = typeof walletTransactions.$inferSelect;
/** The fields of a new transaction. */
export type TxValues = Omit<TxRow, 'createdAt' | 'responseCodeHash' | 'result' | 'returnUri'> & {
  returnUri?: string | null;
};
/** Where a transaction stands (docs/wallet.md "The verifier"). */
export type TxStatus = 'created' | 'request_fetched' | 'verified' | 'failed' | 'consumed';

/** Inserts a transaction. */
export async function insertTx(db: Executor, values: TxValues): Promise<void> {
  await db.insert(walletTransactions).values(values);
}

/** Deletes the interaction's earlier transactions (a new code replaces them). */
export async function deleteForInteraction(db: Executor, orgId: string, interactionUid: string): Promise<void> {
  await db
    .delete(walletTransactions)
    .where(and(eq(walletTransactions.orgId, orgId), eq(walletTransactions.interactionUid, interactionUid)));
}

/**
 * Takes the request object of a live, not yet fetched transaction, once.
 * @returns the row (status now `request_fetched`), or null when unknown, expired or fetched before.
 */
export async function takeRequest(db: Executor, orgId: string, requestId: string): Promise<TxRow | null> {
  const [row] = await db
    .update(walletTransactions)
    .set({ status: 'request_fetched' })
    .where(
      and(
        eq(walletTransactions.orgId, orgId),
        eq(walletTransactions.requestId, requestId),
        eq(walletTransactions.status, 'created'),
        gt(walletTransactions.expiresAt, sql`now()`),
      ),
    )
    .returning();
  return row ?? null;
}

/** The transaction of an encryption key ID or of a `state`, whatever its status, or null. */
export async function findBy(db: Executor, orgId: string, by: { kid?: string; state?: string }): Promise<TxRow | null> {
  const match =
    by.kid !== undefined ? eq(walletTransactions.encKid, by.kid) : eq(walletTransactions.vpState, by.state!);
  const [row] = await db
    .select()
    .from(walletTransactions)
    .where(and(eq(walletTransactions.orgId, orgId), match));
  return row ?? null;
}

/**
 * Ends a transaction that awaited its response, once: `verified` or `failed`, with its result.
 * @returns false when another response got there first or the transaction expired meanwhile.
 */
export async function settle(
  db: Executor,
  id: string,
  to: { status: 'verified' | 'failed'; result: Record<string, unknown>; responseCodeHash?: Buffer },
): Promise<boolean> {
  const done = await db
    .update(walletTransactions)
    .set({ status: to.status, result: to.result, responseCodeHash: to.responseCodeHash ?? null, encKeySealed: null })
    .where(
      and(
        eq(walletTransactions.id, id),
        inArray(walletTransactions.status, ['created', 'request_fetched']),
        gt(walletTransactions.expiresAt, sql`now()`),
      ),
    )
    .returning({ id: walletTransactions.id });
  return done.length > 0;
}

/** The interaction's current (latest) transaction, or null. */
export async function currentTx(db: Executor, orgId: string, interactionUid: string): Promise<TxRow | null> {
  const [row] = await db
    .select()
    .from(walletTransactions)
    .where(and(eq(walletTransactions.orgId, orgId), eq(walletTransactions.interactionUid, interactionUid)))
    .orderBy(desc(walletTransactions.createdAt))
    .limit(1);
  return row ?? null;
}

/**
 * Consumes a verified transaction, once.
 * @returns false when it was consumed meanwhile.
 */
export async function consume(db: Executor, id: string): Promise<boolean> {
  const done = await db
    .update(walletTransactions)
    .set({ status: 'consumed' })
    .where(and(eq(walletTransactions.id, id), eq(walletTransactions.status, 'verified')))
    .returning({ id: walletTransactions.id });
  return done.length > 0;
}

/**
 * Deletes the transactions that expired more than `graceSeconds` ago (the page may still ask
 * whether its transaction expired for a while).
 * @returns how many were deleted (count).
 */
export async function purgeExpired(db: Executor, graceSeconds: number): Promise<number> {
  const gone = await db
    .delete(walletTransactions)
    .where(lt(walletTransactions.expiresAt, sql`now() - make_interval(secs => ${graceSeconds})`))
    .returning({ id: walletTransactions.id });
  return gone.length;
}

/** The transaction of a request ID, whatever its status, or null. */
export async function findByRequestId(db: Executor, orgId: string, requestId: string): Promise<TxRow | null> {
  const [row] = await db
    .select()
    .from(walletTransactions)
    .where(and(eq(walletTransactions.orgId, orgId), eq(walletTransactions.requestId, requestId)));
  return row ?? null;
}
