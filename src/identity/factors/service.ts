/**
 * A person's second factors (docs/security.md "Second factors"): a TOTP authenticator (RFC 6238) enrolled by QR code
 * and confirmed with a code, and ten single-use recovery codes. Removing a factor or making new recovery codes needs a
 * fresh sign-in (`REAUTH_SECONDS`), and removing a factor ends every other session of the person (ASVS 5.0 V7.4.3).
 * Changes, and every recovery code used, are reported through `FactorEvents`: the composition root writes them to the
 * audit log of each organisation where the person is staff, and a used recovery code is mailed to the person.
 */

import type { ThrottlePolicy } from '../../platform/config/load.js';
import { Conflict, InvalidRequest, Unauthenticated } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db, Executor } from '../../platform/db/open.js';
import type { LivenessCache } from '../sessions/liveness.js';
import { revokeUserSessions } from '../sessions/revocation.js';
import { assertKeyNotBlocked, recordKeyFailure } from '../sessions/throttle.js';
import { credentialAccountById } from '../users/profile.js';
import { assertFreshSignIn } from './fresh.js';
import { newRecoveryCodes, recoveryCodeHash } from './recovery.js';
import * as store from './store.js';
import { checkTotp, newTotpSecret, qrSvg, totpUri } from './totp.js';

/** The master key purpose of TOTP secrets. */
const SEAL_PURPOSE = 'totp-secret';

/** A change of a person's factors, for the audit log (`mfa.totp.enrol`, …; docs/audit.md). */
export type FactorAction =
  | 'mfa.totp.enrol'
  | 'mfa.totp.remove'
  | 'mfa.recovery-codes.renew'
  | 'mfa.recovery-code.use'
  | 'mfa.passkey.add'
  | 'mfa.passkey.remove';

/** A code of one of the person's factors, as a second step or a re-authentication sends it. */
export interface FactorAnswer {
  /** Six digits of the authenticator app. */
  code?: string;
  /** One of the recovery codes. */
  recoverycode?: string;
  /** A passkey's answer to `Passkeys.authenticationOptions(userId)` (WebAuthn `AuthenticationResponseJSON`). */
  passkey?: unknown;
}

/** Verifies a passkey answer of a known person (src/identity/passkeys/service.ts). */
export interface PasskeyCheck {
  /** @throws {Unauthenticated} when it does not verify. */
  verify(response: never, userId?: string): Promise<string>;
}

/** What the composition root does with factor changes. */
export interface FactorEvents {
  /** Records the change in the transaction that makes it (the audit entries of the person's organisations). */
  changed(tx: Executor, userId: string, action: FactorAction): Promise<void>;
  /** Tells the person that one of their recovery codes was used (after the commit; a mail). Never throws. */
  recoveryCodeUsed(userId: string, left: number): Promise<void>;
}

/** Checks a code against a person's factors (the second step of a login, a re-authentication). */
export interface FactorCheck {
  /**
   * Whether `code` (TOTP) or `recoverycode` is right and unused; a right one is spent, a wrong one counts against
   * the person's second-factor throttle (key `mfa:<userId>`), which blocks as the login's account throttle does.
   * @throws {RateLimited} while that throttle blocks (nothing is checked).
   */
  check(userId: string, input: FactorAnswer): Promise<boolean>;
}

/** What `GET {base}/user/mfa` answers. */
export interface FactorStatus {
  TOTP: { Enabled: boolean; Since: string | null };
  /** Unused recovery codes (count). */
  RecoveryCodesLeft: number;
}

/** Enrols, checks and removes a person's second factors. */
export class SecondFactors implements FactorCheck {
  /**
   * @param db - the store.
   * @param master - seals the TOTP secrets.
   * @param liveness - told when other sessions end.
   * @param events - the audit entries and mails of changes.
   * @param issuer - the name authenticator apps show (the public URL's host).
   * @param throttle - the login's account throttle policy (`Config.throttleAccount`), applied to wrong codes.
   * @param passkeys - verifies a passkey given as the second step.
   */
  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly liveness: LivenessCache,
    private readonly events: FactorEvents,
    private readonly issuer: string,
    private readonly throttle: ThrottlePolicy,
    private readonly passkeys: PasskeyCheck,
  ) {}

  /** The person's factors. */
  async status(userId: string): Promise<FactorStatus> {
    const [totp, left] = await Promise.all([store.totpOf(this.db, userId), store.recoveryCodesLeft(this.db, userId)]);
    const since = totp?.confirmedAt ?? null;
    return { TOTP: { Enabled: since !== null, Since: since?.toISOString() ?? null }, RecoveryCodesLeft: left };
  }

  /**
   * Starts a TOTP enrolment: a new secret (replacing a pending one), its `otpauth://` URI and QR code (SVG); the app
   * shows the account by its username.
   * @throws {Conflict} when an authenticator is already enrolled (remove it first); {Unauthenticated} for a deleted
   *   account.
   */
  async startTotp(userId: string): Promise<{ Secret: string; URI: string; QRCodeSVG: string }> {
    const account = await credentialAccountById(this.db, userId);
    if (!account) throw new Unauthenticated();
    const secret = newTotpSecret();
    if (!(await store.putPendingTotp(this.db, userId, this.master.seal(secret, SEAL_PURPOSE))))
      throw new Conflict('An authenticator app is already set up: remove it first to set up another');
    return this.enrolment(account.username, secret);
  }

  /**
   * The pending enrolment again (its secret, URI and QR code), for a page that shows it until it is confirmed.
   * @returns null when no enrolment is pending.
   */
  async pendingTotp(userId: string): Promise<{ Secret: string; URI: string; QRCodeSVG: string } | null> {
    const [totp, account] = await Promise.all([store.totpOf(this.db, userId), credentialAccountById(this.db, userId)]);
    if (!totp || totp.confirmedAt || !account) return null;
    return this.enrolment(account.username, this.master.open(totp.secretSealed, SEAL_PURPOSE));
  }

  /** What an enrolment shows: the secret, its `otpauth://` URI (the app shows `label`) and the URI's QR code. */
  private async enrolment(label: string, secret: string): Promise<{ Secret: string; URI: string; QRCodeSVG: string }> {
    const uri = totpUri(this.issuer, label, secret);
    return { Secret: secret, URI: uri, QRCodeSVG: await qrSvg(uri) };
  }

  /**
   * Confirms the pending enrolment with a code of the app; the person gets ten new recovery codes (shown once).
   * @throws {InvalidRequest} when there is no pending enrolment or the code is wrong.
   */
  async confirmTotp(userId: string, code: string): Promise<{ RecoveryCodes: string[] }> {
    const totp = await store.totpOf(this.db, userId);
    if (!totp || totp.confirmedAt) throw new InvalidRequest('No authenticator app is waiting for confirmation');
    if (!(await this.spendTotp(userId, totp, code))) throw new InvalidRequest('Wrong code: try the app’s next one');
    return this.newRecoveryCodes(userId, 'mfa.totp.enrol');
  }

  /**
   * Removes the authenticator and the recovery codes; every other session of the person ends.
   * @param principal - the person, signed in within `REAUTH_SECONDS`.
   * @throws {Unauthenticated} when the sign-in is older; {InvalidRequest} when no authenticator is set up.
   */
  async removeTotp(principal: Principal): Promise<void> {
    await this.assertFresh(principal);
    const userId = principal.userId;
    const removed = await this.db.transaction(async (tx) => {
      if (!(await store.deleteTotp(tx, userId))) return false;
      await store.deleteRecoveryCodes(tx, userId);
      // Threat: a session opened by whoever held the factor outliving its removal.
      await revokeUserSessions(tx, userId, principal.familyId ?? null, 'second factor removed');
      await this.events.changed(tx, userId, 'mfa.totp.remove');
      return true;
    });
    if (!removed) throw new InvalidRequest('No authenticator app is set up');
    this.liveness.forgetUser(userId);
  }

  /**
   * Replaces the recovery codes with ten new ones (shown once); the old ones stop working.
   * @throws {Unauthenticated} when the sign-in is older than `REAUTH_SECONDS`; {InvalidRequest} without a factor.
   */
  async renewRecoveryCodes(principal: Principal): Promise<{ RecoveryCodes: string[] }> {
    await this.assertFresh(principal);
    const userId = principal.userId;
    if (!(await store.hasSecondFactor(this.db, userId)))
      throw new InvalidRequest('Recovery codes come with a second factor: set up an authenticator app first');
    return this.newRecoveryCodes(userId, 'mfa.recovery-codes.renew');
  }

  async check(userId: string, input: FactorAnswer): Promise<boolean> {
    const key = `mfa:${userId}`;
    await assertKeyNotBlocked(this.db, key);
    const ok = await this.checkOnce(userId, input);
    // Threat: guessing codes (a million TOTP codes, within their minute); every wrong one slows the next.
    if (!ok) await recordKeyFailure(this.db, key, this.throttle);
    return ok;
  }

  private async checkOnce(userId: string, input: FactorAnswer): Promise<boolean> {
    if (input.passkey !== undefined)
      return this.passkeys
        .verify(input.passkey as never, userId)
        .then(() => true)
        .catch((err: unknown) => {
          if (err instanceof Unauthenticated) return false;
          throw err;
        });
    if (input.code) {
      const totp = await store.totpOf(this.db, userId);
      return Boolean(totp?.confirmedAt) && (await this.spendTotp(userId, totp!, input.code));
    }
    const hash = input.recoverycode ? recoveryCodeHash(input.recoverycode) : null;
    if (!hash) return false;
    const spent = await this.db.transaction(async (tx) => {
      if (!(await store.spendRecoveryCode(tx, userId, hash))) return false;
      await this.events.changed(tx, userId, 'mfa.recovery-code.use');
      return true;
    });
    if (spent) await this.events.recoveryCodeUsed(userId, await store.recoveryCodesLeft(this.db, userId));
    return spent;
  }

  /** Whether the person has a confirmed second factor (a re-authentication then asks for a code). */
  hasFactor(userId: string): Promise<boolean> {
    return store.hasSecondFactor(this.db, userId);
  }

  /**
   * Refuses when the caller's session last authenticated more than `REAUTH_SECONDS` ago (or is not a session).
   * @throws {Unauthenticated} naming `POST {base}/user/reauthenticate`.
   */
  assertFresh(principal: Principal): Promise<void> {
    return assertFreshSignIn(this.db, principal);
  }

  /**
   * Ten recovery codes for a person who has none left, with their first passkey (the codes are the way back when the
   * passkey is lost); no fresh sign-in is needed, since nothing is replaced.
   * @returns the codes, shown once, or null when the person still has unused ones.
   */
  async firstRecoveryCodes(userId: string): Promise<{ RecoveryCodes: string[] } | null> {
    if ((await store.recoveryCodesLeft(this.db, userId)) > 0) return null;
    return this.newRecoveryCodes(userId, 'mfa.recovery-codes.renew');
  }

  /** Replaces the person's recovery codes with ten new ones, recording `action`; answers them (shown once). */
  private async newRecoveryCodes(userId: string, action: FactorAction): Promise<{ RecoveryCodes: string[] }> {
    const codes = newRecoveryCodes();
    const hashes = codes.map((c) => recoveryCodeHash(c)!);
    await this.db.transaction(async (tx) => {
      await store.replaceRecoveryCodes(tx, userId, hashes);
      await this.events.changed(tx, userId, action);
    });
    return { RecoveryCodes: codes };
  }

  /** Checks a TOTP code and spends its time step (once per step: RFC 6238 §5.2). */
  private async spendTotp(userId: string, totp: store.TotpRow, code: string): Promise<boolean> {
    const secret = this.master.open(totp.secretSealed, SEAL_PURPOSE);
    const step = await checkTotp(secret, code, totp.lastStep);
    return step !== null && (await store.spendStep(this.db, userId, step));
  }
}
