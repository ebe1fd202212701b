/**
 * What federation contributes to the data export (GDPR Art. 15 and 20; docs/identity.md "Data export (GDPR Art. 15
 * and 20)"): the individual's links to external identities. No secret is kept per link (the provider's ID tokens
 * are kept per session, sealed, and never exported).
 */
import { type Static, Type } from 'typebox';
import type { Executor } from '../../platform/db/open.js';
import { userLinks } from './store.js';

/** A link to an external identity in the export (OIDC Core §5.7: issuer and `sub`). */
export const ExportedFederatedIdentity = Type.Object({
  OrgID: Type.String({ description: 'the organisation whose identity provider it is' }),
  Issuer: Type.String(),
  Subject: Type.String({ description: 'the provider’s `sub`' }),
  Created: Type.String({ description: 'RFC 3339: the first federated sign-in' }),
});

/**
 * The user's links to external identities, oldest first.
 * @param db - the database or the caller's transaction.
 */
export async function exportFederatedIdentities(
  db: Executor,
  userId: string,
): Promise<Static<typeof ExportedFederatedIdentity>[]> {
  return (await userLinks(db, userId)).map((l) => ({
    OrgID: l.orgId,
    Issuer: l.issuer,
    Subject: l.subject,
    Created: l.createdAt.toISOString(),
  }));
}
