/** SQL of the identity part of the data export: the metadata of a user's sessions and API keys, never their secrets. */
import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { apiKeys, tokenFamilies } from '../../platform/db/schema/index.js';

/** The user's sessions (refresh-token families), oldest first: client and times only (index `token_families_user`). */
export async function sessionsOf(db: Executor, userId: string) {
  return db
    .select({
      clientId: tokenFamilies.clientId,
      createdAt: tokenFamilies.createdAt,
      revokedAt: tokenFamilies.revokedAt,
      revokedReason: tokenFamilies.revokedReason,
    })
    .from(tokenFamilies)
    .where(eq(tokenFamilies.userId, userId))
    .orderBy(asc(tokenFamilies.createdAt), asc(tokenFamilies.id));
}

/** The user's API keys, oldest first: ID and times only, never the sealed key (index `api_keys_user`). */
export async function apiKeysOf(db: Executor, userId: string) {
  return db
    .select({
      id: apiKeys.id,
      createdAt: apiKeys.createdAt,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.userId, userId))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}
