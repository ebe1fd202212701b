/** SQL of SAML federation: IdP configurations, SP key pairs (staged, active, retired), sent request IDs, accepted assertion IDs. */
import { and, eq, gt, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { samlAssertions, samlConfigs, samlRequests, samlSpKeyPairs } from '../../platform/db/schema/saml.js';

/** A stored configuration row. */
export type SamlRow = typeof samlConfigs.$inferSelect;
type SamlWrite = Omit<SamlRow, 'createdAt' | 'updatedAt'>;

/** The organisation's SAML configuration row, or null. */
export async function findConfig(db: Executor, orgId: string): Promise<SamlRow | null> {
  const [row] = await db.select().from(samlConfigs).where(eq(samlConfigs.orgId, orgId));
  return row ?? null;
}

/** Inserts a configuration; false when one exists already (the caller answers 409). */
export async function insertConfig(db: Executor, row: SamlWrite): Promise<boolean> {
  const added = await db.insert(samlConfigs).values(row).onConflictDoNothing().returning({ orgId: samlConfigs.orgId });
  return added.length > 0;
}

/** Replaces a configuration. */
export async function updateConfig(db: Executor, row: SamlWrite): Promise<void> {
  const { orgId, ...set } = row;
  await db
    .update(samlConfigs)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(samlConfigs.orgId, orgId));
}

/** Deletes a configuration; false when there was none. */
export async function deleteConfig(db: Executor, orgId: string): Promise<boolean> {
  const gone = await db.delete(samlConfigs).where(eq(samlConfigs.orgId, orgId)).returning({ orgId: samlConfigs.orgId });
  return gone.length > 0;
}

/** A stored SP key pair. */
export type SpKeyRow = typeof samlSpKeyPairs.$inferSelect;
/** What an SP key pair is for. */
export type SpKeyUse = SpKeyRow['use'];

/**
 * The published SP key pairs of `use`: staged, active, and retired less than `overlapSeconds` ago;
 * the active one first, then the staged one, then the retired ones, newest first.
 */
export async function publishedSpKeys(db: Executor, use: SpKeyUse, overlapSeconds: number): Promise<SpKeyRow[]> {
  const rows = await db
    .select()
    .from(samlSpKeyPairs)
    .where(
      and(
        eq(samlSpKeyPairs.use, use),
        or(
          isNull(samlSpKeyPairs.retiredAt),
          gt(samlSpKeyPairs.retiredAt, sql`now() - make_interval(secs => ${overlapSeconds})`),
        ),
      ),
    );
  const rank = (r: SpKeyRow) => (r.retiredAt ? 2 : r.activatedAt ? 0 : 1);
  return rows.sort((a, b) => rank(a) - rank(b) || (b.retiredAt?.getTime() ?? 0) - (a.retiredAt?.getTime() ?? 0));
}

/**
 * Stores a key pair as the active one of its use (`activated` true) or as the staged one, unless
 * another process stored one in that state first (the unique indexes decide).
 */
export async function insertSpKey(
  db: Executor,
  row: { id: string; use: SpKeyUse; certificate: string; privateKeySealed: string },
  activated: boolean,
): Promise<void> {
  await db
    .insert(samlSpKeyPairs)
    .values({ ...row, activatedAt: activated ? sql`now()` : null })
    .onConflictDoNothing();
}

/** Whether a staged key pair of `use` exists. */
export async function hasStagedSpKey(db: Executor, use: SpKeyUse): Promise<boolean> {
  const [row] = await db
    .select({ id: samlSpKeyPairs.id })
    .from(samlSpKeyPairs)
    .where(and(eq(samlSpKeyPairs.use, use), isNull(samlSpKeyPairs.activatedAt)));
  return row !== undefined;
}

/**
 * Retires the active key pair of `use` and activates the staged one, in the caller's transaction.
 * @returns false when none is staged (nothing changes).
 */
export async function activateStagedSpKey(db: Executor, use: SpKeyUse): Promise<boolean> {
  if (!(await hasStagedSpKey(db, use))) return false;
  await db
    .update(samlSpKeyPairs)
    .set({ retiredAt: sql`now()` })
    .where(and(eq(samlSpKeyPairs.use, use), isNotNull(samlSpKeyPairs.activatedAt), isNull(samlSpKeyPairs.retiredAt)));
  await db
    .update(samlSpKeyPairs)
    .set({ activatedAt: sql`now()` })
    .where(and(eq(samlSpKeyPairs.use, use), isNull(samlSpKeyPairs.activatedAt)));
  return true;
}

/** What a sent request asked for: a sign-in (AuthnRequest) or a logout (LogoutRequest). */
export type RequestKind = 'authn' | 'logout';

/** Records a request ID Assent sent, and drops expired ones. */
export async function saveRequest(
  db: Executor,
  requestId: string,
  expiresAt: Date,
  kind: RequestKind = 'authn',
): Promise<void> {
  await db.delete(samlRequests).where(lt(samlRequests.expiresAt, sql`now()`));
  await db.insert(samlRequests).values({ requestId, kind, expiresAt }).onConflictDoNothing();
}

/** Whether `requestId` was sent as a request of `kind` and has not expired or been used. */
export async function hasRequest(db: Executor, requestId: string, kind: RequestKind = 'authn'): Promise<boolean> {
  const [row] = await db
    .select({ expiresAt: samlRequests.expiresAt })
    .from(samlRequests)
    .where(and(eq(samlRequests.requestId, requestId), eq(samlRequests.kind, kind)));
  return row !== undefined && row.expiresAt.getTime() > Date.now();
}

/** Forgets a request ID (node-saml calls this once the answer to it is handled, valid or not). */
export async function removeRequest(db: Executor, requestId: string): Promise<boolean> {
  const gone = await db
    .delete(samlRequests)
    .where(eq(samlRequests.requestId, requestId))
    .returning({ id: samlRequests.requestId });
  return gone.length > 0;
}

/**
 * Takes a request ID of `kind` that has not expired: true once, false ever after (single use, on
 * every replica, since the row is deleted in the same statement).
 */
export async function takeRequest(db: Executor, requestId: string, kind: RequestKind): Promise<boolean> {
  const gone = await db
    .delete(samlRequests)
    .where(
      and(eq(samlRequests.requestId, requestId), eq(samlRequests.kind, kind), sql`${samlRequests.expiresAt} > now()`),
    )
    .returning({ id: samlRequests.requestId });
  return gone.length > 0;
}

/**
 * Records an accepted assertion ID until `expiresAt`, and drops expired ones.
 * @returns false when the ID was accepted before (a replay).
 */
export async function recordAssertion(
  db: Executor,
  orgId: string,
  assertionId: string,
  expiresAt: Date,
): Promise<boolean> {
  await db.delete(samlAssertions).where(lt(samlAssertions.expiresAt, sql`now()`));
  const added = await db
    .insert(samlAssertions)
    .values({ orgId, assertionId, expiresAt })
    .onConflictDoNothing()
    .returning({ id: samlAssertions.assertionId });
  return added.length > 0;
}

/** Whether the assertion ID was accepted already (for tests of "changes nothing" and for the ACS). */
export async function seenAssertion(db: Executor, orgId: string, assertionId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: samlAssertions.assertionId })
    .from(samlAssertions)
    .where(and(eq(samlAssertions.orgId, orgId), eq(samlAssertions.assertionId, assertionId)));
  return row !== undefined;
}
