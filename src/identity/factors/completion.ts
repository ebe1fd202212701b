/**
 * The end of a login that needed a second factor (docs/api.md "Second factor"): `POST {base}/users/login/mfa` with the
 * `mfa_token` and a TOTP or recovery code answers what the login that issued the token would have answered.
 */
import type { Device } from '../sessions/device.js';
import type { IdentityService, LoginResult } from '../sessions/service.js';
import type { LoginKind, SecondStep } from './login.js';

/** What the second step's completion answers: the login's result and which login it was. */
export interface CompletedLogin {
  result: LoginResult;
  /** `token` (the old `/users/login`) answers the Token alone. */
  login: LoginKind;
}

/** Completes the API logins' second steps. */
export class MfaLogin {
  /**
   * @param identity - opens the session (`loginAs`).
   * @param step - checks the token and the code.
   */
  constructor(
    private readonly identity: Pick<IdentityService, 'loginAs'>,
    private readonly step: SecondStep,
  ) {}

  /**
   * Completes a second step of the API's logins.
   * @param device - the device completing it: the session's.
   * @throws {InvalidRequest} `invalid_grant` (see `SecondStep.complete`); {RateLimited}; {AccessDenied} for the admin
   *   login of a user who has lost every admin role meanwhile.
   */
  async complete(
    input: { mfa_token: string; code?: string; recoverycode?: string },
    device: Device,
  ): Promise<CompletedLogin> {
    const done = await this.step.complete(input.mfa_token, input, false);
    const result = await this.identity.loginAs(done.userId, done.clientId, done.login === 'admin', device);
    return { result, login: done.login };
  }
}
