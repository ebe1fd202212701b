/**
 * The fresh sign-in that removing a factor needs (docs/security.md "Re-authentication"): the caller's session proved
 * its person within `REAUTH_SECONDS`, by signing in or by `POST {base}/user/reauthenticate`.
 */
import { Unauthenticated } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Executor } from '../../platform/db/open.js';
import { secondsSinceAuthentication } from './store.js';

/** How recent a sign-in must be to remove a factor or renew recovery codes (seconds). */
export const REAUTH_SECONDS = 300;

/**
 * Refuses when the caller's session last authenticated more than `REAUTH_SECONDS` ago, or is no session (an API key).
 * @throws {Unauthenticated} naming `POST {base}/user/reauthenticate`.
 */
export async function assertFreshSignIn(db: Executor, principal: Principal): Promise<void> {
  const age = principal.familyId ? await secondsSinceAuthentication(db, principal.familyId) : null;
  if (age === null || age > REAUTH_SECONDS)
    throw new Unauthenticated(
      'This change needs a recent sign-in: confirm your password (POST {base}/user/reauthenticate) and try again',
    );
}
