/**
 * The rules of setting a password (docs/api.md "User management"; docs/decisions/0011-passwords-and-reset.md "Password reset with the
 * current session" and "Forgotten password"): a change from a signed-in session, and the forgotten-password flow
 * (request, mailed single-use link, completion). Every new password passes `policy.ts`.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../platform/config/load.js';
import { InvalidRequest, Unauthenticated } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import { sha256 } from '../../platform/crypto/digest.js';
import type { Db } from '../../platform/db/open.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import { enforce } from '../../platform/ratelimit/limit.js';
import type { LivenessCache } from '../sessions/liveness.js';
import { revokeUserSessions } from '../sessions/revocation.js';
import { normaliseUsername } from '../sessions/service.js';
import * as throttle from '../sessions/throttle.js';
import { hashPassword, verifyNormalised } from '../users/password-hashing.js';
import {
  type CredentialAccount,
  credentialAccountById,
  credentialAccountByUsername,
  setPasswordHash,
} from '../users/profile.js';
import type { BackgroundTasks } from './background.js';
import { type ChangeKind, passwordChangedMail, RESET_LINK_MINUTES, resetLinkMail } from './mail.js';
import { assertPasswordPolicy } from './policy.js';
import * as store from './store.js';

/**
 * Bytes of randomness in a reset token:
 * 256 bits (docs/decisions/0011-passwords-and-reset.md asks for at least 128; ASVS 5.0 V6.4.1).
 */
const RESET_TOKEN_BYTES = 32;

/** The answer to a token that was never issued, was used, or was replaced by a newer request. */
export const INVALID_RESET_LINK =
  'This password-reset link is not valid: it was already used, or a newer one was requested. Ask for a new one.';
/** The answer to a token older than 30 minutes. */
export const EXPIRED_RESET_LINK = `This password-reset link has expired (links last ${RESET_LINK_MINUTES} minutes). Ask for a new one.`;
/**
 * The `msg` of every forgotten-password answer (docs/api.md "Forgotten password": the iOS SDK shows
 * it). One text whether or not the account exists, so the answer cannot enumerate accounts (ASVS 5.0 V6.3.8).
 */
export const FORGOT_ANSWER =
  'If an account with this username has an e-mail address, a password-reset link has been sent to it.';
/** The answer to a wrong `currentpassword`. */
export const WRONG_CURRENT_PASSWORD = 'The current password is wrong';

/** Sets passwords. */
export class PasswordService {
  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly mailer: Mailer,
    /** Runs the work done after answering. */
    private readonly background: BackgroundTasks,
    /** Told when sessions are revoked, so that the auth guard stops accepting them at once. */
    private readonly liveness: LivenessCache,
  ) {}

  /**
   * Waits for the work done after answering (mails) that is under way, a few seconds at most: the
   * app calls it when it closes, so that those mails still go out.
   */
  drain(): Promise<void> {
    return this.background.drain();
  }

  /**
   * Changes the signed-in user's password (docs/api.md "User management" "Reset user password using the current
   * password"): checks `currentpassword` when sent, applies the policy, stores the new argon2id
   * hash, ends every other session of the user (ASVS 5.0 V7.4.3) and mails a notice (V6.3.6).
   *
   * @param principal - the caller; an access token (the policy row is `session`).
   * @param input.password - the new password, as typed.
   * @param input.currentpassword - the current password; optional (docs/api.md "User management": the body is `password` alone), verified when sent.
   * @param ip - client address, for the brute-force throttle of `currentpassword`.
   * @throws {RateLimited} (429) while the account or IP is blocked by failed attempts (ASVS 5.0 V6.3.1).
   * @throws {InvalidRequest} (400) when `currentpassword` is wrong; {PasswordPolicyError} (400) naming the broken rule.
   * @throws {Unauthenticated} (401) when the account no longer exists.
   */
  async changeWithSession(
    principal: Principal,
    input: { password: string; currentpassword?: string },
    ip: string,
    log: FastifyBaseLogger,
  ): Promise<void> {
    const { db, config } = this;
    const account = await credentialAccountById(db, principal.userId);
    if (!account) throw new Unauthenticated();
    if (input.currentpassword !== undefined) await this.checkCurrent(account, input.currentpassword, ip);
    const password = assertPasswordPolicy(input.password, { username: account.username });
    // argon2id runs before the transaction: it must not hold a connection.
    const hash = await hashPassword(password, config.argon2);
    await db.transaction(async (tx) => {
      await setPasswordHash(tx, account.id, hash);
      // Whoever else holds a session (a stolen phone, a thief's refresh token) is signed out; the caller stays.
      await revokeUserSessions(tx, account.id, principal.familyId ?? null, 'password changed');
    });
    this.liveness.forgetUser(account.id);
    this.notify(account, 'session', log);
  }

  /**
   * A wrong current password counts as a failed login of the account and the IP, so that a stolen
   * access token cannot be used to guess the password (ASVS 5.0 V6.3.1).
   */
  private async checkCurrent(account: CredentialAccount, current: string, ip: string): Promise<void> {
    const { db, config } = this;
    const keys = throttle.attemptKeys(account.username, ip);
    await throttle.assertAttemptNotBlocked(db, keys);
    const match = account.passwordHash ? await verifyNormalised(account.passwordHash, current) : false;
    if (!match) {
      await throttle.recordFailure(db, keys, config.throttleAccount, config.throttleIp);
      throw new InvalidRequest(WRONG_CURRENT_PASSWORD);
    }
    await throttle.recordSuccess(db, keys);
  }

  /**
   * Asks for a reset link (docs/api.md "User management" "Forgot password"). Counts the request against the per-IP
   * and per-username limits, then answers; the lookup, the token and the mail happen after the
   * answer (`sendResetLink`), so an existing and an unknown username cost the same on the request
   * path and get the same answer (ASVS 5.0 V6.3.8).
   *
   * @param username - as sent.
   * @param ip - client address.
   * @param log - the request's logger.
   * @throws {InvalidRequest} (400) without a username; {RateLimited} (429, `Retry-After`) past a limit.
   */
  async requestReset(username: string | undefined, ip: string, log: FastifyBaseLogger): Promise<void> {
    const { db, config } = this;
    const name = username === undefined ? '' : normaliseUsername(username);
    if (!name) throw new InvalidRequest('username is required');
    // Both limits count every request, for existing and unknown usernames alike (mail bombing, enumeration at scale).
    await enforce(db, `forgot:ip:${ip}`, config.forgotPerIp);
    await enforce(db, `forgot:u:${name}`, config.forgotPerUsername);
    this.background.run('password.forgot', () => this.sendResetLink(name), log);
  }

  /**
   * Background part of `requestReset`: for an existing account with an e-mail address, stores a
   * new token (replacing, so invalidating, the previous one) and mails its link. Nothing happens
   * for an unknown username or an account without an address.
   * @param username - normalised.
   */
  private async sendResetLink(username: string): Promise<void> {
    const { db, config, mailer } = this;
    const account = await credentialAccountByUsername(db, username);
    if (!account?.email) return;
    const token = randomBytes(RESET_TOKEN_BYTES).toString('base64url');
    // Only its SHA-256 is stored, so a read of the database cannot reset anyone's password.
    await store.replaceResetToken(db, account.id, sha256(token), RESET_LINK_MINUTES * 60);
    // The token travels in the fragment: browsers never send it to a server, so it stays out of access logs and
    // Referer.
    await mailer.send(
      resetLinkMail(account.email, account.username, `${config.publicUrl}/password/reset#token=${token}`),
    );
  }

  /**
   * Completes a forgotten-password reset: checks the token, applies the policy, stores the new
   * hash, consumes the token, ends every session of the user (ASVS 5.0 V7.4.3), clears the
   * account's failed-login count, and mails a notice (V6.3.6).
   *
   * @param token - the token of the link.
   * @param password - the new password, as typed.
   * @param ip - client address.
   * @param log - the request's logger.
   * @throws {InvalidRequest} (400) `INVALID_RESET_LINK` for a used, replaced or unknown token,
   *   `EXPIRED_RESET_LINK` for an expired one; {PasswordPolicyError} (400) naming the broken rule
   *   (the token then stays usable, so the user can try another password).
   */
  async completeReset(token: string, password: string, ip: string, log: FastifyBaseLogger): Promise<void> {
    const { db, config } = this;
    const hashOfToken = sha256(token);
    // The lookup is by the SHA-256 of what was sent: its timing says nothing about stored tokens.
    const found = await store.findResetToken(db, hashOfToken);
    // A token whose account has since been deleted is as unknown as one never issued.
    const account = found && (await credentialAccountById(db, found.userId));
    if (!found || !account) throw new InvalidRequest(INVALID_RESET_LINK);
    if (!found.live) throw new InvalidRequest(EXPIRED_RESET_LINK);
    const normalised = assertPasswordPolicy(password, { username: account.username });
    const hash = await hashPassword(normalised, config.argon2);
    const changed = await db.transaction(async (tx) => {
      // Single use: of two completions racing with one token, only one deletes it.
      if ((await store.consumeResetToken(tx, hashOfToken)) !== account.id) return false;
      await setPasswordHash(tx, account.id, hash);
      // Whoever knew the old password is signed out everywhere.
      await revokeUserSessions(tx, account.id, null, 'password reset');
      // The owner proved control of the mailbox: a lock from earlier failed logins no longer applies.
      await throttle.recordSuccess(tx, throttle.attemptKeys(account.username, ip));
      return true;
    });
    if (!changed) throw new InvalidRequest(INVALID_RESET_LINK);
    this.liveness.forgetUser(account.id);
    this.notify(account, 'reset', log);
  }

  /** Mails the notice of a changed password after the answer, when the account has an address. */
  private notify(account: CredentialAccount, kind: ChangeKind, log: FastifyBaseLogger): void {
    if (!account.email) return;
    const at = new Date();
    this.background.run(
      'password.notice',
      () => this.mailer.send(passwordChangedMail(account.email, account.username, kind, at)),
      log,
    );
  }
}
