/** SQL of organisations' wallet settings (`wallet_settings`) and of linked credentials (`wallet_identities`). */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { users } from '../../platform/db/schema/index.js';
import { walletIdentities, walletSettings } from '../../platform/db/schema/wallet.js';

/** A stored settings row (the verifier key sealed). */
export type SettingsRow = typeof walletSettings.$inferSelect;
/** The fields a `PUT` or an import writes. */
export type SettingsValues = Omit<SettingsRow, 'createdAt' | 'updatedAt'>;

/** The organisation's settings, or null. */
export async function findSettings(db: Executor, orgId: string): Promise<SettingsRow | null> {
  const [row] = await db.select().from(walletSettings).where(eq(walletSettings.orgId, orgId));
  return row ?? null;
}

/** Creates or replaces the organisation's settings. */
export async function upsertSettings(db: Executor, values: SettingsValues): Promise<SettingsRow> {
  const { orgId: _, ...set } = values;
  const [row] = await db
    .insert(walletSettings)
    .values(values)
    .onConflictDoUpdate({ target: walletSettings.orgId, set: { ...set, updatedAt: sql`now()` } })
    .returning();
  return row!;
}

/** Deletes the organisation's settings; false when there were none. */
export async function deleteSettings(db: Executor, orgId: string): Promise<boolean> {
  const gone = await db
    .delete(walletSettings)
    .where(eq(walletSettings.orgId, orgId))
    .returning({ orgId: walletSettings.orgId });
  return gone.length > 0;
}

/** The key of a linked credential: (organisation, credential issuer, vct, digest of the stable claim). */
export interface CredentialKey {
  orgId: string;
  issuer: string;
  vct: string;
  subject: string;
}

const identityKey = (k: CredentialKey) =>
  and(
    eq(walletIdentities.orgId, k.orgId),
    eq(walletIdentities.issuer, k.issuer),
    eq(walletIdentities.vct, k.vct),
    eq(walletIdentities.subject, k.subject),
  );

/** Serialises first sign-ins of one credential (a transaction-scoped advisory lock). */
export async function lockCredential(db: Executor, k: CredentialKey): Promise<void> {
  const name = `wallet:${k.orgId}:${k.issuer}:${k.vct}:${k.subject}`;
  await db.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`);
}

/** The live user linked to a credential, or null; a link to a deleted account is dropped. */
export async function linkedUser(db: Executor, k: CredentialKey): Promise<string | null> {
  const [row] = await db
    .select({ userId: walletIdentities.userId, deletedAt: users.deletedAt })
    .from(walletIdentities)
    .innerJoin(users, eq(users.id, walletIdentities.userId))
    .where(identityKey(k));
  if (!row) return null;
  // A deleted account stays deleted (GDPR Art. 17): the next sign-in makes a new user.
  if (row.deletedAt) {
    await db.delete(walletIdentities).where(identityKey(k));
    return null;
  }
  return row.userId;
}

/**
 * A returning credential's sign-in in one statement: updates the claims of the link to a live user
 * and answers that user, or null (no link, or a link to a deleted account, which `linkedUser`
 * then drops).
 */
export async function touchLinkedIdentity(
  db: Executor,
  k: CredentialKey,
  claims: Record<string, unknown>,
): Promise<string | null> {
  const [row] = await db
    .update(walletIdentities)
    .set({ claims, updatedAt: sql`now()` })
    .from(users)
    .where(and(identityKey(k), eq(users.id, walletIdentities.userId), isNull(users.deletedAt)))
    .returning({ userId: walletIdentities.userId });
  return row?.userId ?? null;
}

/** Links a credential to a user, or updates the claims of its latest sign-in. */
export async function saveIdentity(
  db: Executor,
  k: CredentialKey,
  userId: string,
  claims: Record<string, unknown>,
): Promise<void> {
  await db
    .insert(walletIdentities)
    .values({ ...k, userId, claims })
    .onConflictDoUpdate({
      target: [walletIdentities.orgId, walletIdentities.issuer, walletIdentities.vct, walletIdentities.subject],
      set: { claims, updatedAt: sql`now()` },
    });
}

/** The mapped claims of the user's latest wallet sign-in at the organisation, or null. */
export async function latestClaims(
  db: Executor,
  orgId: string,
  userId: string,
): Promise<Record<string, unknown> | null> {
  const [row] = await db
    .select({ claims: walletIdentities.claims })
    .from(walletIdentities)
    .where(and(eq(walletIdentities.orgId, orgId), eq(walletIdentities.userId, userId)))
    .orderBy(sql`${walletIdentities.updatedAt} DESC`)
    .limit(1);
  return (row?.claims as Record<string, unknown> | undefined) ?? null;
}

/** Deletes every credential link of a user (account deletion). */
export async function deleteUserIdentities(db: Executor, userId: string): Promise<void> {
  await db.delete(walletIdentities).where(eq(walletIdentities.userId, userId));
}

/** The user's links to wallet credentials with the mapped claims of each one's latest sign-in, oldest first (the data export). */
export async function userIdentities(db: Executor, userId: string) {
  return db
    .select({
      orgId: walletIdentities.orgId,
      issuer: walletIdentities.issuer,
      vct: walletIdentities.vct,
      subject: walletIdentities.subject,
      claims: walletIdentities.claims,
      createdAt: walletIdentities.createdAt,
      updatedAt: walletIdentities.updatedAt,
    })
    .from(walletIdentities)
    .where(eq(walletIdentities.userId, userId))
    .orderBy(walletIdentities.createdAt, walletIdentities.orgId);
}
