/**
 * What identity contributes to the data export (GDPR Art. 15 and 20; docs/identity.md "Data export (GDPR Art. 15 and
 * 20)"): when and through which client the individual signed in, and which API keys they hold, as metadata. Never a
 * token, an API key, a refresh-token hash or a session ID: the export is a file that may be mailed or stored anywhere.
 */
import { type Static, Type } from 'typebox';
import type { Executor } from '../../platform/db/open.js';
import { apiKeysOf, sessionsOf } from './export-store.js';

/** A session (one login and its refresh tokens, RFC 9700 §4.14.2) in the export. */
export const ExportedSession = Type.Object({
  ClientID: Type.String({ description: 'the OAuth client signed in through' }),
  Created: Type.String({ description: 'RFC 3339: the login' }),
  Revoked: Type.String({ description: 'RFC 3339, or "" while the session may still be refreshed' }),
  RevokedReason: Type.String({ description: 'e.g. logout, password change, refresh token reuse; "" when not revoked' }),
});

/** An API key in the export: its ID and times, never the key. */
export const ExportedApiKey = Type.Object({
  ID: Type.String({ description: 'the key’s `jti` (the `Actor.APIKeyID` of consent events)' }),
  Created: Type.String({ description: 'RFC 3339' }),
  Expires: Type.String({ description: 'RFC 3339' }),
  Revoked: Type.String({ description: 'RFC 3339, or "" when not revoked' }),
});

/**
 * The user's sessions and API keys, oldest first.
 * @param db - the database or the caller's transaction.
 */
export async function exportCredentials(
  db: Executor,
  userId: string,
): Promise<{ sessions: Static<typeof ExportedSession>[]; apiKeys: Static<typeof ExportedApiKey>[] }> {
  const [sessions, keys] = await Promise.all([sessionsOf(db, userId), apiKeysOf(db, userId)]);
  return {
    sessions: sessions.map((s) => ({
      ClientID: s.clientId,
      Created: s.createdAt.toISOString(),
      Revoked: s.revokedAt?.toISOString() ?? '',
      RevokedReason: s.revokedReason ?? '',
    })),
    apiKeys: keys.map((k) => ({
      ID: k.id,
      Created: k.createdAt.toISOString(),
      Expires: k.expiresAt.toISOString(),
      Revoked: k.revokedAt?.toISOString() ?? '',
    })),
  };
}
