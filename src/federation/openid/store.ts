/** SQL of federation: IdP configurations, app redirect URIs, pending states, codes, links, sessions. */
import { and, eq, like, lt, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../platform/db/open.js';
import {
  appRedirectUris,
  federatedIdentities,
  federationCodes,
  federationSessions,
  federationStates,
  idpConfigs,
} from '../../platform/db/schema/federation.js';
import { users } from '../../platform/db/schema/index.js';

/** A stored configuration row. */
export type IdpRow = typeof idpConfigs.$inferSelect;

/** The organisation's IdP configuration row, or null. */
export async function findConfig(db: Executor, orgId: string): Promise<IdpRow | null> {
  const [row] = await db.select().from(idpConfigs).where(eq(idpConfigs.orgId, orgId));
  return row ?? null;
}

/** Inserts a configuration; returns false when one exists already (the caller answers 409). */
export async function insertConfig(db: Executor, row: Omit<IdpRow, 'createdAt' | 'updatedAt'>): Promise<boolean> {
  const added = await db.insert(idpConfigs).values(row).onConflictDoNothing().returning({ orgId: idpConfigs.orgId });
  return added.length > 0;
}

/** Replaces a configuration; returns false when there is none. */
export async function updateConfig(db: Executor, row: Omit<IdpRow, 'createdAt' | 'updatedAt'>): Promise<boolean> {
  const { orgId, ...set } = row;
  const changed = await db
    .update(idpConfigs)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(idpConfigs.orgId, orgId))
    .returning({ orgId: idpConfigs.orgId });
  return changed.length > 0;
}

/** Deletes a configuration; returns false when there was none. */
export async function deleteConfig(db: Executor, orgId: string): Promise<boolean> {
  const gone = await db.delete(idpConfigs).where(eq(idpConfigs.orgId, orgId)).returning({ orgId: idpConfigs.orgId });
  return gone.length > 0;
}

/** The organisation's registered app redirect URIs, sorted. */
export async function redirectUris(db: Executor, orgId: string): Promise<string[]> {
  const rows = await db
    .select({ uri: appRedirectUris.uri })
    .from(appRedirectUris)
    .where(eq(appRedirectUris.orgId, orgId))
    .orderBy(appRedirectUris.uri);
  return rows.map((r) => r.uri);
}

/** Every organisation's registered http(s) app redirect URIs, each once (their origins are CORS web origins). */
export async function webRedirectUris(db: Db): Promise<string[]> {
  const rows = await db
    .selectDistinct({ uri: appRedirectUris.uri })
    .from(appRedirectUris)
    .where(like(appRedirectUris.uri, 'http%'));
  return rows.map((r) => r.uri);
}

/** Whether `uri` is registered for the organisation (exact string match, RFC 9700 §4.1.3). */
export async function isRedirectUri(db: Executor, orgId: string, uri: string): Promise<boolean> {
  const [row] = await db
    .select({ uri: appRedirectUris.uri })
    .from(appRedirectUris)
    .where(and(eq(appRedirectUris.orgId, orgId), eq(appRedirectUris.uri, uri)));
  return row !== undefined;
}

/** Replaces the organisation's app redirect URIs (call inside a transaction). */
export async function setRedirectUris(db: Executor, orgId: string, uris: string[]): Promise<void> {
  await db.delete(appRedirectUris).where(eq(appRedirectUris.orgId, orgId));
  if (uris.length > 0)
    await db
      .insert(appRedirectUris)
      .values(uris.map((uri) => ({ orgId, uri })))
      .onConflictDoNothing();
}

/** Stores a pending sign-in, and drops expired ones (they are useless and unbounded otherwise). */
export async function insertState(db: Executor, row: typeof federationStates.$inferInsert): Promise<void> {
  await db.delete(federationStates).where(lt(federationStates.expiresAt, sql`now()`));
  await db.insert(federationStates).values(row);
}

/** Consumes a pending sign-in (single use: deleted as it is read); null when unknown or expired. */
export async function takeState(db: Executor, stateHash: Buffer, orgId: string) {
  const [row] = await db
    .delete(federationStates)
    .where(and(eq(federationStates.stateHash, stateHash), eq(federationStates.orgId, orgId)))
    .returning();
  return row && row.expiresAt.getTime() > Date.now() ? row : null;
}

/** Stores an Assent code (its hash), and drops expired ones. */
export async function insertCode(db: Executor, row: typeof federationCodes.$inferInsert): Promise<void> {
  await db.delete(federationCodes).where(lt(federationCodes.expiresAt, sql`now()`));
  await db.insert(federationCodes).values(row);
}

/** Consumes an Assent code: deleted as it is read, so a replay finds nothing (RFC 6749 §4.1.2). */
export async function takeCode(db: Executor, codeHash: Buffer, orgId: string) {
  const [row] = await db
    .delete(federationCodes)
    .where(and(eq(federationCodes.codeHash, codeHash), eq(federationCodes.orgId, orgId)))
    .returning();
  return row && row.expiresAt.getTime() > Date.now() ? row : null;
}

/** Serialises sign-ins of one (organisation, issuer, subject) within the transaction. */
export async function lockSubject(tx: Executor, orgId: string, issuer: string, subject: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${orgId} ${issuer} ${subject}`}, 0))`);
}

/** The live local user linked to (organisation, issuer, subject), or null; a link to a deleted account is dropped. */
export async function linkedUser(tx: Executor, orgId: string, issuer: string, subject: string): Promise<string | null> {
  const key = and(
    eq(federatedIdentities.orgId, orgId),
    eq(federatedIdentities.issuer, issuer),
    eq(federatedIdentities.subject, subject),
  );
  const [row] = await tx
    .select({ userId: federatedIdentities.userId, deletedAt: users.deletedAt })
    .from(federatedIdentities)
    .innerJoin(users, eq(users.id, federatedIdentities.userId))
    .where(key);
  if (!row) return null;
  // A deleted account stays deleted (GDPR Art. 17): the next sign-in makes a new user.
  if (row.deletedAt) {
    await tx.delete(federatedIdentities).where(key);
    return null;
  }
  return row.userId;
}

/** Links a provider subject to a local user. */
export async function link(
  tx: Executor,
  row: { orgId: string; issuer: string; subject: string; userId: string },
): Promise<void> {
  await tx.insert(federatedIdentities).values(row);
}

/** Keeps the provider's ID token (sealed) for one Assent session. */
export async function insertSession(
  db: Executor,
  row: { familyId: string; orgId: string; userId: string; idTokenSealed: string },
): Promise<void> {
  await db.insert(federationSessions).values(row).onConflictDoNothing();
}

/** The user's federated sessions of the organisation (index `federation_sessions_user`). */
export async function userSessions(
  db: Executor,
  orgId: string,
  userId: string,
): Promise<{ familyId: string; idTokenSealed: string }[]> {
  return db
    .select({ familyId: federationSessions.familyId, idTokenSealed: federationSessions.idTokenSealed })
    .from(federationSessions)
    .where(and(eq(federationSessions.orgId, orgId), eq(federationSessions.userId, userId)));
}

/** Removes and returns the session's sealed ID token, or null. */
export async function takeSession(
  db: Executor,
  familyId: string,
): Promise<{ orgId: string; idTokenSealed: string } | null> {
  const [row] = await db
    .delete(federationSessions)
    .where(eq(federationSessions.familyId, familyId))
    .returning({ orgId: federationSessions.orgId, idTokenSealed: federationSessions.idTokenSealed });
  return row ?? null;
}

/** Deletes the user's links to external identities and their pending federation codes (account deletion). */
export async function deleteUserLinks(tx: Executor, userId: string): Promise<void> {
  await tx.execute(sql`DELETE FROM federated_identities WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM federation_codes WHERE user_id = ${userId}`);
}

/** The user's links to external identities, oldest first (the data export; index `federated_identities_user`). */
export async function userLinks(
  db: Executor,
  userId: string,
): Promise<Array<{ orgId: string; issuer: string; subject: string; createdAt: Date }>> {
  return db
    .select({
      orgId: federatedIdentities.orgId,
      issuer: federatedIdentities.issuer,
      subject: federatedIdentities.subject,
      createdAt: federatedIdentities.createdAt,
    })
    .from(federatedIdentities)
    .where(eq(federatedIdentities.userId, userId))
    .orderBy(federatedIdentities.createdAt, federatedIdentities.orgId);
}
