/**
 * The second step of a password login (docs/api.md "Second factor"; docs/security.md "Second factors"): when the
 * password is right and the user has a second factor, the login answers 401 with an `mfa_token` instead of a session.
 * The token is 256 random bits, stored as its SHA-256, single use, valid `CHALLENGE_SECONDS`, and void after
 * `MAX_ATTEMPTS` wrong codes; each wrong code also counts against the user's second-factor throttle, which blocks as
 * the login's account throttle does (ASVS 5.0 V6.3.1; `SecondFactors.check`). The step is completed with a TOTP code or a recovery code.
 */
import { randomBytes } from 'node:crypto';
import { InvalidRequest } from '../../platform/core/errors.js';
import { sha256 } from '../../platform/crypto/digest.js';
import type { Db } from '../../platform/db/open.js';
import { type LoginKind, SecondFactorRequired, type SecondStepGate } from '../sessions/second-step.js';
import type { FactorAnswer, FactorCheck } from './service.js';
import * as store from './store.js';

export { type LoginKind, SecondFactorRequired };

/** How long an `mfa_token` works (seconds). */
export const CHALLENGE_SECONDS = 300;
/** Wrong codes a token survives (count); the next wrong one voids it. */
const MAX_ATTEMPTS = 5;

/** 400 `invalid_grant` for an unknown, used, expired or voided `mfa_token`: the login must start again. */
export class SecondStepExpired extends InvalidRequest {
  override name = 'SecondStepExpired';
  constructor() {
    super('This sign-in step has expired or was already used: sign in again with your password', 'invalid_grant');
  }
}

/** What a completed second step names: whose session to open, for which client, answered as which login. */
export interface CompletedStep {
  userId: string;
  clientId: string;
  login: LoginKind;
}

/** Issues and completes second steps. */
export class SecondStep implements SecondStepGate {
  /**
   * @param db - the store.
   * @param factors - checks a code against the user's factors (throttled).
   */
  constructor(
    private readonly db: Db,
    private readonly factors: FactorCheck,
  ) {}

  /**
   * A second step for the user, when they have a second factor.
   * @returns the `mfa_token`, or null when the user has none (the login goes on as before).
   */
  async begin(userId: string, clientId: string, login: LoginKind): Promise<string | null> {
    if (!(await store.hasSecondFactor(this.db, userId))) return null;
    const token = randomBytes(32).toString('base64url');
    await store.insertChallenge(this.db, {
      tokenHash: sha256(token),
      userId,
      clientId,
      login,
      web: login === 'web',
      ttlSeconds: CHALLENGE_SECONDS,
    });
    return token;
  }

  /**
   * The person of a live second step (to offer them their passkeys), without spending it.
   * @throws {SecondStepExpired} for an unknown, used, expired or voided token, or one of the other kind.
   */
  async person(mfaToken: string, web: boolean): Promise<string> {
    return (await this.live(sha256(mfaToken), web)).userId;
  }

  /**
   * The live second step of a token hash, of this kind (web or API), not voided by wrong codes.
   * @throws {SecondStepExpired} otherwise.
   */
  private async live(hash: Buffer, web: boolean): Promise<store.ChallengeRow> {
    const found = await store.challenge(this.db, hash);
    if (!found?.live || found.web !== web || found.attempts >= MAX_ATTEMPTS) throw new SecondStepExpired();
    return found;
  }

  /**
   * Completes a second step with a TOTP code, a recovery code or a passkey.
   * @param web - whether the web sign-in completes it (a token of the API's logins is not valid there, and back).
   * @throws {SecondStepExpired} for an unknown, used, expired or voided token; {InvalidRequest} `invalid_grant` for a
   *   wrong code;
   *   {RateLimited} while the user's second-factor throttle blocks.
   */
  async complete(mfaToken: string, input: FactorAnswer, web: boolean): Promise<CompletedStep> {
    const hash = sha256(mfaToken);
    const found = await this.live(hash, web);
    if (!(await this.factors.check(found.userId, input))) {
      await store.countAttempt(this.db, hash);
      throw new InvalidRequest('Wrong or already used code', 'invalid_grant');
    }
    // Threat: a replayed step; of two completions with one token only the first spends it.
    const spent = await this.db.transaction(async (tx) => {
      const again = await store.challenge(tx, hash);
      if (!again?.live) return false;
      await store.spendChallenge(tx, hash);
      return true;
    });
    if (!spent) throw new SecondStepExpired();
    return { userId: found.userId, clientId: found.clientId, login: found.login as LoginKind };
  }
}
