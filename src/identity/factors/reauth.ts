/**
 * Re-authentication (docs/security.md "Re-authentication"): a signed-in person confirms their password, and a code of
 * their second factor when they have one, so that their session counts as freshly signed in for `REAUTH_SECONDS`
 * (the changes that need it: removing a factor, renewing recovery codes; ASVS 5.0 V7.5.1).
 */
import { Unauthenticated } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { Db } from '../../platform/db/open.js';
import type { IdentityService } from '../sessions/service.js';
import { userProfile } from '../users/profile.js';
import type { SecondFactors } from './service.js';
import * as store from './store.js';

/** Confirms a signed-in person's credentials again. */
export class Reauthentication {
  /**
   * @param db - the store.
   * @param identity - checks the password as a login does (throttle included).
   * @param factors - checks the code.
   */
  constructor(
    private readonly db: Db,
    private readonly identity: Pick<IdentityService, 'checkPassword'>,
    private readonly factors: Pick<SecondFactors, 'check' | 'hasFactor'>,
  ) {}

  /**
   * Marks the caller's session as freshly authenticated.
   * @param principal - a session (access token); the policy refuses API keys.
   * @param ip - the client's address, for the password throttle.
   * @throws {Unauthenticated} for a wrong password, or a missing or wrong code when the person has a factor;
   *   {RateLimited} while a throttle blocks.
   */
  async confirm(
    principal: Principal,
    input: { password: string; code?: string; recoverycode?: string },
    ip: string,
  ): Promise<void> {
    const profile = await userProfile(this.db, principal.userId);
    if (!profile || !principal.familyId) throw new Unauthenticated();
    await this.identity.checkPassword(profile.row.username, input.password, ip);
    if ((await this.factors.hasFactor(principal.userId)) && !(await this.factors.check(principal.userId, input)))
      throw new Unauthenticated(
        'A code of your authenticator app, or a recovery code, is needed and was wrong or missing',
      );
    await store.markAuthenticated(this.db, principal.familyId);
  }
}
