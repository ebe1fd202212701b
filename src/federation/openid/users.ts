/**
 * Finding or creating the local user of a federated sign-in: linked by (organisation, issuer,
 * `sub`), the only stable identifier of an OpenID Connect user (OIDC Core §5.7), never by e-mail
 * alone, so an e-mail address claimed at a provider cannot take over an existing account.
 */
import { randomUUID } from 'node:crypto';
import { createFederatedUser, subscribe } from '../../organisations/index.js';
import type { Db, Executor } from '../../platform/db/open.js';
import type { SignInResult } from './client.js';
import * as store from './store.js';

const text = (value: unknown, max: number): string => (typeof value === 'string' ? value.slice(0, max) : '');

/**
 * The local user of a sign-in: the linked one, or a new user (no password; username
 * `idp:<random>`; name, e-mail and phone from the claims) linked now. Either way subscribed to
 * the organisation, with its consent record.
 * @returns the user's ID.
 */
export async function linkUser(db: Db, orgId: string, result: SignInResult): Promise<string> {
  return db.transaction(async (tx) => {
    const ex = tx as unknown as Executor;
    // Two simultaneous first sign-ins of one subject must not create two users.
    await store.lockSubject(ex, orgId, result.issuer, result.subject);
    let userId = await store.linkedUser(ex, orgId, result.issuer, result.subject);
    if (!userId) {
      const c = result.claims;
      userId = await createFederatedUser(ex, {
        username: `idp:${randomUUID()}`,
        name: text(c.name, 200),
        email: text(c.email, 320),
        phone: text(c.phone_number, 40),
      });
      await store.link(ex, { orgId, issuer: result.issuer, subject: result.subject, userId });
    }
    await subscribe(ex, userId, orgId);
    return userId;
  });
}
