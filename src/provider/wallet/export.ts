/**
 * What wallet sign-in contributes to the data export (GDPR Art. 15 and 20; docs/identity.md "Data export (GDPR
 * Art. 15 and 20)"): the individual's links to wallet credentials and the claims their latest sign-in disclosed.
 * No key or presentation is kept per link.
 */
import { type Static, Type } from 'typebox';
import type { Executor } from '../../platform/db/open.js';
import { userIdentities } from './store.js';

/** A link to a wallet credential in the export (OpenID4VP §14.4: issuer, `vct` and the stable claim). */
export const ExportedWalletIdentity = Type.Object({
  OrgID: Type.String({ description: 'the organisation signed in to' }),
  Issuer: Type.String({ description: 'the credential issuer' }),
  VCT: Type.String({ description: 'the credential type (`vct`)' }),
  Subject: Type.String({ description: 'hex SHA-256 of the stable claim’s value' }),
  Claims: Type.Record(Type.String(), Type.Unknown(), {
    description: 'the mapped claims of the latest sign-in (ID-token claim names)',
  }),
  Created: Type.String({ description: 'RFC 3339: the first wallet sign-in' }),
  Updated: Type.String({ description: 'RFC 3339: the latest wallet sign-in' }),
});

/**
 * The user's links to wallet credentials, oldest first.
 * @param db - the database or the caller's transaction.
 */
export async function exportWalletIdentities(
  db: Executor,
  userId: string,
): Promise<Static<typeof ExportedWalletIdentity>[]> {
  return (await userIdentities(db, userId)).map((w) => ({
    OrgID: w.orgId,
    Issuer: w.issuer,
    VCT: w.vct,
    Subject: w.subject,
    Claims: w.claims as Record<string, unknown>,
    Created: w.createdAt.toISOString(),
    Updated: w.updatedAt.toISOString(),
  }));
}
