/**
 * The individual a verified presentation signs in (docs/api.md "Authorization endpoint"; docs/wallet.md "Verification steps",
 * step 8; OpenID4VP 1.0 §14.4): found by (organisation, credential issuer, `vct`, the stable
 * claim), never by a mapped claim alone, created and subscribed on first use as the federation flow
 * does (`federation/openid/users.ts`), with the mapped claims of the latest sign-in kept for the ID token.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createFederatedUser, subscribe } from '../../organisations/index.js';
import type { Executor } from '../../platform/db/open.js';
import type { VerifiedCredential } from './credential.js';
import { PresentationError } from './errors.js';
import * as store from './store.js';

const text = (value: unknown, max: number): string => (typeof value === 'string' ? value.slice(0, max) : '');

function valueAt(claims: Record<string, unknown>, path: readonly string[]): unknown {
  let at: unknown = claims;
  for (const key of path) {
    if (!at || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/**
 * Maps disclosed credential claims to ID-token claims (docs/wallet.md "Wallet settings",
 * `claimMapping`): each mapped claim that the credential disclosed; `email_verified: true` with a
 * mapped `email`, since the credential's issuer vouches for it.
 * @param mapping - ID-token claim → credential claims path.
 */
export function mapClaims(
  claims: Record<string, unknown>,
  mapping: Record<string, readonly string[]>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [claim, path] of Object.entries(mapping)) {
    const value = valueAt(claims, path);
    if (value !== undefined && value !== null) out[claim] = value;
  }
  if (typeof out.email === 'string') out.email_verified = true;
  return out;
}

/**
 * Finds or creates the individual of a verified credential, subscribes them to the organisation,
 * and keeps the mapped claims of this sign-in; inside the caller's transaction (`receive.ts` settles
 * the wallet transaction in the same one, so a sign-in and its result commit together).
 * @param ex - an executor inside a transaction (the advisory lock lasts until its end).
 * @param stableClaim - the credential claim that identifies the individual (e.g. `email_address`).
 * @returns the user ID and the mapped claims.
 * @throws {PresentationError} `credential_claims` when the stable claim was not disclosed.
 */
export async function signInCredential(
  ex: Executor,
  orgId: string,
  cred: VerifiedCredential,
  stableClaim: string,
  mapping: Record<string, readonly string[]>,
): Promise<{ userId: string; claims: Record<string, unknown> }> {
  const stable = cred.claims[stableClaim];
  if (typeof stable !== 'string' && typeof stable !== 'number')
    throw new PresentationError('credential_claims', 'the stable claim was not disclosed');
  // The key keeps only a digest of the stable claim's value.
  const subject = createHash('sha256').update(String(stable)).digest('hex');
  const key: store.CredentialKey = { orgId, issuer: cred.issuer, vct: cred.vct, subject };
  const claims = mapClaims(cred.claims, mapping);
  // A returning credential: its link's claims updated and its user found in one statement.
  let userId = await store.touchLinkedIdentity(ex, key, claims);
  if (!userId) {
    // Two simultaneous first sign-ins of one credential must not create two users: the second
    // waits for the first's commit, then finds its link (read again under the lock).
    await store.lockCredential(ex, key);
    userId = await store.linkedUser(ex, key);
    if (!userId) {
      const name = [text(claims.given_name, 100), text(claims.family_name, 100)].filter(Boolean).join(' ');
      userId = await createFederatedUser(ex, {
        username: `wallet:${randomUUID()}`,
        name: text(claims.name, 200) || name,
        email: text(claims.email, 320),
        phone: text(claims.phone_number, 40),
      });
    }
    await store.saveIdentity(ex, key, userId, claims);
  }
  await subscribe(ex, userId, orgId);
  return { userId, claims };
}
