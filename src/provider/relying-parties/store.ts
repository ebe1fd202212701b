/** SQL of the OpenID provider's relying parties (`oidc_clients`). */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { oidcClients } from '../../platform/db/schema/oidc.js';

/** A stored client row (the secret only as its hash). */
export type ClientRow = typeof oidcClients.$inferSelect;

/** The fields of a row that a registration sets. */
export type ClientValues = Omit<ClientRow, 'createdAt' | 'updatedAt'>;

const key = (orgId: string, clientId: string) => and(eq(oidcClients.orgId, orgId), eq(oidcClients.clientId, clientId));

/** The client `clientId` of the organisation, or null. */
export async function findClient(db: Executor, orgId: string, clientId: string): Promise<ClientRow | null> {
  const [row] = await db.select().from(oidcClients).where(key(orgId, clientId));
  return row ?? null;
}

/** The organisation's clients, by `client_id`. */
export async function listClients(db: Executor, orgId: string): Promise<ClientRow[]> {
  return db.select().from(oidcClients).where(eq(oidcClients.orgId, orgId)).orderBy(asc(oidcClients.clientId));
}

/** Inserts a client; returns null when the organisation has one with that `client_id` already (the caller answers 409). */
export async function insertClient(db: Executor, values: ClientValues): Promise<ClientRow | null> {
  const [row] = await db.insert(oidcClients).values(values).onConflictDoNothing().returning();
  return row ?? null;
}

/**
 * Updates the registered fields of a client (not `public` and not the secret).
 * @returns the updated row, or null when there is no such client.
 */
export async function updateClient(
  db: Executor,
  orgId: string,
  clientId: string,
  set: Pick<ClientRow, 'name' | 'redirectUris' | 'postLogoutRedirectUris'>,
): Promise<ClientRow | null> {
  const [row] = await db
    .update(oidcClients)
    .set({ ...set, updatedAt: sql`now()` })
    .where(key(orgId, clientId))
    .returning();
  return row ?? null;
}

/**
 * Replaces a confidential client's secret hash.
 * @returns the updated row, or null when there is no such confidential client.
 */
export async function setSecretHash(
  db: Executor,
  orgId: string,
  clientId: string,
  secretHash: Buffer,
): Promise<ClientRow | null> {
  const [row] = await db
    .update(oidcClients)
    .set({ secretHash, updatedAt: sql`now()` })
    .where(and(key(orgId, clientId), eq(oidcClients.public, false)))
    .returning();
  return row ?? null;
}

/** Deletes a client; returns false when there was none. */
export async function deleteClient(db: Executor, orgId: string, clientId: string): Promise<boolean> {
  const gone = await db.delete(oidcClients).where(key(orgId, clientId)).returning({ clientId: oidcClients.clientId });
  return gone.length > 0;
}
