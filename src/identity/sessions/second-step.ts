/**
 * What a password login asks of the second factors (docs/api.md "Second factor"): whether a second step is needed,
 * and the refusal that carries its `mfa_token`. The factors context implements the gate
 * (src/identity/factors/login.ts); the sessions depend only on this.
 */
import { AssentError } from '../../platform/core/errors.js';

/** Which login asked for the second step, so that completing it answers as that login would. */
export type LoginKind = 'login' | 'token' | 'admin' | 'web';

/** 401 `mfa_required`: the password was right and a second factor is needed; the body carries the `mfa_token`. */
export class SecondFactorRequired extends AssentError {
  override name = 'SecondFactorRequired';
  /** @param mfaToken - the token of the second step. */
  constructor(mfaToken: string) {
    super(
      'ASSENT_ERR_UNAUTHENTICATED',
      'A second factor is required: send the mfa_token with a code of your authenticator app or a recovery code to ' +
        'POST {base}/users/login/mfa within 5 minutes',
      { oauthError: 'mfa_required', extra: { mfa_token: mfaToken } },
    );
  }
}

/** Opens the second step of a login, when the user has a second factor. */
export interface SecondStepGate {
  /**
   * @param login - which login asks.
   * @returns the `mfa_token`, or null when the user has no second factor.
   */
  begin(userId: string, clientId: string, login: LoginKind): Promise<string | null>;
}
