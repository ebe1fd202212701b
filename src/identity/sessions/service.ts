/**
 * The rules of signing in (docs/api.md "Identity management" logins, token refresh, logout; docs/api.md "Authentication").
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../../platform/config/load.js';
import { AccessDenied, InvalidRequest, Unauthenticated } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import { Batcher } from '../../platform/db/batcher.js';
import type { Db } from '../../platform/db/open.js';
import { hashJti, InvalidTokenError, type Tokens, TokenType } from '../tokens/tokens.js';
import { hashPassword, needsRehash, verifyNormalised } from '../users/password-hashing.js';
import { presentUser } from '../users/present.js';
import type { UserProfile } from '../users/profile.js';
import * as users from '../users/profile.js';
import type { UserBody } from '../users/schemas.js';
import { ApiKeys } from './api-keys.js';
import { ClientRegistry } from './clients.js';
import { type Device, deviceColumns, UNKNOWN_DEVICE } from './device.js';
import type { LivenessCache } from './liveness.js';
import type { TokenBody } from './schemas.js';
import { SecondFactorRequired, type SecondStepGate } from './second-step.js';
import * as sessions from './store.js';
import { openSuccessor, sealSuccessor } from './successor.js';
import * as throttle from './throttle.js';

/** The one message of every credential failure, so that none tells which part was wrong. */
const BAD_CREDENTIALS = 'Invalid user credentials';

/** What a successful login yields. */
export interface LoginResult {
  User: UserBody;
  Token: TokenBody;
}

/** Normalises a username for lookup: usernames are case-insensitive, like Keycloak's. */
export function normaliseUsername(username: string): string {
  return username.trim().normalize('NFKC').toLowerCase();
}

/** Signs users in and manages their sessions. */
export class IdentityService {
  private dummyHash: Promise<string>;
  private clients: ClientRegistry;
  private apiKeys: ApiKeys;
  /** Group commit of refresh-token rotations (`Batcher`): under load one statement and one commit for many. */
  private rotations: Batcher<sessions.Rotation, string | null>;

  /** Refresh-token rotations taken and not yet answered (count; `Batcher.pending`). */
  get pendingRotations(): number {
    return this.rotations.pending;
  }

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly tokens: Tokens,
    private readonly master: MasterKey,
    /** Told of every revocation, so that the auth guard stops accepting the credential at once. */
    private readonly liveness: LivenessCache,
    /**
     * Refresh-token rotations in flight at once (count;
     * `Config.dbWriteSlots`, 1 on PGlite); more wait and share one statement.
     */
    private readonly rotationSlots: number,
    /** Asks for a second factor when the user has one (src/identity/factors/login.ts); absent, never. */
    private readonly secondStep?: SecondStepGate,
  ) {
    this.clients = new ClientRegistry(this.db);
    this.apiKeys = new ApiKeys(db, config, tokens, master, liveness);
    // Keyed by the presented token: two rotations of one token never share a statement, so the
    // second still finds it consumed and is treated as reuse (RFC 9700 §4.14.2).
    this.rotations = new Batcher(
      {
        one: (r) => sessions.rotateRefresh(this.db, r, this.config.refreshReuseGraceSeconds),
        many: (list) => sessions.rotateRefreshMany(this.db, list, this.config.refreshReuseGraceSeconds),
        key: (r) => r.oldHash.toString('hex'),
      },
      this.rotationSlots,
      64,
    );
    // Verified against when the username is unknown, so that both failures cost one argon2id
    // verification and cannot be told apart by timing (ASVS 5.0 V6.3.8).
    this.dummyHash = hashPassword(randomUUID(), this.config.argon2);
  }

  /**
   * Checks a username and password: throttle, lookup (one round trip), verification of the NFKC form
   * (`verifyNormalised`), re-hash when weaker than configured or stored as typed. Every failure is the same 401.
   *
   * @param username - as sent.
   * @param password - as sent.
   * @param ip - client address, for the per-IP throttle.
   * @returns the user's profile, read by the same statement as the password hash.
   * @throws {RateLimited} when the account or IP is blocked (ASVS 5.0 V6.3.1).
   * @throws {Unauthenticated} `invalid_grant` on a wrong username or password (RFC 6749 §5.2).
   */
  async checkPassword(username: string, password: string, ip: string): Promise<UserProfile> {
    const { db, config } = this;
    const normalised = normaliseUsername(username);
    const keys = throttle.attemptKeys(normalised, ip);
    const found = await sessions.loginLookup(db, normalised, keys.account, keys.ip);
    throttle.assertNotBlocked(found.blockedUntil);
    const stored = found.profile?.row.passwordHash ?? null;
    const hash = stored ?? (await this.dummyHash);
    const match = await verifyNormalised(hash, password);
    const ok = match !== false && stored !== null;
    if (!ok || !found.profile) {
      await throttle.recordFailure(db, keys, config.throttleAccount, config.throttleIp);
      throw new Unauthenticated(BAD_CREDENTIALS, 'invalid_grant');
    }
    if (found.accountHasFailures) await throttle.recordSuccess(db, keys);
    // A hash of the password as typed (before NFKC) or with weak parameters is replaced by the NFKC form's.
    if (match === 'asTyped' || needsRehash(hash, config.argon2))
      await users.setPasswordHash(
        db,
        found.profile.row.id,
        await hashPassword(password.normalize('NFKC'), config.argon2),
      );
    return found.profile;
  }

  /**
   * Resolves the client a new session belongs to: the one named, else `ASSENT_DEFAULT_CLIENT_ID`,
   * else the first registered client.
   * @throws {InvalidRequest} `invalid_client` when it is not registered.
   */
  async resolveClient(clientId: string | undefined): Promise<string> {
    const { config } = this;
    const id = clientId ?? config.defaultClientId ?? (await this.clients.firstClient());
    if (!id || !(await this.clients.has(id))) throw new InvalidRequest('Unknown client', 'invalid_client');
    return id;
  }

  /**
   * Opens a session (token family), sets `LastVisit`, and mints the access and refresh tokens.
   * @param userId - the signed-in user.
   * @param clientId - a registered client.
   * @param device - what the person will be shown of the session (docs/security.md "Sessions").
   * @returns the Token body and the new `LastVisit`.
   */
  async openSession(
    userId: string,
    clientId: string,
    device: Device = UNKNOWN_DEVICE,
  ): Promise<{ token: TokenBody; lastVisit: Date }> {
    const { db, config, tokens } = this;
    const sid = randomUUID();
    const refresh = await tokens.sign(
      TokenType.refresh,
      { sub: userId, client_id: clientId, sid },
      config.refreshTokenTtl,
    );
    const lastVisit = await sessions.openSession(db, {
      familyId: sid,
      userId,
      clientId,
      jtiHash: hashJti(refresh.jti),
      expiresAt: new Date(refresh.exp * 1000),
      ...deviceColumns(device),
    });
    return { token: await this.tokenBody(userId, clientId, sid, refresh.token), lastVisit };
  }

  private async tokenBody(userId: string, clientId: string, sid: string, refreshToken: string): Promise<TokenBody> {
    const { config, tokens } = this;
    const access = await tokens.sign(
      TokenType.access,
      { sub: userId, client_id: clientId, sid },
      config.accessTokenTtl,
    );
    return {
      access_token: access.token,
      expires_in: config.accessTokenTtl,
      refresh_token: refreshToken,
      refresh_expires_in: config.refreshTokenTtl,
      token_type: 'bearer',
    };
  }

  /**
   * Revokes the user's API keys at once; the next login or `GET /user` hands out a new one.
   * @param userId - the signed-in user.
   */
  revokeApiKeys(userId: string): Promise<void> {
    return this.apiKeys.revoke(userId);
  }

  /**
   * Ends one session (token family) at once: its access and refresh tokens are refused from the
   * next request on, in this process and others (docs/decisions/0001-logout-takes-effect-at-once.md). Idempotent.
   * @param userId - the session's user, whose cached liveness answers are dropped.
   * @param familyId - the session (`sid`).
   * @param reason - stored with the revocation, e.g. `logout`.
   */
  async revokeSession(userId: string, familyId: string, reason: string): Promise<void> {
    await sessions.revokeFamily(this.db, familyId, reason);
    this.liveness.forgetUser(userId);
  }

  /**
   * The User record of docs/api.md "Resources", with `APIKey` when asked (one round trip, plus one write when a
   * new API key must be minted).
   * @throws {Unauthenticated} when the user no longer exists.
   */
  async userRecord(userId: string, withApiKey: boolean): Promise<UserBody> {
    const profile = await users.userProfile(this.db, userId);
    if (!profile) throw new Unauthenticated();
    return this.presentProfile(profile, withApiKey);
  }

  private async presentProfile(profile: UserProfile, withApiKey: boolean): Promise<UserBody> {
    const apiKey = withApiKey ? await this.apiKeys.forUser(profile.row.id, profile.apiKeySealed) : undefined;
    return presentUser(profile.row, profile.orgs, profile.roles, this.config.publicUrl, apiKey);
  }

  /**
   * Logs in (docs/api.md "Identity management" "Login as user" v1.1 and "Login as organisation admin"). A user with a
   * second factor gets `SecondFactorRequired` (401 `mfa_required` with an `mfa_token`) instead of a session: the
   * login ends at `MfaLogin.complete` (docs/api.md "Second factor").
   * @param device - where the login comes from: its address for the throttle, and what the session will show.
   * @param login - which login asks (`admin`: a user without any admin role gets a 403; `token`: the old login).
   * @throws {Unauthenticated} | {RateLimited} | {InvalidRequest} | {AccessDenied} | {SecondFactorRequired}
   */
  async login(
    input: { username: string; password: string; clientid?: string },
    device: Device,
    login: 'login' | 'token' | 'admin',
  ): Promise<LoginResult> {
    const profile = await this.checkPassword(input.username, input.password, device.ip);
    const clientId = await this.resolveClient(input.clientid);
    const mfaToken = await this.secondStep?.begin(profile.row.id, clientId, login);
    if (mfaToken) throw new SecondFactorRequired(mfaToken);
    return this.loginAs(profile, clientId, login === 'admin', device);
  }

  /**
   * The end of a login whose credentials were checked: the User record (with `APIKey`), a new session and its tokens.
   * @param user - the user's ID, or their profile when already read.
   * @param admin - refuse a user without any admin role (the admin login).
   * @param device - the device the session is opened from.
   * @throws {AccessDenied} for `admin` without a role; {Unauthenticated} when the user no longer exists.
   */
  async loginAs(user: string | UserProfile, clientId: string, admin: boolean, device: Device): Promise<LoginResult> {
    const profile = typeof user === 'string' ? await users.userProfile(this.db, user) : user;
    if (!profile) throw new Unauthenticated();
    const body = await this.presentProfile(profile, true);
    if (admin && (body.Roles ?? []).length === 0) throw new AccessDenied('The user is not an organisation admin');
    const { token, lastVisit } = await this.openSession(profile.row.id, clientId, device);
    body.LastVisit = lastVisit.toISOString();
    return { User: body, Token: token };
  }

  /**
   * Rotates a refresh token (docs/api.md "Identity management" "Refresh access token"; RFC 6749 §6; RFC 9700 §4.14.2).
   * The answer is built before the rotation so that the same statement keeps it sealed for the
   * reuse grace period (`successor.ts`). A consumed token presented again within that period,
   * while its successor is unused, answers the same tokens; any other reuse revokes the family.
   * @throws {InvalidRequest} `invalid_grant` / `invalid_client`.
   */
  async refresh(input: { refreshtoken: string; clientid: string }): Promise<TokenBody> {
    const { db, config, tokens, master } = this;
    const claims = await this.verifyRefresh(input.refreshtoken);
    // Also guards the grace period: only the client the token was issued to may get its successor.
    await this.assertClient(input.clientid, claims.client_id);
    const next = await tokens.sign(
      TokenType.refresh,
      { sub: claims.sub, client_id: claims.client_id, sid: claims.sid },
      config.refreshTokenTtl,
    );
    const body = await this.tokenBody(claims.sub, claims.client_id, claims.sid, next.token);
    const successorSealed = sealSuccessor(master, body, config.refreshReuseGraceSeconds);
    const oldHash = hashJti(claims.jti);
    if (
      await this.rotations.run({
        oldHash,
        newHash: hashJti(next.jti),
        newExpiresAt: new Date(next.exp * 1000),
        successorSealed,
      })
    )
      return body;
    const reused = await sessions.consumedToken(db, oldHash);
    // A parallel refresh of the same client within the grace period, before the successor was used: the same answer.
    if (reused?.successorSealed) return openSuccessor(master, reused.successorSealed);
    // A consumed token presented again otherwise means it was stolen or raced: end the session for everyone holding it.
    if (reused) await this.revokeSession(claims.sub, reused.familyId, 'refresh token reuse');
    throw new InvalidRequest('Invalid refresh token', 'invalid_grant');
  }

  /**
   * Ends the session of a refresh token (docs/api.md "Identity management" "Logout user"). The token must belong to the caller.
   * @throws {InvalidRequest} `invalid_grant` / `invalid_client`.
   */
  async logout(principal: Principal, input: { refreshtoken: string; clientid: string }): Promise<void> {
    const claims = await this.verifyRefresh(input.refreshtoken);
    await this.assertClient(input.clientid, claims.client_id);
    // Someone else's refresh token must not let the caller end that person's session.
    if (claims.sub !== principal.userId) throw new InvalidRequest('Invalid refresh token', 'invalid_grant');
    await this.revokeSession(claims.sub, claims.sid as string, 'logout');
  }

  private async verifyRefresh(token: string) {
    try {
      const claims = await this.tokens.verify(token, TokenType.refresh);
      if (!claims.sid || !claims.client_id) throw new InvalidTokenError('missing sid');
      return claims as typeof claims & { sid: string; client_id: string };
    } catch (err) {
      if (err instanceof InvalidTokenError) throw new InvalidRequest('Invalid refresh token', 'invalid_grant');
      throw err;
    }
  }

  private async assertClient(sent: string, bound: string): Promise<void> {
    if (!(await this.clients.has(sent))) throw new InvalidRequest('Unknown client', 'invalid_client');
    // RFC 6749 §6: a refresh token is bound to the client it was issued to.
    if (sent !== bound) throw new InvalidRequest('The refresh token was not issued to this client', 'invalid_grant');
  }
}
