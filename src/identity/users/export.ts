/**
 * What users contributes to the data export (GDPR Art. 15 and 20; docs/identity.md "Data export (GDPR Art. 15 and
 * 20)"): the profile, as the User record (docs/api.md "Resources") of `GET {base}/user` shows it but without the API key, with when the
 * account was created and whether it is anonymous. Never the password hash, which `presentUser` does not read.
 */
import { type Static, Type } from 'typebox';
import type { Db } from '../../platform/db/open.js';
import { presentUser } from './present.js';
import { UserBody } from './schemas.js';
import { userProfile } from './store.js';

const { APIKey: _apiKey, ...userFields } = UserBody.properties;

/** The profile in the export: the User fields (docs/api.md "Resources") but `APIKey`, and `Created`, `Anonymous`. */
export const ExportedProfile = Type.Object({
  ...userFields,
  Created: Type.String({ description: 'RFC 3339: when the account was created' }),
  Anonymous: Type.Boolean({
    description: 'an anonymous user (docs/api.md "User management") without username, password or e-mail',
  }),
});
/** The profile of the export. */
export type ExportedProfileBody = Static<typeof ExportedProfile>;

/**
 * The profile of a live account (one prepared statement).
 * @param publicUrl - `ASSENT_PUBLIC_URL`, for `ImageURL`.
 * @returns null when there is no such account, or it was deleted.
 */
export async function exportProfile(db: Db, userId: string, publicUrl: string): Promise<ExportedProfileBody | null> {
  const profile = await userProfile(db, userId);
  if (!profile || profile.row.deletedAt) return null;
  const { row, orgs, roles } = profile;
  return {
    ...presentUser(row, orgs, roles, publicUrl),
    Created: row.createdAt.toISOString(),
    Anonymous: row.anonymous,
  };
}
